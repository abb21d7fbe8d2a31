// swift-tools-version:6.0
// Mattebox: capture photos with auxiliary mattes and post-process them through
// dynamically loaded processor plugins. See README.md for the tour.
import PackageDescription

let package = Package(
    name: "Mattebox",
    products: [
        .executable(name: "mattebox", targets: ["mattebox"]),
        .library(name: "MatteboxPluginSDK", targets: ["MatteboxPluginSDK"]),
        // Built-in processor plugins, each its own shared object.
        .library(name: "MatteboxOrientation", type: .dynamic, targets: ["MatteboxOrientation"]),
        .library(name: "MatteboxMirroring", type: .dynamic, targets: ["MatteboxMirroring"]),
        .library(name: "MatteboxHEIFPackaging", type: .dynamic, targets: ["MatteboxHEIFPackaging"]),
        .library(name: "MatteboxDepth", type: .dynamic, targets: ["MatteboxDepth"]),
        .library(name: "MatteboxPortraitMatte", type: .dynamic, targets: ["MatteboxPortraitMatte"]),
        .library(name: "MatteboxSemanticMattes", type: .dynamic, targets: ["MatteboxSemanticMattes"]),
        // Sample third-party plugins: one in plain C, one in Swift.
        .library(name: "MatteboxSampleInvert", type: .dynamic, targets: ["MatteboxSampleInvert"]),
        .library(name: "MatteboxSampleGrayscale", type: .dynamic, targets: ["MatteboxSampleGrayscale"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"4.0.0"),
    ],
    targets: [
        // The plugin ABI: one C header shared by the host and every plugin.
        .target(name: "CMatteboxPluginABI"),
        .systemLibrary(
            name: "CVips", pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]),
        .target(name: "CVipsShim", dependencies: ["CVips"]),
        .systemLibrary(
            name: "CHeif", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),
        .target(name: "CHeifShim", dependencies: ["CHeif"]),
        // OpenCV (C++) behind a small C API, for the host and the vision plugins.
        .target(
            name: "CVision",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
            linkerSettings: ["opencv_core", "opencv_imgproc", "opencv_calib3d", "opencv_objdetect", "opencv_ximgproc", "opencv_dnn"]
                .map { .linkedLibrary($0) }),

        // libv4l2 and libv4lconvert behind non-variadic C functions and constants.
        .target(name: "CV4L2", linkerSettings: [.linkedLibrary("v4l2"), .linkedLibrary("v4lconvert")]),

        .target(name: "MatteboxCore"),
        .target(name: "MatteboxHEIF", dependencies: ["MatteboxCore", "CHeif", "CHeifShim"]),
        .target(name: "MatteboxImageIO", dependencies: ["MatteboxCore", "MatteboxHEIF", "CVipsShim"]),
        .target(
            name: "MatteboxPluginHost",
            dependencies: ["MatteboxCore", "MatteboxImageIO", "CMatteboxPluginABI"]),
        .target(
            name: "MatteboxPipeline",
            dependencies: [
                "MatteboxCore", "MatteboxImageIO", "MatteboxHEIF", "MatteboxPluginHost", "Yams",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(name: "MatteboxPluginSDK", dependencies: ["CMatteboxPluginABI"]),
        .target(name: "MatteboxVision", dependencies: ["MatteboxCore", "CVision"]),
        // Cameras and the machine around them: thermal and CPU pressure.
        .target(
            name: "MatteboxCapture",
            dependencies: ["MatteboxCore", "MatteboxImageIO", "MatteboxPipeline", "MatteboxPluginHost", "CV4L2", "Yams"]),
        .target(
            name: "MatteboxEvaluation",
            dependencies: ["MatteboxCore", "MatteboxImageIO", "MatteboxPluginHost", "MatteboxPipeline", "MatteboxVision"]),
        .target(name: "MatteboxVisionPluginKit", dependencies: ["MatteboxPluginSDK", "CVision"]),
        .executableTarget(
            name: "mattebox",
            dependencies: [
                "MatteboxCore", "MatteboxImageIO", "MatteboxHEIF", "MatteboxPluginHost", "MatteboxPipeline",
                "MatteboxVision", "MatteboxEvaluation", "MatteboxCapture",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        .target(name: "MatteboxOrientation", dependencies: ["MatteboxPluginSDK", "MatteboxCore"], path: "Plugins/Orientation"),
        .target(name: "MatteboxMirroring", dependencies: ["MatteboxPluginSDK", "MatteboxCore"], path: "Plugins/Mirroring"),
        .target(name: "MatteboxHEIFPackaging", dependencies: ["MatteboxPluginSDK"], path: "Plugins/HEIF"),
        .target(name: "MatteboxDepth", dependencies: ["MatteboxPluginSDK", "MatteboxVisionPluginKit"], path: "Plugins/Depth"),
        .target(
            name: "MatteboxPortraitMatte", dependencies: ["MatteboxPluginSDK", "MatteboxVisionPluginKit"], path: "Plugins/PortraitMatte"),
        .target(
            name: "MatteboxSemanticMattes", dependencies: ["MatteboxPluginSDK", "MatteboxVisionPluginKit"], path: "Plugins/SemanticMattes"),
        .target(
            name: "MatteboxSampleInvert", dependencies: ["CMatteboxPluginABI"], path: "Samples/plugins/c-invert",
            publicHeadersPath: "."),
        .target(
            name: "MatteboxSampleGrayscale", dependencies: ["MatteboxPluginSDK"],
            path: "Samples/plugins/swift-grayscale"),

        .target(
            name: "MatteboxTestSupport",
            dependencies: ["MatteboxCore", "MatteboxImageIO", "MatteboxPluginHost", "MatteboxPipeline"],
            path: "Tests/MatteboxTestSupport"),
        .testTarget(name: "MatteboxCoreTests", dependencies: ["MatteboxCore", "MatteboxTestSupport"]),
        .testTarget(
            name: "MatteboxHEIFTests",
            dependencies: ["MatteboxHEIF", "MatteboxImageIO", "MatteboxTestSupport"]),
        .testTarget(
            name: "MatteboxImageIOTests",
            dependencies: ["MatteboxImageIO", "MatteboxTestSupport"]),
        .testTarget(
            name: "MatteboxPluginHostTests",
            dependencies: ["MatteboxPluginHost", "MatteboxTestSupport"]),
        .testTarget(
            name: "MatteboxPipelineTests",
            dependencies: ["MatteboxPipeline", "MatteboxTestSupport"]),
        .testTarget(
            name: "PluginsTests",
            dependencies: ["MatteboxPipeline", "MatteboxTestSupport"]),
        .testTarget(
            name: "MatteboxEvaluationTests",
            dependencies: [
                "MatteboxEvaluation", "MatteboxVision", "MatteboxImageIO", "MatteboxPipeline", "MatteboxPluginHost",
                "MatteboxTestSupport",
            ]),
        .testTarget(
            name: "MatteboxCaptureTests",
            dependencies: ["MatteboxCapture", "MatteboxImageIO", "MatteboxPipeline", "MatteboxPluginHost", "MatteboxTestSupport", "CV4L2"]),
        .testTarget(name: "EndToEndTests", dependencies: ["MatteboxCore", "MatteboxImageIO", "MatteboxTestSupport"]),
    ],
    cxxLanguageStandard: .cxx17
)
