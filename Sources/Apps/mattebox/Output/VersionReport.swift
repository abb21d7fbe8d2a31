import CMatteboxPluginABI
import MatteboxHEIF
import MatteboxImageIO
import MatteboxImageOps
import MatteboxRuntime
import MatteboxVision

/// What `mattebox --version` prints: Mattebox, the plugin ABI it hosts, and
/// the libraries that do the work, as ffmpeg and vips list theirs.
enum VersionReport {
    static var text: String {
        """
        mattebox \(MatteboxVersion.current)
        plugin ABI \(MBX_ABI_MAJOR).\(MBX_ABI_MINOR)
        libvips \(ImageLibraries.libvipsVersion)
        libheif \(HEIFInspector.libheifVersion)
        OpenCV \(VisionLibrary.openCVVersion)
        libv4l2 (libv4l2.so.0; it reports no version of its own)
        """
    }
}
