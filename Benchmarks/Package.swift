// swift-tools-version:6.1
// Micro-benchmarks of Sluice's hot parts, with ordo-one/benchmark:
//   cd Benchmarks && swift package benchmark
// A package of its own, so the main package's build and `swift test` never
// compile the benchmark framework.
import PackageDescription

let package = Package(
    name: "SluiceBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Sluice", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "SluiceBenchmarks",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceJSON", package: "Sluice"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "SluiceBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v5]
)
