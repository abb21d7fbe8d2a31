import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension CameraApp {
    static let previewBoundary = "mattebox-frame"

    /// The page and its script and style, the live preview, and the event stream.
    func addPageRoutes(to router: Router<AppRequestContext>) {
        let policy = self.policy
        // The files in Page/Assets, embedded at build time by BuildTools/EmbedFiles.
        let page = EmbeddedFiles.byName["app.html"] ?? "", script = EmbeddedFiles.byName["app.js"] ?? ""
        let style = EmbeddedFiles.byName["app.css"] ?? ""
        router.get("/") { _, _ in
            // The token sits in the page, which only this origin can read; the script sends it back as a header.
            let html = page.replacingOccurrences(of: "{{TOKEN}}", with: policy.token)
            return Self.asset(html, type: "text/html; charset=utf-8")
        }
        router.get("/app.js") { _, _ in Self.asset(script, type: "text/javascript; charset=utf-8") }
        router.get("/app.css") { _, _ in Self.asset(style, type: "text/css; charset=utf-8") }

        let preview = self.preview
        router.get("/preview.mjpg") { _, _ -> Response in
            guard let frames = preview.subscribe() else {
                return try JSONReply.error(.serviceUnavailable, "\(preview.maximumViewers) viewers are watching already")
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "multipart/x-mixed-replace; boundary=\(Self.previewBoundary)", .cacheControl: "no-store",
                ],
                body: ResponseBody { writer in
                    for await jpeg in frames { try await writer.write(contentsOf: PreviewHub.part(jpeg, boundary: Self.previewBoundary)) }
                    try await writer.finish(nil)
                })
        }
        router.get("/preview.jpg") { _, _ -> Response in
            guard let jpeg = await preview.currentFrame() else {
                return try JSONReply.error(.serviceUnavailable, "no preview frame: the camera is not streaming")
            }
            return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"], body: .init(byteBuffer: jpeg))
        }

        let events = self.events
        router.get("/api/events") { _, _ -> Response in
            guard let stream = events.subscribe() else {
                return try JSONReply.error(.serviceUnavailable, "\(events.maximumListeners) event streams are open already")
            }
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    for await event in stream {
                        var line = ByteBuffer(string: "data: ")
                        line.writeImmutableBuffer(try JSONReply.encode(event))
                        line.writeString("\n\n")
                        try await writer.write(line)
                    }
                    try await writer.finish(nil)
                })
        }
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: type, .cacheControl: "no-store",
                .contentSecurityPolicy: "default-src 'self'; img-src 'self' blob: data:; frame-ancestors 'none'",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                HTTPField.Name("Referrer-Policy")!: "no-referrer",
            ],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
