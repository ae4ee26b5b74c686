// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "sluice", targets: ["sluice"]),
        .library(name: "Sluice", targets: ["Sluice"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // HMAC-SHA-256 for the privacy stage's pseudonyms.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // zlib, linked directly: `apt-get install libz-dev`.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["libz-dev"])]
        ),
        // The signal handler: async-signal-safe C that only counts and writes to a pipe.
        .target(name: "CSignalPipe"),
        // gzip's CRC-32: PCLMULQDQ folding on x86-64, zlib's crc32_z elsewhere and for the tail.
        .target(name: "CCRC32", linkerSettings: [.linkedLibrary("z")]),
        .target(
            name: "Sluice",
            dependencies: [
                "CZlib",
                "CSignalPipe",
                "CCRC32",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Release builds check exclusive access statically only: the
            // dynamic checks cost about 2% of the reading thread (debug builds,
            // where the tests run, keep them and would catch a violation).
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
        ),
        .executableTarget(
            name: "sluice",
            dependencies: [
                "Sluice",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Helpers both test targets share: temporary directories, gzip on zlib.
        .target(
            name: "SluiceTestSupport",
            dependencies: ["CZlib"],
            path: "Tests/SluiceTestSupport"
        ),
        .testTarget(
            name: "SluiceTests",
            dependencies: ["Sluice", "SluiceTestSupport", "CCRC32", "CZlib", .product(name: "Logging", package: "swift-log"),
                           .product(name: "Crypto", package: "swift-crypto")],
            // Read from the source tree by PrivacyCorpusTests, not bundled.
            exclude: ["Stages/Privacy/Corpus"]
        ),
        .testTarget(
            name: "SluiceCLITests",
            dependencies: ["Sluice", "SluiceTestSupport", "sluice"]
        ),
    ],
    swiftLanguageModes: [.v5]
)
