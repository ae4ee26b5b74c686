import Foundation
@testable import Sluice
import Testing

/// Amplitude's send APIs for the side outputs: `/groupidentify` and `/usermap`, form-encoded.
@Suite struct AmplitudeSendAPITests {
    private let records: [UInt8] = Array("{\"a\":\"x y\"}\n{\"b\":\"é&=+\"}\n".utf8)

    private func sideOutput(_ kind: String, region: String, secret: String) throws -> any ProviderAPI {
        try #require(AmplitudeDestination.type.delivery?.sideOutputs[kind]?(SendSettings(credentials: .environment("X"), region: region),
                                                                            secret))
    }

    @Test func amplitudeGroupsAndMappingsAreFormPostsWithTheKeyToTheirHosts() throws {
        let groups = try sideOutput("groups", region: "eu", secret: "key 1")
        #expect(groups.url(endpoint: nil) == "https://api.eu.amplitude.com/groupidentify")
        #expect(groups.maxRecords == 1024)
        #expect(groups.formEncoded)
        let (headers, body) = groups.request(records: records[...], count: 2, gzipped: nil)
        #expect(headers.contains { $0 == ("Content-Type", "application/x-www-form-urlencoded") })
        var components = URLComponents()
        components.percentEncodedQuery = String(decoding: body, as: UTF8.self)
        let items = components.queryItems ?? []
        #expect(items.map(\.name) == ["api_key", "identification"])
        #expect(items.map(\.value) == ["key 1", "[{\"a\":\"x y\"},{\"b\":\"é&=+\"}]"])
        let mappings = try sideOutput("user_mappings", region: "us", secret: "k")
        #expect(mappings.url(endpoint: nil) == "https://api.amplitude.com/usermap")
        #expect(String(decoding: mappings.request(records: records[...], count: 2, gzipped: nil).body, as: UTF8.self)
            .hasPrefix("api_key=k&mapping=%5B"))
        #expect(mappings.refusesCredentials(status: 400, body: Array("{\"error\":\"Invalid API key: k\"}".utf8)))
        #expect(!mappings.refusesCredentials(status: 400, body: Array("{\"error\":\"missing user_id\"}".utf8)))
    }
}
