import Foundation
import Sluice
@testable import SluiceSend
import Testing

/// The request shapes of the side outputs' endpoints, and how their answers are read.
@Suite struct SideOutputAPITests {
    private let eu = SendSettings(credentials: .environment("X"), region: "eu")
    private let records: [UInt8] = Array("{\"a\":\"x y\"}\n{\"b\":\"é&=+\"}\n".utf8)

    @Test func formEncodingEscapesEverythingButLettersDigitsAndStarDashDotUnderscore() {
        #expect(String(decoding: FormEncoding.body([("api_key", Array("k y".utf8)), ("m", Array("[{\"é\":1}]&=+~*-._".utf8))]),
                       as: UTF8.self)
            == "api_key=k%20y&m=%5B%7B%22%C3%A9%22%3A1%7D%5D%26%3D%2B%7E*-._")
    }

    @Test func mixpanelProfileUpdatesAreAJSONListInTheDataFormParameterToTheRegionsEngageOrGroups() throws {
        let engage = try #require(ProviderAPIs.make(type: "mixpanel", sideOutput: "profiles", settings: eu, secret: "s"))
        #expect(engage.url(endpoint: nil) == "https://api-eu.mixpanel.com/engage")
        #expect(ProviderAPIs.make(type: "mixpanel", sideOutput: "groups", settings: eu, secret: "s")?.url(endpoint: nil)
            == "https://api-eu.mixpanel.com/groups")
        let (headers, body) = engage.request(records: records[...], count: 2, gzipped: [1, 2, 3])
        var components = URLComponents()
        components.percentEncodedQuery = String(decoding: body, as: UTF8.self)
        #expect((components.queryItems ?? []).map { "\($0.name)=\($0.value ?? "")" }
            == ["data=[{\"a\":\"x y\"},{\"b\":\"é&=+\"}]", "verbose=1", "ip=0"])  // never the gzip bytes
        #expect(headers.contains { $0 == ("Content-Type", "application/x-www-form-urlencoded") })
        #expect(!headers.contains { $0.0 == "Authorization" || $0.0 == "Content-Encoding" })
    }

    @Test func formEncodedRecordsAreCutByTheSizeTheyTakeInTheBody() throws {
        let groups = try #require(ProviderAPIs.make(type: "amplitude", sideOutput: "groups", settings: eu, secret: "k"))
        // 400 records of 4,996 bytes, a quote every other byte: 9,998 bytes each in the body, 99 to a request of 1 MB.
        let record = "{\"p\":\"" + String(repeating: "\"a", count: 2494) + "\"}"
        let file = SendFile(path: "f", identity: "i", compressed: [], text: Array(String(repeating: record + "\n", count: 400).utf8))
        let batches = Batches.cut(0..<400, of: file, api: groups)
        #expect(batches.map(\.count) == [99, 99, 99, 99, 4])
        for batch in batches {
            let body = groups.request(records: file.bytes(batch), count: batch.count, gzipped: nil).body
            #expect(body.count <= 1_000_000, "\(batch): \(body.count) bytes")
        }
        #expect(batches.map(\.count).reduce(0, +) == 400)
    }

    @Test func mixpanelsStatusZeroRefusesTheWholeBatchWithItsError() throws {
        let engage = try #require(ProviderAPIs.make(type: "mixpanel", sideOutput: "profiles", settings: eu, secret: "s"))
        #expect(engage.refusedInAnswer(Array("{\"error\":null,\"status\":1}".utf8), count: 3).isEmpty)
        #expect(engage.refusedInAnswer(Array("1\n".utf8), count: 3).isEmpty)
        let refused = engage.refusedInAnswer(Array("{\"error\":\"$distinct_id, missing or empty\",\"status\":0}".utf8), count: 3)
        #expect(refused.map(\.index) == [0, 1, 2])
        #expect(refused.allSatisfy { $0.reason == "$distinct_id, missing or empty" })
        #expect(engage.refusedInAnswer(Array("0".utf8), count: 1).count == 1)
        // An answer that says neither: kept in the send-rejects, not taken as applied.
        let unclear = engage.refusedInAnswer(Array("<html>busy</html>".utf8), count: 2)
        #expect(unclear.count == 2 && unclear[0].reason.hasPrefix("Mixpanel's answer says neither success nor failure"))
        // An error about the project token refuses the credentials (exit 77), whatever the status.
        #expect(engage.refusesCredentials(status: 200, body: Array("{\"error\":\"$token, invalid\",\"status\":0}".utf8)))
        #expect(!engage.refusesCredentials(status: 200, body: Array("{\"error\":null,\"status\":1}".utf8)))
    }

    @Test func amplitudeGroupsAndMappingsAreFormPostsWithTheKeyToTheirHosts() throws {
        let groups = try #require(ProviderAPIs.make(type: "amplitude", sideOutput: "groups", settings: eu, secret: "key 1"))
        #expect(groups.url(endpoint: nil) == "https://api.eu.amplitude.com/groupidentify")
        #expect(groups.maxRecords == 1024)
        let (headers, body) = groups.request(records: records[...], count: 2, gzipped: nil)
        #expect(headers.contains { $0 == ("Content-Type", "application/x-www-form-urlencoded") })
        var components = URLComponents()
        components.percentEncodedQuery = String(decoding: body, as: UTF8.self)
        let items = components.queryItems ?? []
        #expect(items.map(\.name) == ["api_key", "identification"])
        #expect(items.map(\.value) == ["key 1", "[{\"a\":\"x y\"},{\"b\":\"é&=+\"}]"])
        let us = SendSettings(credentials: .environment("X"), region: "us")
        let mappings = try #require(ProviderAPIs.make(type: "amplitude", sideOutput: "user_mappings", settings: us, secret: "k"))
        #expect(mappings.url(endpoint: nil) == "https://api.amplitude.com/usermap")
        #expect(String(decoding: mappings.request(records: records[...], count: 2, gzipped: nil).body, as: UTF8.self)
            .hasPrefix("api_key=k&mapping=%5B"))
        #expect(mappings.refusesCredentials(status: 400, body: Array("{\"error\":\"Invalid API key: k\"}".utf8)))
        #expect(!mappings.refusesCredentials(status: 400, body: Array("{\"error\":\"missing user_id\"}".utf8)))
        #expect(ProviderAPIs.make(type: "segment", sideOutput: "groups", settings: us, secret: "k") == nil)
    }
}
