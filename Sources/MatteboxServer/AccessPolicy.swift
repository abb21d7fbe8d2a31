import Foundation
import HTTPTypes
import Hummingbird
import MatteboxRuntime
import NIOCore

/// Who may use the camera app, and how. The app listens on loopback by
/// default; a client that is not on loopback (or, behind a reverse proxy, whose
/// forwarded address is not) needs the token for every request, presented as
/// `?token=` once (which sets a cookie), a bearer header or the cookie. Every
/// request that changes something (POST, PUT, DELETE) needs the token in the
/// `X-Mattebox-Token` header, which only the app's own page knows (a cookie
/// alone is not enough: browsers send cookies with forged cross-site requests),
/// and an Origin, when sent, that matches the Host. On loopback the Host must
/// name loopback too, so a DNS-rebinding page cannot read the app.
package struct AccessPolicy: Sendable {
    package var token: String
    /// The token was made up at start (and printed once), not given.
    package var tokenWasGenerated: Bool
    package var listensOnLoopbackOnly: Bool
    /// Trust X-Forwarded-For / Forwarded from a loopback peer (a reverse proxy on this machine).
    package var behindProxy: Bool

    package init(listenHost: String, token: String?, behindProxy: Bool = false) {
        self.token = token ?? Self.generateToken()
        tokenWasGenerated = token == nil
        listensOnLoopbackOnly = Self.isLoopback(listenHost)
        self.behindProxy = behindProxy
    }

    /// Whether the listen address needs a token that must be shown to the user.
    package var mustAnnounceToken: Bool { tokenWasGenerated && !listensOnLoopbackOnly }

    static func generateToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// 127.0.0.0/8, ::1, the IPv4-mapped form of 127/8, and "localhost".
    package static func isLoopback(_ host: String) -> Bool {
        var address = host.lowercased()
        if address.hasPrefix("[") && address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        if address == "localhost" || address == "::1" || address == "0:0:0:0:0:0:0:1" { return true }
        if address.hasPrefix("::ffff:") { address = String(address.dropFirst(7)) }
        let parts = address.split(separator: ".")
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil } && parts[0] == "127"
    }

    /// The client's address: the peer's, or behind a proxy the first forwarded one.
    func clientAddress(_ request: Request, peer: SocketAddress?) -> String? {
        let peerAddress = peer?.ipAddress
        guard behindProxy, let peerAddress, Self.isLoopback(peerAddress) else { return peerAddress }
        if let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!]?.split(separator: ",").first {
            return forwarded.trimmingCharacters(in: .whitespaces)
        }
        if let forwarded = request.headers[HTTPField.Name("Forwarded")!],
            let part = forwarded.split(separator: ";").first(where: { $0.lowercased().trimmingCharacters(in: .whitespaces).hasPrefix("for=") })
        {
            return part.trimmingCharacters(in: .whitespaces).dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: "\"[]"))
        }
        return peerAddress
    }

    /// The token the request presents, from the header, a bearer, the cookie or the query.
    func presentedToken(_ request: Request) -> (value: String?, inHeader: Bool) {
        if let header = request.headers[HTTPField.Name("X-Mattebox-Token")!] { return (header, true) }
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            return (String(authorization.dropFirst(7)), true)
        }
        if let cookie = request.cookies[Self.cookieName]?.value { return (cookie, false) }
        return (request.uri.queryParameters.get("token"), false)
    }

    func matches(_ presented: String?) -> Bool {
        guard let presented else { return false }
        // Constant time over the token's length.
        let a = Array(presented.utf8), b = Array(token.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static let cookieName = "mattebox_token"

    /// Why the request is refused (status and words), or nil when it may go on.
    func refusal(_ request: Request, peer: SocketAddress?) -> (HTTPResponse.Status, String)? {
        let client = clientAddress(request, peer: peer)
        let presented = presentedToken(request)
        let hasToken = matches(presented.value)
        let clientIsLocal = client.map(Self.isLoopback) ?? false
        if !clientIsLocal && !hasToken {
            return (.unauthorized, "this camera app needs its token from \(client ?? "an unknown address"): "
                + "open the address `mattebox serve` printed (with ?token=...)")
        }
        if listensOnLoopbackOnly, let host = request.head.authority, !Self.isLoopback(Self.hostName(host)) {
            return (.forbidden, "Host \(host) is not this machine's loopback address")
        }
        if request.method != .get && request.method != .head && request.method != .options {
            guard presented.inHeader && hasToken else {
                return (.forbidden, "\(request.method) \(request.uri.path) needs the X-Mattebox-Token header (the app's page sends it)")
            }
            if let origin = request.headers[.origin], let host = request.head.authority,
                origin != "http://\(host)" && origin != "https://\(host)"
            {
                return (.forbidden, "cross-origin request from \(origin) refused")
            }
        }
        return nil
    }

    /// "host:port", "[v6]:port" or "host" → the host.
    static func hostName(_ authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        return authority.split(separator: ":").first.map(String.init) ?? authority
    }
}

/// Applies the access policy to every request; `?token=` on a page request sets the cookie and drops it from the address.
package struct AccessMiddleware: RouterMiddleware {
    package typealias Context = AppRequestContext
    let policy: AccessPolicy

    package init(policy: AccessPolicy) { self.policy = policy }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let (status, message) = policy.refusal(request, peer: context.remoteAddress) {
            Log.emit(.info, "refused \(request.method) \(request.uri.path) from \(context.remoteAddress?.ipAddress ?? "?"): \(message)")
            return try JSONReply.error(status, message)
        }
        if request.method == .get, let token = request.uri.queryParameters.get("token"), policy.matches(token) {
            var response = Response(status: .seeOther, headers: [.location: request.uri.path])
            response.setCookie(Cookie(name: AccessPolicy.cookieName, value: token, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        return try await next(request, context)
    }
}
