import CFuzzDriver
import Foundation
import MatteboxFuzzTargets

// mattebox-fuzz TARGET [ARGS...]
// Built by `make fuzz` (libFuzzer and AddressSanitizer, -DFUZZING): fuzzes TARGET, passing ARGS
// (corpus folders, -runs=N, ...) to libFuzzer. Built as usual: replays the files ARGS names
// through TARGET, one by one, and says which it is reading (a crash then names the file).
let arguments = CommandLine.arguments
guard arguments.count >= 2, let target = FuzzTargets.all[arguments[1]] else {
    FileHandle.standardError.write(Data("usage: mattebox-fuzz TARGET [ARGS...]; targets: \(FuzzTargets.all.keys.sorted().joined(separator: ", "))\n".utf8))
    exit(64)
}
nonisolated(unsafe) var chosen: (@Sendable ([UInt8]) -> Void)? = target

#if FUZZING
// libFuzzer sees the program name and its own arguments, not the target's name.
var forwarded = [arguments[0]] + arguments.dropFirst(2)
var cStrings = forwarded.map { strdup($0) }
var count = Int32(cStrings.count)
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = UnsafeMutablePointer.allocate(capacity: cStrings.count + 1)
for (index, string) in cStrings.enumerated() { argv![index] = string }
argv![cStrings.count] = nil
exit(LLVMFuzzerRunDriver(&count, &argv) { data, size in
    chosen!(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
})
#else
for path in arguments.dropFirst(2) {
    FileHandle.standardError.write(Data("\(path)\n".utf8))
    guard let data = FileManager.default.contents(atPath: path) else { continue }
    target([UInt8](data))
}
#endif
