import CMatteboxPluginABI
import Foundation
import MatteboxCore
import MatteboxRuntime

/// The `mbx_host_api` table every plugin receives: logging, errors, parameters,
/// images by role, photo-wide geometry and metadata, implemented over the Photo
/// model. It is built once and lives for the whole process.
enum HostServices {
    // Unsafe: a C function table built once and never written again.
    nonisolated(unsafe) static let table: UnsafePointer<mbx_host_api> = {
        let table = UnsafeMutablePointer<mbx_host_api>.allocate(capacity: 1)
        table.initialize(to: makeTable())
        return UnsafePointer(table)
    }()

    static let maximumImageBytes = 1 << 31

    private static func makeTable() -> mbx_host_api {
        var api = mbx_host_api()
        api.struct_size = UInt32(MemoryLayout<mbx_host_api>.size)
        api.abi_major = UInt16(MBX_ABI_MAJOR)
        api.abi_minor = UInt16(MBX_ABI_MINOR)
        api.host_version = UnsafePointer(strdup(MatteboxVersion.current)!)
        addCallServices(to: &api)
        addParameterServices(to: &api)
        addImageServices(to: &api)
        addGeometryServices(to: &api)
        addMetadataServices(to: &api)
        return api
    }

    /// Logging and a call's error message.
    private static func addCallServices(to api: inout mbx_host_api) {
        api.log = { call, level, message in
            let plugin = CallContext.from(call)?.pluginID ?? "plugin"
            let level = LogLevel(rawValue: Int(level)) ?? .info
            Log.emit(level, message.map { String(cString: $0) } ?? "", category: plugin)
        }
        api.set_error = { call, message in
            CallContext.from(call)?.errorMessage = message.map { String(cString: $0) }
        }
    }

    /// A plugin's parameters by key, typed as its descriptor declared them.
    private static func addParameterServices(to api: inout mbx_host_api) {
        api.param_bool = { params, key, value in
            HostServices.lookup(params, key) { entry in
                guard case .bool(let flag) = entry else { return nil }
                value?.pointee = flag ? 1 : 0
                return MBX_OK
            }
        }
        api.param_int = { params, key, value in
            HostServices.lookup(params, key) { entry in
                guard case .int(let number) = entry else { return nil }
                value?.pointee = number
                return MBX_OK
            }
        }
        api.param_double = { params, key, value in
            HostServices.lookup(params, key) { entry in
                switch entry {
                case .double(let number): value?.pointee = number
                case .int(let number): value?.pointee = Double(number)
                default: return nil
                }
                return MBX_OK
            }
        }
        api.param_string = { params, key, value in
            guard let context = ParameterContext.from(params) else { return MBX_ERR_INVALID_ARGUMENT }
            return HostServices.lookup(params, key) { entry in
                guard case .string(let text) = entry else { return nil }
                value?.pointee = context.keep(text)
                return MBX_OK
            }
        }
    }

    /// The photo's images: get, create (primary or auxiliary), remove, list by role.
    private static func addImageServices(to api: inout mbx_host_api) {
        api.get_image = { photo, role, view in
            HostServices.withPhoto(photo) { context in
                guard let role, let view else { return MBX_ERR_INVALID_ARGUMENT }
                guard let image = context.photo.image(ImageRole(String(cString: role))) else { return MBX_ERR_NOT_FOUND }
                view.pointee = HostServices.describe(image)
                return MBX_OK
            }
        }
        api.create_image = { photo, role, width, height, channels, format, view in
            HostServices.withPhoto(photo) { context in
                guard let role, let view else { return MBX_ERR_INVALID_ARGUMENT }
                let name = ImageRole(String(cString: role))
                guard name.isValidName else {
                    context.lastServiceError = "create_image: \"\(name)\" is not a role name"
                    return MBX_ERR_INVALID_ARGUMENT
                }
                guard let sample = SampleFormat(rawValue: Int(format)), (1...4).contains(channels),
                    width > 0, height > 0,
                    Int(width) * Int(height) * Int(channels) * sample.bytesPerSample <= HostServices.maximumImageBytes
                else {
                    context.lastServiceError =
                        "create_image: \(width)x\(height)x\(channels) format \(format) is not a valid image"
                    return MBX_ERR_INVALID_ARGUMENT
                }
                let image = PixelImage(width: Int(width), height: Int(height), channels: Int(channels), format: sample)
                if name == .primary {
                    context.photo.primary = image
                } else {
                    context.photo.setAuxiliary(image, for: name)
                }
                view.pointee = HostServices.describe(image)
                return MBX_OK
            }
        }
        api.remove_image = { photo, role in
            HostServices.withPhoto(photo) { context in
                guard let role else { return MBX_ERR_INVALID_ARGUMENT }
                let name = ImageRole(String(cString: role))
                guard name != .primary else {
                    context.lastServiceError = "remove_image: the primary image cannot be removed"
                    return MBX_ERR_INVALID_ARGUMENT
                }
                guard context.photo.auxiliary[name] != nil else { return MBX_ERR_NOT_FOUND }
                context.photo.setAuxiliary(nil, for: name)
                return MBX_OK
            }
        }
        api.image_count = { photo in
            PhotoContext.from(photo).map { UInt32($0.photo.roles.count) } ?? 0
        }
        api.image_role_at = { photo, index in
            guard let context = PhotoContext.from(photo) else { return nil }
            let roles = context.photo.roles
            return Int(index) < roles.count ? context.keep(roles[Int(index)].rawValue) : nil
        }
    }

