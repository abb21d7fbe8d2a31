import Foundation
import HTTPTypes
import Hummingbird
import MatteboxRuntime
import NIOCore

/// Who may use the camera app, and how. The app listens on loopback by
/// default; a client that is not on loopback (or, behind a reverse proxy, whose
/// address as the trusted proxy saw it is not) needs the token for every
/// request, presented as `?token=` once (which sets a cookie), the
/// `X-Mattebox-Token` header, an `Authorization: Bearer` header or the cookie.
/// Every request that changes something (POST, PUT, DELETE) needs the token in
/// a header, which only the app's own page (or a script given the token) knows
/// (a cookie alone is not enough: browsers send cookies with forged cross-site
/// requests), and an Origin, when sent, that matches the Host. On loopback the
/// Host must name loopback too, so a DNS-rebinding page cannot read the app.
/// Requests another site's page makes (`Sec-Fetch-Site`, a foreign `Referer`)
/// are refused, but for following a link to the page itself.
package struct AccessPolicy: Sendable {
    package var token: String
    /// The token was made up at start (and printed once), not given.
    package var tokenWasGenerated: Bool
    package var listensOnLoopbackOnly: Bool
    /// The reverse proxies whose forwarding headers are believed; empty when not behind a proxy.
    package var trustedProxies: [AddressRange]
    /// Forwarding headers are believed from a trusted proxy.
    package var behindProxy: Bool { !trustedProxies.isEmpty }

    /// `trustedProxies`: the proxies' addresses; `behindProxy` alone trusts a proxy on loopback.
    package init(listenHost: String, token: String?, behindProxy: Bool = false, trustedProxies: [AddressRange] = []) {
        self.token = token ?? Self.generateToken()
        tokenWasGenerated = token == nil
        listensOnLoopbackOnly = Self.isLoopback(listenHost)
        self.trustedProxies = !trustedProxies.isEmpty ? trustedProxies : behindProxy ? AddressRange.loopback : []
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

    /// The client's address: the peer's, or when the peer is a trusted proxy the one it saw
    /// (`ForwardedChain`); when the forwarding headers disagree, the one that is not loopback.
    func clientAddress(_ request: Request, peer: SocketAddress?) -> String? {
        let peerAddress = peer?.ipAddress
        guard let peerAddress, trustedProxies.contains(where: { $0.contains(peerAddress) }) else { return peerAddress }
        let chains = [
            ForwardedChain.xForwardedFor(request.headers[values: HTTPField.Name("X-Forwarded-For")!]),
            ForwardedChain.forwarded(request.headers[values: HTTPField.Name("Forwarded")!]),
        ].compactMap { $0 }
        let clients = chains.map { $0.client(trusting: trustedProxies) }
        return clients.first { !Self.isLoopback($0) } ?? clients.first ?? peerAddress
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

    /// Whether the request presents the token (in a header, the cookie or the query).
    func presentsToken(_ request: Request) -> Bool { matches(presentedToken(request).value) }

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
        if let site = foreignSite(request) {
            return (.forbidden, "requests made by another site's page (\(site)) are refused; open the app itself")
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

    /// What shows the request was made by another site's page (an `<img>`, a form, a script),
    /// or nil. A link followed to the page itself (`/`, a navigation) is let in: it reads nothing
    /// the linking page can see, and is how the token's address is opened.
    func foreignSite(_ request: Request) -> String? {
        let isPageNavigation = request.method == .get && request.uri.path == "/"
            && request.headers[HTTPField.Name("Sec-Fetch-Mode")!].map { $0 == "navigate" } ?? true
        if isPageNavigation { return nil }
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!]?.lowercased(), site != "same-origin" && site != "none" {
            return "Sec-Fetch-Site: \(site)"
        }
        if let referer = request.headers[.referer], let host = request.head.authority,
            let url = URL(string: referer), let refererHost = url.host
        {
            let refererAuthority = url.port.map { "\(refererHost):\($0)" } ?? refererHost
            let sameHost = refererAuthority.lowercased() == host.lowercased()
                || "[\(refererHost)]:\(url.port ?? 0)".lowercased() == host.lowercased()
            if !sameHost { return "Referer from \(refererAuthority)" }
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
        var context = context
        context.presentsToken = policy.presentsToken(request)
        if request.method == .get, let token = request.uri.queryParameters.get("token"), policy.matches(token) {
            var response = Response(status: .seeOther, headers: [.location: request.uri.path])
            response.setCookie(Cookie(name: AccessPolicy.cookieName, value: token, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        return try await next(request, context)
    }
}
