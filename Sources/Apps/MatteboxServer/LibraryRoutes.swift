import Foundation
import MatteboxImageIO
import HTTPTypes
import Hummingbird
import MatteboxLibrary
import MatteboxPluginHost
import MatteboxRuntime
import NIOCore

/// The library's routes: listing, thumbnails, overlays, download (whole or a
/// byte range), Live and Motion Photo movies, the Portrait control, trash and
/// restore, over a `PhotoLibrary`. Apart from the camera's routes, so they can
/// be served and tested without a camera.
package struct LibraryRoutes: Sendable {
    let library: PhotoLibrary
    /// The viewer's Portrait control (re-render at screen size, save a copy).
    let studio: PortraitStudio
    /// File names of captures whose final is not written yet (shown as processing).
    let processing: @Sendable () -> Set<String>

    package init(library: PhotoLibrary, registry: PluginRegistry, processing: @escaping @Sendable () -> Set<String> = { [] }) {
        self.library = library
        studio = PortraitStudio(registry: registry, library: library)
        self.processing = processing
    }

    package func add(to router: Router<AppRequestContext>) {
        let (library, processing) = (self.library, self.processing)
        router.get("/api/library") { _, _ in
            let pending = processing()
            return try JSONReply.ok(["photos": library.items().map { item in
                var item = item
                if pending.contains(item.id) { item.processing = true }
                return item
            }])
        }
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
        router.get("/api/library/{id}/file") { request, context -> Response in
            let id = try context.parameters.require("id")
            let url: URL
            do { url = try library.file(id) } catch { return try Self.answer { throw error } }
            let type = ImageContainers.mimeType(ofFileNamed: id)
            let safeName = id.filter { $0.isASCII && $0 != "\"" && $0 != "\\" }
            return try await RangedResponse.make(
                .file(url), type: type, headers: [.contentDisposition: "attachment; filename=\"\(safeName)\""],
                request: request, context: context)
        }
        router.get("/api/library/{id}/movie") { request, context -> Response in
            let movie: PhotoLibrary.Movie
            do { movie = try library.movie(context.parameters.require("id")) } catch { return try Self.answer { throw error } }
            let cache: HTTPFields = [.cacheControl: "private, max-age=60"]
            switch movie {
            case .file(let url, let type):
                return try await RangedResponse.make(.file(url), type: type, headers: cache, request: request, context: context)
            case .part(let url, let range):
                return try await RangedResponse.make(.filePart(url, range), type: "video/mp4", headers: cache, request: request, context: context)
            case .embedded(let data):
                return try await RangedResponse.make(.bytes(data), type: "video/mp4", headers: cache, request: request, context: context)
            }
        }
        // The Portrait control: a render at screen size while the slider moves, and a full-size copy.
        let studio = self.studio
        router.get("/api/library/{id}/portrait.jpg") { request, context -> Response in
            let id = try context.parameters.require("id")
            let query = request.uri.queryParameters
            // Every query parameter but the size is one of the plugin's, checked by its descriptor.
            var values: [String: String] = [:]
            for (key, value) in query where key != "size" && key != "token" { values[String(key)] = String(value) }
            let longSide = min(2048, max(160, query.get("size").flatMap(Int.init) ?? 1280))
            // An image made from the request's own parameters: only for the app's page or a script with the token.
            guard context.presentsToken else {
                return try JSONReply.error(.forbidden, "\(request.uri.path) needs the token (the X-Mattebox-Token header the app's page sends)")
            }
            return try await Self.portraitAnswer {
                let settings = try studio.settings(fromRequest: values)
                let preview = try await BlockingWork.run { try studio.preview(id, settings: settings, longSide: longSide) }
                var headers: HTTPFields = [.contentType: "image/jpeg", .cacheControl: "no-store"]
                // What the effect rendered with (the photo's own choices when the request left them out).
                if let aperture = preview.aperture { headers[Self.apertureHeader] = aperture }
                if let focus = preview.focus { headers[Self.focusHeader] = focus }
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: preview.jpeg)))
            }
        }
        router.post("/api/library/{id}/portrait") { request, context -> Response in
            let id = try context.parameters.require("id")
            let asked = try await JSONReply.decode(PortraitStudio.Settings.self, from: request, context: context, empty: .init())
            return try await Self.portraitAnswer {
                let settings = try studio.settings(fromRequest: asked.values)
                let copy = try await BlockingWork.run { try studio.saveCopy(id, settings: settings) }
                return try JSONReply.ok(["id": copy, "original": id])
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

    /// The headers a portrait preview says its f-number and focus in.
    static let apertureHeader = HTTPField.Name("X-Mattebox-Aperture")!
    static let focusHeader = HTTPField.Name("X-Mattebox-Focus")!

    /// A portrait answer: library errors as `answer` gives them, a setting or
    /// photo the effect cannot use as 422 with the reason.
    static func portraitAnswer(_ body: () async throws -> Response) async throws -> Response {
        do { return try await body() } catch let error as LibraryError {
            return try answer { throw error }
        } catch let error as PortraitStudio.RefusedSetting {
            return try JSONReply.error(.badRequest, error.description)
        } catch {
            return try JSONReply.error(.unprocessableContent, "\(error)")
        }
    }

    /// A library answer, with its errors as JSON: 404 for what is not there, 409 for a name clash.
    static func answer(_ body: () throws -> Response) throws -> Response {
        do { return try body() } catch let error as LibraryError {
            switch error {
            case .notFound, .noAuxiliary, .noMovie: return try JSONReply.error(.notFound, error.description)
            case .conflict: return try JSONReply.error(.conflict, error.description)
            case .unreadable: return try JSONReply.error(.unprocessableContent, error.description)
            }
        }
    }
}
