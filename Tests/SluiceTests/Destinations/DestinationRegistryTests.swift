import Foundation
import Testing
@testable import Sluice

/// A provider is one folder under `Destinations/` and one line in the
/// registry, which gives its encoder and its delivery (`sluice send`):
/// nothing else in the library or in SluiceSend names it.
@Suite struct DestinationRegistryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources").path

    /// The library's files (paths under `Sources/Sluice`) and `sluice send`'s (under `SluiceSend/`).
    private func swiftFiles() -> [(path: String, text: String)] {
        ["Sluice", "SluiceSend"].flatMap { target -> [(path: String, text: String)] in
            let directory = Self.root + "/" + target
            let enumerator = FileManager.default.enumerator(atPath: directory)!
            return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { path in
                (target == "Sluice" ? path : target + "/" + path,
                 (try? String(contentsOfFile: directory + "/" + path, encoding: .utf8)) ?? "")
            }
        }
    }

    /// A `send:` block for `type` in `region`, with the keys its provider needs besides the credentials.
    private func settings(for type: DestinationType, region: String) -> SendSettings {
        var settings = SendSettings(credentials: .environment("X"), region: region)
        if let first = type.send?.oneOf.first { settings.options[first] = "G-TEST" }
        return settings
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

    @Test func aTypeThatTakesASendBlockHasADeliveryAndOnlySuchATypeHasOne() {
        for type in DestinationRegistry.types {
            #expect((type.send != nil) == (type.delivery != nil), "\(type.name): send and delivery disagree")
        }
        #expect(DestinationRegistry.types.filter { $0.delivery != nil }.map(\.name).sorted()
            == ["adjust", "amplitude", "ga4", "mixpanel", "segment"])
    }

    @Test func everyDeliveryBuildsItsEventsAPIInEveryRegionItsSendBlockTakes() throws {
        for type in DestinationRegistry.types {
            guard let support = type.send, let delivery = type.delivery else { continue }
            var urls: Set<String> = []
            for region in support.regions {
                let api = try delivery.events(settings(for: type, region: region), "secret-value", false).get()
                #expect(api.maxRecords > 0 && api.maxBytes > 0, "\(type.name)")
                let url = api.url(endpoint: nil)
                #expect(url.hasPrefix("https://"), "\(type.name) \(region): \(url)")
                urls.insert(url)
                #expect(api.url(endpoint: "http://127.0.0.1:9/x").hasPrefix("http://127.0.0.1:9/x"), "\(type.name)")
            }
            // Each region its own endpoint.
            #expect(urls.count == support.regions.count, "\(type.name): \(urls.sorted())")
        }
    }

    @Test func theTypesValidateChecksComeFromTheRegistryAndPostToAnotherEndpoint() throws {
        #expect(DestinationRegistry.validating == ["ga4"])
        for name in DestinationRegistry.validating {
            let type = try #require(DestinationRegistry.type(named: name))
            let delivery = try #require(type.delivery)
            let region = try #require(type.send?.regions.first)
            let sending = try delivery.events(settings(for: type, region: region), "secret-value", false).get()
            let checking = try delivery.events(settings(for: type, region: region), "secret-value", true).get()
            #expect(sending.url(endpoint: nil) != checking.url(endpoint: nil))
        }
    }

    @Test func everySideOutputOfASendableTypeHasAnAPIAndNoOtherKindIsNamed() {
        var covered: [String] = []
        for type in DestinationRegistry.types {
            let kinds = type.sideOutputs.map(\.name)
            guard let delivery = type.delivery, let region = type.send?.regions.first else {
                #expect(kinds.isEmpty, "\(type.name) writes side outputs sluice send cannot deliver")
                continue
            }
            #expect(Set(delivery.sideOutputs.keys) == Set(kinds), "\(type.name): \(delivery.sideOutputs.keys.sorted()) vs \(kinds)")
            for kind in kinds {
                guard let make = delivery.sideOutputs[kind] else { continue }
                let api = make(settings(for: type, region: region), "secret-value")
                #expect(api.url(endpoint: nil).hasPrefix("https://"), "\(type.name).\(kind)")
                #expect(api.maxRecords > 0 && api.maxBytes > 0)
                covered.append(SideOutputKind.outputName(destination: type.name, kind: kind))
            }
        }
        #expect(covered.sorted() == ["amplitude.groups", "amplitude.user_mappings", "mixpanel.groups", "mixpanel.profiles"])
    }
}
