import Foundation
import Testing
@testable import Sluice

/// A provider is one folder under `Destinations/` and one line in the
/// registry: nothing else in the library names it.
@Suite struct DestinationRegistryTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Sluice").path

    private func swiftFiles() -> [(path: String, text: String)] {
        let enumerator = FileManager.default.enumerator(atPath: Self.sources)!
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { path in
            (path, (try? String(contentsOfFile: Self.sources + "/" + path, encoding: .utf8)) ?? "")
        }
    }

    @Test func everyTypeIsRegisteredOnceAndFoundByName() {
        let names = DestinationRegistry.types.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.sorted() == ["adjust", "amplitude", "ga4", "mixpanel", "ndjson", "segment"])
        for name in names { #expect(DestinationRegistry.type(named: name)?.name == name) }
    }

    @Test(arguments: [("mixpanel", "Mixpanel"), ("amplitude", "Amplitude"), ("ga4", "GA4"), ("adjust", "Adjust"),
                      ("segment", "Segment"), ("ndjson", "NDJSON")])
    func aProviderIsNamedOnlyInItsFolderAndTheRegistry(_ type: String, _ folder: String) {
        let files = swiftFiles()
        #expect(!files.isEmpty)
        #expect(files.contains { $0.path.hasPrefix("Destinations/\(folder)/") })
        for file in files where !file.path.hasPrefix("Destinations/\(folder)/") {
            // Comments may mention providers; code may not (the registry line excepted).
            let code = file.text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            for line in code {
                let mentionsType = line.contains("\(folder)Destination") || line.contains("\"\(type)\"") || line.contains("\(folder)Names")
                if mentionsType {
                    #expect(file.path == "Destinations/Destination.swift" && line.contains("\(folder)Destination.type,"),
                            "\(file.path) names \(type): \(line)")
                }
            }
        }
    }
}
