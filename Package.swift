// swift-tools-version:6.1
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
        .library(name: "MatteboxPortraitEffect", type: .dynamic, targets: ["MatteboxPortraitEffect"]),
        // OpenCV behind the vision C API, loaded by the host on demand.
        .library(name: "MatteboxCVision", type: .dynamic, targets: ["CVision"]),
        // Sample third-party plugins: one in plain C, one in Swift.
        .library(name: "MatteboxSampleInvert", type: .dynamic, targets: ["MatteboxSampleInvert"]),
        .library(name: "MatteboxSampleGrayscale", type: .dynamic, targets: ["MatteboxSampleGrayscale"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"4.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        // The plugin ABI: one C header shared by the host and every plugin.
        .target(name: "CMatteboxPluginABI", path: "Sources/PluginInterface/CMatteboxPluginABI", exclude: ["README.md"]),
        .systemLibrary(
            name: "CVips", path: "Sources/Formats/CVips", pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]),
        .target(name: "CVipsShim", dependencies: ["CVips"], path: "Sources/Formats/CVipsShim", exclude: ["README.md"]),
        .systemLibrary(
            name: "CHeif", path: "Sources/Formats/CHeif", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),
        .target(name: "CHeifShim", dependencies: ["CHeif"], path: "Sources/Formats/CHeifShim", exclude: ["README.md"]),
        // libjpeg-turbo's TurboJPEG API: lossless turns and mirrors of JPEGs (what jpegtran does).
        .systemLibrary(
            name: "CTurboJPEG", path: "Sources/Formats/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        // OpenCV (C++) behind a small C API (the header is CVisionAPI's): linked into the
        // vision plugins, and built as libMatteboxCVision.so, which the host loads only when
        // a command needs stereo or calibration (CVisionLoader), so `mattebox` starts fast.
        .target(name: "CVisionAPI", path: "Sources/Vision/CVisionAPI", exclude: ["README.md"]),
        .target(
            name: "CVision",
            dependencies: ["CVisionAPI"], path: "Sources/Vision/CVision",
            exclude: ["README.md"],
            // Optimised in every configuration: the tests run the real vision code on 12 MP photos.
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4", "-O2"])],
            linkerSettings: ["opencv_core", "opencv_imgproc", "opencv_calib3d", "opencv_objdetect", "opencv_dnn"].map { .linkedLibrary($0) }),
        // Image files through libvips (the portrait effect's background image), already in every
        // process that loads the plugin; OpenCV's codecs would bring GDAL, GDCM and a hundred
        // more libraries, 27 MiB and 100 ms more to each.
        .target(name: "CImageFile", dependencies: ["CVisionAPI", "CVips", "CVipsShim"], path: "Sources/Vision/CImageFile", exclude: ["README.md"]),

        .target(name: "CVisionLoader", dependencies: ["CVisionAPI"], path: "Sources/Vision/CVisionLoader", exclude: ["README.md"], linkerSettings: [.linkedLibrary("dl")]),

        // FFmpeg (libavformat, libavcodec, libswscale) behind a small C API: movies from camera frames.
        .target(
            name: "CMovieShim", path: "Sources/Formats/CMovieShim",
            exclude: ["README.md"], linkerSettings: ["avformat", "avcodec", "avutil", "swscale"].map { .linkedLibrary($0) }),

        // libv4l2 and libv4lconvert behind non-variadic C functions and constants.
        .target(name: "CV4L2", path: "Sources/Capture/CV4L2", exclude: ["README.md"], linkerSettings: [.linkedLibrary("v4l2"), .linkedLibrary("v4lconvert")]),

        // Leaves: what every process needs (errors, logging, files, child processes),
        // and the orientation math host and plugins share without linking each other.
        .target(
            name: "MatteboxRuntime",
            dependencies: [.product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto")], path: "Sources/Base/MatteboxRuntime", exclude: ["README.md"]),
        .target(name: "MatteboxGeometry", path: "Sources/Base/MatteboxGeometry", exclude: ["README.md"]),
        // The machine around the work: thermal zones, cooling devices, CPU pressure.
        .target(name: "MatteboxPressure", dependencies: ["MatteboxRuntime"], path: "Sources/Base/MatteboxPressure", exclude: ["README.md"]),
        // Neural models from package registries: pinned, converted for cv::dnn, installed with their licences.
        .target(
            name: "MatteboxModels", dependencies: ["MatteboxRuntime"], path: "Sources/Vision/MatteboxModels", exclude: ["README.md", "Assets"],
            plugins: ["EmbedFilesPlugin"]),
        // The model: Photo, images, roles, EXIF, metadata.
        .target(name: "MatteboxCore", dependencies: ["MatteboxGeometry"], path: "Sources/Base/MatteboxCore", exclude: ["README.md"]),
        // HEIF: the ISOBMFF box layer (boxes, items, properties, references, layout),
        // and above it photos with their auxiliary images, HEVC and AV1 through libheif.
        .target(name: "MatteboxISOBMFF", path: "Sources/Formats/MatteboxISOBMFF", exclude: ["README.md"]),
        // The syntaxes metadata is stored in: XMP as RDF/XML, JPEG marker segments.
        .target(name: "MatteboxMetadata", dependencies: ["MatteboxRuntime"], path: "Sources/Formats/MatteboxMetadata", exclude: ["README.md"]),
        .target(
            name: "MatteboxHEIF", dependencies: ["MatteboxISOBMFF", "MatteboxCore", "MatteboxRuntime", "MatteboxMetadata", "CHeif", "CHeifShim"], path: "Sources/Formats/MatteboxHEIF", exclude: ["README.md"]),
        // What is done to pixels, through libvips: turns, mirrors, crops, scaling, contact sheets.
        .target(name: "MatteboxImageOps", dependencies: ["MatteboxCore", "MatteboxRuntime", "CVipsShim"], path: "Sources/Formats/MatteboxImageOps", exclude: ["README.md"]),
        .target(
            name: "MatteboxImageIO",
            dependencies: [
                "MatteboxImageOps", "MatteboxCore", "MatteboxRuntime", "MatteboxISOBMFF", "MatteboxHEIF", "MatteboxMetadata", "CVipsShim",
                "CTurboJPEG",
            ], path: "Sources/Formats/MatteboxImageIO", exclude: ["README.md"]),
        .target(
            name: "MatteboxPluginHost",
            dependencies: ["MatteboxCore", "MatteboxRuntime", "CMatteboxPluginABI"], path: "Sources/PluginInterface/MatteboxPluginHost", exclude: ["README.md"]),
        .target(
            name: "MatteboxPipeline",
            dependencies: [
                "MatteboxImageOps",
                "MatteboxCore", "MatteboxRuntime", "MatteboxImageIO", "MatteboxHEIF", "MatteboxPluginHost", "MatteboxPairedMedia", "Yams",
            ], path: "Sources/Processing/MatteboxPipeline", exclude: ["README.md"]),
        // Batches: files to worker processes (each its own runner and writer), shards, resume, reports, the inference process.
        .target(
            name: "MatteboxBatch",
            dependencies: [
                "MatteboxPipeline", "MatteboxPluginHost", "MatteboxPairedMedia", "MatteboxImageIO", "MatteboxHEIF", "MatteboxPressure",
                "MatteboxVision", "MatteboxCore", "MatteboxRuntime",
            ], path: "Sources/Processing/MatteboxBatch", exclude: ["README.md"]),
        .target(name: "MatteboxPluginSDK", dependencies: ["CMatteboxPluginABI", "MatteboxGeometry"], path: "Sources/PluginInterface/MatteboxPluginSDK", exclude: ["README.md"]),
        .target(name: "MatteboxVision", dependencies: ["MatteboxCore", "MatteboxRuntime", "CVisionAPI", "CVisionLoader"], path: "Sources/Vision/MatteboxVision", exclude: ["README.md"]),
        // Sources of photos: cameras (V4L2 real, emulated, replay) and the capture session.
        .target(
            name: "MatteboxCapture",
            dependencies: ["MatteboxCore", "MatteboxRuntime", "MatteboxPressure", "CV4L2", "Yams"], path: "Sources/Capture/MatteboxCapture", exclude: ["README.md"]),
        // Movies: camera frames to H.264/HEVC in MP4 or MOV (FFmpeg), Live Photo movies and Motion Photos.
        .target(name: "MatteboxMovie", dependencies: ["MatteboxRuntime", "MatteboxISOBMFF", "CMovieShim"], path: "Sources/Formats/MatteboxMovie", exclude: ["README.md"]),
        // Paired media: a still and what pairs with it (a Live Photo's movie, a Motion Photo's
        // embedded movie, sidecar images by name): pairing, identifiers, building, inspecting.
        .target(
            name: "MatteboxPairedMedia",
            dependencies: [
                "MatteboxCore", "MatteboxRuntime", "MatteboxISOBMFF", "MatteboxMetadata", "MatteboxMovie", "MatteboxHEIF", "MatteboxImageIO",
            ], path: "Sources/Formats/MatteboxPairedMedia", exclude: ["README.md"]),
        // Composition: a capture session's photos through the pipeline runner to the writer.
        .target(
            name: "MatteboxCaptureService",
            dependencies: [
                "MatteboxImageOps",
                "MatteboxCapture", "MatteboxPipeline", "MatteboxPluginHost", "MatteboxPressure", "MatteboxCore",
                "MatteboxRuntime", "MatteboxMovie", "MatteboxPairedMedia", "MatteboxHEIF", "MatteboxImageIO",
            ], path: "Sources/Capture/MatteboxCaptureService", exclude: ["README.md"]),
        // The photo library: one folder's photos and movies, their index, thumbnails, overlays and trash.
        .target(
            name: "MatteboxLibrary",
            dependencies: ["MatteboxImageOps", "MatteboxPairedMedia", "MatteboxImageIO", "MatteboxHEIF", "MatteboxMovie", "MatteboxCore", "MatteboxRuntime"], path: "Sources/Apps/MatteboxLibrary", exclude: ["README.md"]),
        // The camera app (`mattebox serve`): HTTP on Hummingbird over a capture session and a library folder.
        .target(
            name: "MatteboxServer",
            dependencies: [
                "MatteboxImageOps",
                "MatteboxCaptureService", "MatteboxCapture", "MatteboxPipeline", "MatteboxPluginHost", "MatteboxLibrary",
                "MatteboxImageIO", "MatteboxCore", "MatteboxRuntime", "MatteboxPressure",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ], path: "Sources/Apps/MatteboxServer",
            // The page's HTML, CSS and JavaScript are files there, embedded at build time.
            exclude: ["README.md", "Page/Assets"],
            plugins: ["EmbedFilesPlugin"]),
        // Build tools: files embedded into a module as Swift strings.
        .executableTarget(name: "embed-files", path: "BuildTools/EmbedFiles"),
        .plugin(name: "EmbedFilesPlugin", capability: .buildTool(), dependencies: ["embed-files"], path: "BuildTools/EmbedFilesPlugin"),
        .target(
            name: "MatteboxEvaluation",
            dependencies: ["MatteboxCore", "MatteboxRuntime", "MatteboxImageIO", "MatteboxPluginHost", "MatteboxPipeline", "MatteboxVision"], path: "Sources/Processing/MatteboxEvaluation", exclude: ["README.md"]),
        .target(name: "MatteboxVisionPluginKit", dependencies: ["MatteboxPluginSDK", "CVisionAPI", "CVision"], path: "Sources/Vision/MatteboxVisionPluginKit", exclude: ["README.md"]),
        .executableTarget(
            name: "mattebox",
            dependencies: [
                "MatteboxImageOps",
                "MatteboxCore", "MatteboxRuntime", "MatteboxPressure", "MatteboxImageIO", "MatteboxHEIF",
                "MatteboxPluginHost", "MatteboxPipeline", "MatteboxBatch", "MatteboxVision", "MatteboxEvaluation", "MatteboxCapture",
                "MatteboxCaptureService", "MatteboxModels", "MatteboxServer", "MatteboxMovie", "MatteboxPairedMedia", "CMatteboxPluginABI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], path: "Sources/Apps/mattebox",
            // The `plugins new` templates are files there, embedded at build time.
            exclude: ["README.md", "Templates/Assets"],
            plugins: ["EmbedFilesPlugin"]),

        .target(name: "MatteboxOrientation", dependencies: ["MatteboxPluginSDK"], path: "Plugins/Orientation", exclude: ["README.md"]),
        .target(name: "MatteboxMirroring", dependencies: ["MatteboxPluginSDK"], path: "Plugins/Mirroring", exclude: ["README.md"]),
        .target(name: "MatteboxHEIFPackaging", dependencies: ["MatteboxPluginSDK"], path: "Plugins/HEIF", exclude: ["README.md"]),
        .target(name: "MatteboxDepth", dependencies: ["MatteboxPluginSDK", "MatteboxVisionPluginKit"], path: "Plugins/Depth", exclude: ["README.md"]),
        .target(
            name: "MatteboxPortraitMatte", dependencies: ["MatteboxPluginSDK", "MatteboxVisionPluginKit"], path: "Plugins/PortraitMatte", exclude: ["README.md"]),
        .target(
            name: "MatteboxSemanticMattes", dependencies: ["MatteboxPluginSDK", "MatteboxVisionPluginKit"], path: "Plugins/SemanticMattes", exclude: ["README.md"]),
        .target(
            name: "MatteboxPortraitEffect", dependencies: ["MatteboxPluginSDK", "MatteboxVisionPluginKit", "CImageFile"], path: "Plugins/PortraitEffect",
            exclude: ["README.md"]),
        .target(
            name: "MatteboxSampleInvert", dependencies: ["CMatteboxPluginABI"], path: "Samples/plugins/c-invert",
            publicHeadersPath: "."),
        .target(
            name: "MatteboxSampleGrayscale", dependencies: ["MatteboxPluginSDK"],
            path: "Samples/plugins/swift-grayscale"),

        // Fuzz targets for every parser Mattebox wrote (make fuzz; replayed by FuzzRegressionTests).
        .target(
            name: "MatteboxFuzzTargets",
            dependencies: [
                "MatteboxCore", "MatteboxISOBMFF", "MatteboxHEIF", "MatteboxImageIO", "MatteboxMovie", "MatteboxPipeline",
                "MatteboxServer", "MatteboxVision", "MatteboxMetadata",
            ],
            path: "Tests/Fuzz/Targets"),
        .target(name: "CFuzzDriver", path: "Tests/Fuzz/CFuzzDriver"),
        .executableTarget(name: "mattebox-fuzz", dependencies: ["MatteboxFuzzTargets", "CFuzzDriver"], path: "Tests/Fuzz/Driver"),

        .target(
            name: "MatteboxTestSupport",
            dependencies: ["MatteboxCore", "MatteboxRuntime", "MatteboxImageIO", "MatteboxPluginHost", "MatteboxPipeline"],
            path: "Tests/MatteboxTestSupport"),
        .testTarget(name: "MatteboxRuntimeTests", dependencies: ["MatteboxRuntime", "MatteboxTestSupport"]),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["MatteboxFuzzTargets", "MatteboxTestSupport"]),
        .testTarget(name: "MatteboxGeometryTests", dependencies: ["MatteboxGeometry"]),
        .testTarget(name: "MatteboxPressureTests", dependencies: ["MatteboxPressure", "MatteboxTestSupport"]),
        .testTarget(name: "MatteboxCoreTests", dependencies: ["MatteboxCore"]),
        .testTarget(name: "MatteboxISOBMFFTests", dependencies: ["MatteboxISOBMFF"]),
        .testTarget(name: "MatteboxMetadataTests", dependencies: ["MatteboxMetadata"]),
        .testTarget(name: "MatteboxMovieTests", dependencies: ["MatteboxMovie", "MatteboxPairedMedia", "MatteboxRuntime", "MatteboxTestSupport"]),
        .testTarget(name: "MatteboxVisionTests", dependencies: ["MatteboxVision", "MatteboxCore", "MatteboxRuntime", "MatteboxTestSupport"]),
        .testTarget(name: "MatteboxPluginSDKTests", dependencies: ["MatteboxPluginSDK", "MatteboxCore"]),
        .testTarget(name: "MatteboxVisionPluginKitTests", dependencies: ["MatteboxVisionPluginKit", "MatteboxPluginSDK"]),
        .testTarget(
            name: "MatteboxCaptureServiceTests",
            dependencies: [
                "MatteboxCaptureService", "MatteboxCapture", "MatteboxPipeline", "MatteboxImageIO", "MatteboxCore", "MatteboxRuntime",
                "MatteboxTestSupport",
            ]),
        .testTarget(
            name: "MatteboxHEIFTests",
            dependencies: ["MatteboxImageOps", "MatteboxHEIF", "MatteboxISOBMFF", "MatteboxCore", "MatteboxRuntime", "MatteboxTestSupport"]),
        .testTarget(
            name: "MatteboxImageIOTests",
            dependencies: [
                "MatteboxImageOps", "MatteboxImageIO", "MatteboxHEIF", "MatteboxISOBMFF", "MatteboxMetadata", "MatteboxCore", "MatteboxRuntime",
                "MatteboxTestSupport", "CHeif",
            ]),
        .testTarget(
            name: "MatteboxPluginHostTests",
            dependencies: ["MatteboxPluginHost", "MatteboxPipeline", "MatteboxImageIO", "MatteboxCore", "MatteboxRuntime", "MatteboxTestSupport"]),
        .testTarget(
            name: "MatteboxPipelineTests",
            dependencies: [
                "MatteboxPipeline", "MatteboxBatch", "MatteboxCore", "MatteboxRuntime", "MatteboxPluginHost", "MatteboxTestSupport",
                "MatteboxImageIO",
            ]),
        .testTarget(
            name: "MatteboxBatchTests",
            dependencies: ["MatteboxBatch", "MatteboxPipeline", "MatteboxRuntime", "MatteboxTestSupport"]),
        .testTarget(
            name: "PluginsTests",
            dependencies: [
                "MatteboxImageOps",
                "MatteboxPipeline", "MatteboxCore", "MatteboxImageIO", "MatteboxPluginHost", "MatteboxRuntime",
                "MatteboxTestSupport",
            ]),
        .testTarget(
            name: "MatteboxEvaluationTests",
            dependencies: [
                "MatteboxImageOps",
                "MatteboxEvaluation", "MatteboxVision", "MatteboxCore", "MatteboxImageIO", "MatteboxPipeline",
                "MatteboxPluginHost", "MatteboxTestSupport",
            ]),
        .testTarget(
            name: "MatteboxCaptureTests",
            dependencies: [
                "MatteboxImageOps",
                "MatteboxCapture", "MatteboxCaptureService", "MatteboxPressure", "MatteboxCore", "MatteboxRuntime",
                "MatteboxImageIO", "MatteboxPipeline", "MatteboxTestSupport", "CV4L2", "MatteboxMovie",
            ]),
        .testTarget(
            name: "MatteboxPairedMediaTests",
            dependencies: ["MatteboxPairedMedia", "MatteboxImageIO", "MatteboxMovie", "MatteboxMetadata", "MatteboxHEIF", "MatteboxCore", "MatteboxTestSupport"]),
        .testTarget(
            name: "MatteboxServerTests",
            dependencies: [
                "MatteboxServer", "MatteboxLibrary", "MatteboxPairedMedia", "MatteboxMovie", "MatteboxPipeline", "MatteboxPluginHost",
                "MatteboxTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(
            name: "EndToEndTests", dependencies: ["MatteboxCore", "MatteboxRuntime", "MatteboxImageIO", "MatteboxISOBMFF", "MatteboxMetadata", "MatteboxTestSupport"]),
    ],
    cxxLanguageStandard: .cxx17
)
