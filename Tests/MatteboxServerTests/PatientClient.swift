import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// A loopback HTTP client for a live test server that waits as long as a test run may take.
/// HummingbirdTesting's own live client gives up after 20 s without a byte; on a 2-core machine
/// the suites running beside this one (their synchronous work holding Swift's concurrency
/// threads, which the server's handlers need too) can keep a request waiting longer than that,
/// and the test would fail on the machine's load, not on what it checks.
struct PatientClient: Sendable {
    /// What the server answered.
    struct Reply: Sendable {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: ByteBuffer
    }

    let client: TestClient

    /// Runs `test` against `application` listening on loopback, then stops both.
    static func serving<App: ApplicationProtocol, Value: Sendable>(
        _ application: App, _ test: @escaping @Sendable (PatientClient) async throws -> Value
    ) async throws -> Value {
        try await application.test(.live) { live in
            let port = try #require(live.port, "the live server's port")
            let client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(600)))
            client.connect()
            do {
                let value = try await test(PatientClient(client: client))
                try await client.shutdown()
                return value
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }

    /// Sends a request and hands its reply to `check`.
    @discardableResult
    func execute<Value>(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        _ check: (Reply) async throws -> Value
    ) async throws -> Value {
        var headers = headers
        headers[.connection] = "keep-alive"
        let response = try await client.execute(TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body))
        return try await check(Reply(status: response.status, headers: response.headers, body: response.body ?? ByteBuffer()))
    }
}
