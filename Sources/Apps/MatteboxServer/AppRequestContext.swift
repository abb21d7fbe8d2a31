import Foundation
import Hummingbird
import NIOCore

/// The request context of the camera app: Hummingbird's basics, the peer's
/// address (for the access policy), and small request bodies.
package struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
    package var coreContext: CoreRequestContextStorage
    package let remoteAddress: SocketAddress?
    /// The request presented the app's token (set by `AccessMiddleware`): routes that derive
    /// images from request parameters serve only such requests.
    package var presentsToken = false

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

    /// Reads a JSON object body (at most the context's upload size), or says what is wrong with it in
    /// words: a body that is not JSON, a field missing or of the wrong type. `empty` is what an empty body
    /// means where the request's fields are all optional (a shutter press); elsewhere it is refused.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from request: Request, context: AppRequestContext, empty: Value? = nil
    ) async throws -> Value {
        let body: ByteBuffer
        do { body = try await request.body.collect(upTo: context.maxUploadSize) } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge, message: "request body over \(context.maxUploadSize) bytes")
        } catch {
            throw HTTPError(.badRequest, message: "\(request.uri.path): the body could not be read (\(error))")
        }
        if body.readableBytes == 0 {
            if let empty { return empty }
            throw HTTPError(.badRequest, message: "\(request.uri.path) needs a JSON object in the body")
        }
        do { return try JSONDecoder().decode(Value.self, from: Data(buffer: body)) } catch let error as DecodingError {
            throw HTTPError(.badRequest, message: "\(request.uri.path): \(words(for: error))")
        } catch {
            throw HTTPError(.badRequest, message: "\(request.uri.path): the body is not JSON")
        }
    }

    /// A decoding error as a client can act on it, not as Swift's decoder words it.
    static func words(for error: DecodingError) -> String {
        func field(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "the body" : "`" + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".") + "`"
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(field(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let expected = type is any StringProtocol.Type ? "a string"
                : type is Bool.Type ? "true or false"
                : (type is Double.Type || type is Int.Type || type is Float.Type) ? "a number"
                : "\(type)".hasPrefix("Dictionary") ? "a JSON object" : "\(type)".hasPrefix("Array") ? "a JSON array" : "a value of another kind"
            return "\(field(context.codingPath)) should be \(expected)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the body is not JSON" : "\(field(context.codingPath)) is not valid"
        @unknown default: return "the body is not the JSON expected"
        }
    }
}

/// Every error answer in one shape, `{"error": "…"}`, the one the routes
/// write: Hummingbird's own errors (a body too large or malformed, a missing
/// path parameter) would otherwise come as `{"error":{"message":…}}`.
struct JSONErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        do { return try await next(request, context) } catch let error as HTTPError {
            var response = try JSONReply.error(error.status, error.body ?? error.status.reasonPhrase)
            for field in error.headers where field.name != .contentType && field.name != .contentLength {
                response.headers.append(field)
            }
            return response
        }
    }
}