    /// Turns, mirrors and crops of every image at once, done by the caller's `PhotoServices`.
    private static func addGeometryServices(to api: inout mbx_host_api) {
        api.transform = { photo, transform in
            HostServices.withPhoto(photo) { context in
                guard let operation = GeometryTransform(rawValue: Int(transform)) else {
                    context.lastServiceError = "transform: unknown transform \(transform)"
                    return MBX_ERR_INVALID_ARGUMENT
                }
                do {
                    try context.services.apply(operation, to: &context.photo)
                    return MBX_OK
                } catch {
                    context.lastServiceError = "transform: \(error)"
                    return MBX_ERR_INTERNAL
                }
            }
        }
        api.crop = { photo, x, y, width, height in
            HostServices.withPhoto(photo) { context in
                do {
                    try context.services.crop(&context.photo, x: Int(x), y: Int(y), width: Int(width), height: Int(height))
                    return MBX_OK
                } catch {
                    context.lastServiceError = "crop: \(error)"
                    return MBX_ERR_INVALID_ARGUMENT
                }
            }
        }
    }

    /// The `MBX_META_*` keys, read and written through `MetadataAccess`.
    private static func addMetadataServices(to api: inout mbx_host_api) {
        api.get_int = { photo, key, value in
            HostServices.metadata(photo, key) { context, key in
                value?.pointee = try MetadataAccess.integer(key, of: context.photo)
            }
        }
        api.set_int = { photo, key, value in
            HostServices.metadata(photo, key) { context, key in try MetadataAccess.setInteger(key, value, on: &context.photo) }
        }
        api.get_string = { photo, key, value in
            HostServices.metadata(photo, key) { context, key in
                value?.pointee = context.keep(try MetadataAccess.string(key, of: context.photo))
            }
        }
        api.set_string = { photo, key, value in
            guard let value else { return MBX_ERR_INVALID_ARGUMENT }
            let text = String(cString: value)
            return HostServices.metadata(photo, key) { context, key in
                try MetadataAccess.setString(key, text, on: &context.photo, services: context.services)
            }
        }
        api.remove_metadata = { photo, key in
            HostServices.metadata(photo, key) { context, key in try MetadataAccess.remove(key, from: &context.photo) }
        }
    }

    private static func describe(_ image: PixelImage) -> mbx_image {
        mbx_image(
            struct_size: UInt32(MemoryLayout<mbx_image>.size), width: UInt32(image.width),
            height: UInt32(image.height), channels: UInt32(image.channels),
            format: mbx_sample_format(image.format.rawValue), stride_bytes: UInt32(image.bytesPerRow),
            data: image.data)
    }

    private static func withPhoto(_ pointer: OpaquePointer?, _ body: (PhotoContext) -> mbx_status) -> mbx_status {
        guard let context = PhotoContext.from(pointer) else { return MBX_ERR_INVALID_ARGUMENT }
        return body(context)
    }

    private static func lookup(
        _ params: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ body: (ParameterValue) -> mbx_status?
    ) -> mbx_status {
        guard let context = ParameterContext.from(params), let key else { return MBX_ERR_INVALID_ARGUMENT }
        guard let value = context.values[String(cString: key)] else { return MBX_ERR_NOT_FOUND }
        return body(value) ?? MBX_ERR_INVALID_ARGUMENT
    }

    private static func metadata(
        _ photo: OpaquePointer?, _ key: UnsafePointer<CChar>?,
        _ body: (PhotoContext, String) throws -> Void
    ) -> mbx_status {
        guard let context = PhotoContext.from(photo), let key else { return MBX_ERR_INVALID_ARGUMENT }
        do {
            try body(context, String(cString: key))
            return MBX_OK
        } catch MetadataAccess.Failure.notFound {
            return MBX_ERR_NOT_FOUND
        } catch MetadataAccess.Failure.invalid(let message) {
            context.lastServiceError = message
            return MBX_ERR_INVALID_ARGUMENT
        } catch {
            context.lastServiceError = "\(error)"
            return MBX_ERR_INTERNAL
        }
    }
}
