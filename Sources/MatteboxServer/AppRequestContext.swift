import Foundation
import Hummingbird
import NIOCore

/// The request context of the camera app: Hummingbird's basics, the peer's
/// address (for the access policy), and small request bodies.
package struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
    package var coreContext: CoreRequestContextStorage
    package let remoteAddress: SocketAddress?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The API takes small JSON bodies only.
    package var maxUploadSize: Int { 64 * 1024 }
}

/// JSON replies with the conventions of Mattebox's `--json` (sorted keys, no escaped slashes).
enum JSONReply {
    static func encode<Value: Encodable>(_ value: Value) throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return ByteBuffer(data: try encoder.encode(value))
    }

    static func ok<Value: Encodable>(_ value: Value, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: try encode(value)))
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) throws -> Response {
        try ok(["error": message], status: status)
    }

    /// Reads a JSON body (at most the context's upload size), or says what is wrong with it.
    static func decode<Value: Decodable>(_ type: Value.Type, from request: Request, context: AppRequestContext) async throws -> Value {
        let body: ByteBuffer
        do { body = try await request.body.collect(upTo: context.maxUploadSize) } catch {
            throw HTTPError(.contentTooLarge, message: "request body over \(context.maxUploadSize) bytes")
        }
        if body.readableBytes == 0, let empty = try? JSONDecoder().decode(Value.self, from: Data("{}".utf8)) { return empty }
        do { return try JSONDecoder().decode(Value.self, from: Data(buffer: body)) } catch {
            throw HTTPError(.badRequest, message: "\(request.uri.path): the body is not the JSON expected: \(error)")
        }
    }
}
