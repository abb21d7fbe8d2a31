// swift-tools-version:6.0
// {{TITLE}}: a Mattebox processor plugin in Swift, made by `mattebox plugins new`.
// It builds against the Mattebox checkout below (its MatteboxPluginSDK product).
import PackageDescription

let package = Package(
    name: "{{NAME}}",
    products: [.library(name: "{{NAME}}", type: .dynamic, targets: ["{{NAME}}"])],
    dependencies: [.package(path: "{{SDK_PATH}}")],
    targets: [
        .target(name: "{{NAME}}", dependencies: [.product(name: "MatteboxPluginSDK", package: "{{SDK_PACKAGE}}")])
    ]
)
