// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "sluice", targets: ["sluice"]),
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceJSON", targets: ["SluiceJSON"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // HMAC-SHA-256 for the privacy stage's pseudonyms.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // `sluice send`'s HTTP client (SluiceSend only); swift-nio comes with it.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The provider emulator of the tests (already a dependency of async-http-client).
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        // `sluice serve --tls-cert/--tls-key` (already a dependency of async-http-client).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // zlib, linked directly: `apt-get install libz-dev`.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["libz-dev"])]
        ),
        // libdeflate (Debian's libdeflate-dev, 1.14 or later): the file outputs'
        // DEFLATE, whole buffers at a time (`apt-get install libdeflate-dev`).
        .systemLibrary(
            name: "CLibDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        // The signal handler: async-signal-safe C that only counts and writes to a pipe.
        .target(name: "CSignalPipe"),
        // Renaming without replacing (renameat2 RENAME_NOREPLACE), which Swift's Glibc does not export.
        .target(name: "CRename"),
        // gzip's CRC-32: PCLMULQDQ folding on x86-64, zlib's crc32_z elsewhere and for the tail.
        .target(name: "CCRC32", linkerSettings: [.linkedLibrary("z")]),
        // SHA-256's compression function (SHA-NI on x86-64, portable C elsewhere): the
        // privacy stage's HMAC runs on it with its key blocks hashed once.
        .target(name: "CSHA256"),
        // The JSON parser's first stage: each string's end found 64 bytes at a
        // time (AVX2 or SSE2 on x86-64, chosen at run time; portable C elsewhere).
        .target(name: "CJSONScan"),
        // JSON on bytes: the parser and its tape, edits and splices, the
        // writer, string and number text, and the output buffer. The tape is
        // internal; the rest of Sluice reads documents through node indexes.
        // The small accessors and the generic writers (`ByteSink` and what
        // writes into one) are `@inlinable`, so they specialize into the stages
        // and encoders as they would inside one module: no unsafe flags, and
        // the package can be a dependency (without them the reading thread
        // runs 40% more instructions; `UnsafeCodeTests` keeps flags out).
        .target(
            name: "SluiceJSON",
            dependencies: ["CJSONScan"]
        ),
        .target(
            name: "Sluice",
            dependencies: [
                "SluiceJSON",
                "CZlib",
                "CLibDeflate",
                "CSignalPipe",
                "CCRC32",
                "CRename",
                "CSHA256",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // `sluice send`: the finished files to each provider's API, with a ledger
        // of what was acknowledged. On NIO through AsyncHTTPClient.
        .target(
            name: "SluiceSend",
            dependencies: [
                "Sluice",
                "SluiceJSON",
                "CZlib",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `sluice serve`: Segment's HTTP Tracking API on SwiftNIO's HTTP/1.1
        // server, the journal, and the pipeline run over it in epochs.
        .target(
            name: "SluiceServe",
            dependencies: [
                "Sluice",
                "SluiceJSON",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "sluice",
            dependencies: [
                "Sluice",
                "SluiceSend",
                "SluiceServe",
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
        // The provider emulator `sluice send` is tested against: loopback HTTP on NIOHTTP1.
        .target(
            name: "ProviderEmulator",
            dependencies: [
                "SluiceTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/ProviderEmulator"
        ),
        .testTarget(
            name: "SluiceJSONTests",
            // Sluice for its event generator: the differential tests parse generated events.
            dependencies: ["SluiceJSON", "CJSONScan", "Sluice", "SluiceTestSupport"]
        ),
        .testTarget(
            name: "SluiceTests",
            dependencies: ["Sluice", "SluiceJSON", "SluiceTestSupport", "CCRC32", "CSHA256", "CZlib", .product(name: "Logging", package: "swift-log"),
                           .product(name: "Crypto", package: "swift-crypto")],
            // Read from the source tree by PrivacyCorpusTests, not bundled.
            exclude: ["Stages/Privacy/Corpus"]
        ),
        .testTarget(
            name: "SluiceCLITests",
            dependencies: ["Sluice", "SluiceJSON", "SluiceTestSupport", "ProviderEmulator", "sluice"],
            // The catalog generators' golden plans and files, and serve's test
            // certificate, read from the source tree.
            exclude: ["Catalog/Golden", "TLS"]
        ),
        .testTarget(
            name: "SluiceServeTests",
            dependencies: ["SluiceServe", "Sluice", "SluiceJSON", "SluiceTestSupport"]
        ),
        .testTarget(
            name: "SluiceSendTests",
            dependencies: ["SluiceSend", "Sluice", "SluiceTestSupport", "ProviderEmulator"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
