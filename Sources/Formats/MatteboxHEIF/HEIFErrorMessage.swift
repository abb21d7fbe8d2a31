import MatteboxISOBMFF
import MatteboxRuntime

extension MatteboxError {
    /// A HEIF error as a person sees it: the file, then what is wrong with it.
    init(_ error: HEIFError, file: String) {
        self.init("\(file): \(error.description)")
    }
}
