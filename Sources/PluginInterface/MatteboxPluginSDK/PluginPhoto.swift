/// The photo a processor works on, borrowed for one `process` call: images by
/// role, geometry applied to all of them at once, metadata and logging, with
/// host failures turned into thrown PluginErrors.
public struct PluginPhoto {
    let host: UnsafePointer<mbx_host_api>
    let call: OpaquePointer?
    let handle: OpaquePointer?

    /// The image for a role, or nil when the photo has none.
    public func image(_ role: String) -> PluginImage? {
        var view = mbx_image()
        view.struct_size = UInt32(MemoryLayout<mbx_image>.size)
        guard host.pointee.get_image(handle, role, &view) == MBX_OK else { return nil }
        return PluginImage(view: view)
    }

    /// Creates or replaces an image; its pixels start at zero.
    public func createImage(_ role: String, width: Int, height: Int, channels: Int, format: mbx_sample_format) throws
        -> PluginImage
    {
        var view = mbx_image()
        try check(
            host.pointee.create_image(handle, role, UInt32(width), UInt32(height), UInt32(channels), format, &view),
            "create image \(role)")
        return PluginImage(view: view)
    }

    public func removeImage(_ role: String) throws {
        try check(host.pointee.remove_image(handle, role), "remove image \(role)")
    }

    /// Every role the photo has, primary first.
    public var roles: [String] {
        (0..<host.pointee.image_count(handle)).compactMap { index in
            host.pointee.image_role_at(handle, index).map { String(cString: $0) }
        }
    }

    /// Rotates or mirrors the primary and every auxiliary image together.
    public func transform(_ transform: mbx_transform) throws {
        try check(host.pointee.transform(handle, transform), "transform")
    }

    public func crop(x: Int, y: Int, width: Int, height: Int) throws {
        try check(host.pointee.crop(handle, UInt32(x), UInt32(y), UInt32(width), UInt32(height)), "crop")
    }

    public func int(_ key: String) -> Int64? {
        var value: Int64 = 0
        return host.pointee.get_int(handle, key, &value) == MBX_OK ? value : nil
    }

    public func setInt(_ key: String, _ value: Int64) throws {
        try check(host.pointee.set_int(handle, key, value), "set \(key)")
    }

    public func string(_ key: String) -> String? {
        var value: UnsafePointer<CChar>?
        guard host.pointee.get_string(handle, key, &value) == MBX_OK, let value else { return nil }
        return String(cString: value)
    }

    public func setString(_ key: String, _ value: String) throws {
        try check(host.pointee.set_string(handle, key, value), "set \(key)")
    }

    public func removeMetadata(_ key: String) throws {
        try check(host.pointee.remove_metadata(handle, key), "remove \(key)")
    }

    public func log(_ message: String, level: mbx_log_level = mbx_log_level(MBX_LOG_INFO)) {
        host.pointee.log(call, level, message)
    }

    private func check(_ status: mbx_status, _ what: String) throws {
        // The host keeps its own message for failures of its services.
        guard status == MBX_OK else { throw HostServiceFailure(status: status, what: what) }
    }
}

/// A host service refused; the host already holds the detailed message.
struct HostServiceFailure: Error {
    let status: mbx_status
    let what: String
}

/// A borrowed view of one image's pixels, valid during the current call.
public struct PluginImage {
    public let width: Int
    public let height: Int
    public let channels: Int
    public let format: mbx_sample_format
    public let bytesPerRow: Int
    public let data: UnsafeMutableRawPointer

    init(view: mbx_image) {
        width = Int(view.width)
        height = Int(view.height)
        channels = Int(view.channels)
        format = view.format
        bytesPerRow = Int(view.stride_bytes)
        data = view.data
    }

    /// One row's samples, typed (UInt8 for MBX_SAMPLE_U8, UInt16, Float).
    public func row<Sample>(_ y: Int, as type: Sample.Type) -> UnsafeMutableBufferPointer<Sample> {
        precondition(y >= 0 && y < height, "row \(y) outside 0..<\(height)")
        let start = (data + y * bytesPerRow).bindMemory(to: Sample.self, capacity: width * channels)
        return UnsafeMutableBufferPointer(start: start, count: width * channels)
    }
}
