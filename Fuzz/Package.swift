// swift-tools-version:6.1
// libFuzzer targets for Sluice's hostile-input surface: the JSON parser and
// the line reader. A package of its own so the main package's `swift build`
// and `swift test` never see the fuzzer flags. Build and run with scripts/fuzz.
//
// Each target is a Swift library that defines `LLVMFuzzerTestOneInput` plus a
// C executable that links it: libFuzzer supplies `main()`, which a Swift
// executable target cannot leave to it (SwiftPM renames a Swift target's main).
import PackageDescription

let package = Package(
    name: "SluiceFuzz",
    products: [
        .executable(name: "fuzz-json", targets: ["fuzz-json"]),
        .executable(name: "fuzz-lines", targets: ["fuzz-lines"]),
    ],
    dependencies: [
        .package(name: "Sluice", path: ".."),
    ],
    targets: [
        .target(name: "FuzzJSON", dependencies: [.product(name: "Sluice", package: "Sluice"),
                                                .product(name: "SluiceJSON", package: "Sluice")]),
        .target(name: "FuzzLines", dependencies: [.product(name: "Sluice", package: "Sluice")]),
        .executableTarget(name: "fuzz-json", dependencies: ["FuzzJSON"]),
        .executableTarget(name: "fuzz-lines", dependencies: ["FuzzLines"]),
    ],
    swiftLanguageModes: [.v5]
)
