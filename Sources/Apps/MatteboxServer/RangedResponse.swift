import Foundation
import Hummingbird
import NIOCore

/// A file from disk, or bytes already in memory, sent whole or in the one part the
/// request's `Range` asks for. Files are streamed in chunks by Hummingbird's `FileIO`,
/// so a long recording is never held in memory, and the browser can seek in it.
///
/// Why not Hummingbird's `FileMiddleware`, which answers Range, If-Range and ETag
/// itself: it serves a folder tree by URL path, while the library serves files by
/// id after its own checks (plain files only, never a link, the trash apart); it
/// reads `bytes=-500` as the first 501 bytes rather than the last 500 (RFC 9110
/// §14.1.2); a range that starts past the end gets no 416 from it; and a Motion
/// Photo's movie is bytes inside a still, not a file. `ByteRange` (fuzzed) does the parsing.
enum RangedResponse {
    enum Source {
        case file(URL)
        /// These bytes of a file (a Motion Photo's movie inside its still).
        case filePart(URL, Range<Int>)
        case bytes(Data)
    }

    static func make(
        _ source: Source, type: String, headers extra: HTTPFields = [:], request: Request, context: AppRequestContext
    ) async throws -> Response {
        let size: Int
        switch source {
        case .file(let url):
            guard let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int else {
                throw HTTPError(.notFound)
            }
            size = bytes
        case .filePart(_, let part): size = part.count
        case .bytes(let data): size = data.count
        }
        var headers = extra
        headers[.contentType] = type
        headers[.acceptRanges] = "bytes"
        let range = ByteRange(header: request.headers[.range], ifRange: request.headers[.ifRange], size: size)
        switch range {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case .whole:
            return Response(status: .ok, headers: headers, body: try await body(source, 0...max(0, size - 1), size: size, context))
        case .part(let part):
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
            return Response(status: .partialContent, headers: headers, body: try await body(source, part, size: size, context))
        }
    }

    private static func body(
        _ source: Source, _ part: ClosedRange<Int>, size: Int, _ context: AppRequestContext
    ) async throws -> ResponseBody {
        guard size > 0 else { return ResponseBody() }
        switch source {
        case .file(let url): return try await FileIO().loadFile(path: url.path, range: part, context: context)
        case .filePart(let url, let within):
            let start = within.lowerBound + part.lowerBound
            return try await FileIO().loadFile(path: url.path, range: start...(start + part.count - 1), context: context)
        case .bytes(let data): return ResponseBody(byteBuffer: ByteBuffer(data: data[data.startIndex + part.lowerBound...data.startIndex + part.upperBound]))
        }
    }
}
