import Foundation
import Hummingbird
import NIOCore

extension CameraApp {
    /// The library: listing, thumbnails, overlays, download, trash and restore.
    func addLibraryRoutes(to router: Router<AppRequestContext>) {
        let library = self.library
        router.get("/api/library") { _, _ in try JSONReply.ok(["photos": library.items()]) }
        router.get("/api/trash") { _, _ in try JSONReply.ok(["photos": library.trashed()]) }

        router.get("/api/library/{id}/thumbnail.jpg") { _, context in
            try Self.answer {
                Response(
                    status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=60"],
                    body: .init(byteBuffer: ByteBuffer(data: try library.thumbnail(context.parameters.require("id")))))
            }
        }
        router.get("/api/library/{id}/overlay/{role}") { _, context in
            try Self.answer {
                let role = try context.parameters.require("role")
                let image = try library.overlay(context.parameters.require("id"), role: role)
                return Response(
                    status: .ok, headers: [.contentType: role == "primary" ? "image/jpeg" : "image/png", .cacheControl: "private, max-age=60"],
                    body: .init(byteBuffer: ByteBuffer(data: image)))
            }
        }
        router.get("/api/library/{id}/file") { _, context in
            try Self.answer {
                let id = try context.parameters.require("id")
                let data = try Data(contentsOf: try library.file(id))
                let type = id.lowercased().hasSuffix(".png") ? "image/png" : id.lowercased().hasSuffix(".heic") ? "image/heic" : "image/jpeg"
                let safeName = id.filter { $0.isASCII && $0 != "\"" && $0 != "\\" }
                return Response(
                    status: .ok,
                    headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(safeName)\""],
                    body: .init(byteBuffer: ByteBuffer(data: data)))
            }
        }
        router.delete("/api/library/{id}") { _, context in
            try Self.answer {
                let id = try context.parameters.require("id")
                try library.trash(id)
                return try JSONReply.ok(["trashed": id])
            }
        }
        router.post("/api/trash/{id}/restore") { _, context in
            try Self.answer {
                let id = try context.parameters.require("id")
                try library.restore(id)
                return try JSONReply.ok(["restored": id])
            }
        }
    }

    /// A library answer, with its errors as JSON: 404 for what is not there, 409 for a name clash.
    static func answer(_ body: () throws -> Response) throws -> Response {
        do { return try body() } catch let error as LibraryError {
            switch error {
            case .notFound, .noAuxiliary: return try JSONReply.error(.notFound, error.description)
            case .conflict: return try JSONReply.error(.conflict, error.description)
            case .unreadable: return try JSONReply.error(.unprocessableContent, error.description)
            }
        }
    }
}
