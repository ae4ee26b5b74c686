import Foundation
@testable import Sluice
import SluiceTestSupport
import Testing

/// Mixpanel's send APIs: `/import` for the events, `/engage` and `/groups` for the side outputs.
@Suite struct MixpanelSendAPITests {
    private let eu = SendSettings(credentials: .environment("X"), region: "eu")
    private let records: [UInt8] = Array("{\"a\":\"x y\"}\n{\"b\":\"é&=+\"}\n".utf8)

    private func importAPI() throws -> MixpanelImport {
        try MixpanelImport.make(settings: eu, secret: "secret").get()
    }

    private func sideOutput(_ kind: String) throws -> any ProviderAPI {
        try #require(MixpanelDestination.type.delivery?.sideOutputs[kind]?(eu, "s"))
    }

    @Test func mixpanelRequestsAreGzipNDJSONToTheRegionsImportWithBasicAuth() throws {
        let mixpanel = try importAPI()
        #expect(mixpanel.url(endpoint: nil) == "https://api-eu.mixpanel.com/import?strict=1")
        #expect(mixpanel.url(endpoint: "http://127.0.0.1:9/import") == "http://127.0.0.1:9/import?strict=1")
        let records: [UInt8] = Array("{\"event\":\"a\"}\n{\"event\":\"b\"}\n".utf8)
        let (headers, body) = mixpanel.request(records: records[...], count: 2, gzipped: nil)
        #expect(TestGzip.decompress(body) == records)
        #expect(headers.contains { $0 == ("Authorization", "Basic " + Data("secret:".utf8).base64EncodedString()) })
        #expect(headers.contains { $0 == ("Content-Encoding", "gzip") })
        #expect(headers.contains { $0 == ("Content-Type", "application/x-ndjson") })
    }

    @Test func aServiceAccountNeedsItsProjectID() throws {
        var settings = SendSettings(credentials: .environment("X"), region: "us")
        guard case .failure = MixpanelImport.make(settings: settings, secret: "user.sa:secret") else {
            Issue.record("a service account without project_id was taken")
            return
        }
        settings.options["project_id"] = "12345"
        let api = try MixpanelImport.make(settings: settings, secret: "user.sa:secret").get()
        #expect(api.url(endpoint: nil) == "https://api.mixpanel.com/import?strict=1&project_id=12345")
        #expect(api.authorization == "Basic " + Data("user.sa:secret".utf8).base64EncodedString())
    }

    @Test func strictModesFailedRecordsNameTheRefusedRecordsAndTheirReasons() throws {
        let mixpanel = try importAPI()
        let body = Array(("{\"code\":400,\"error\":\"some data points in the request failed validation\",\"failed_records\":["
            + "{\"index\":1,\"$insert_id\":\"a\",\"field\":\"properties.time\",\"message\":\"'properties.time' is invalid\"},"
            + "{\"index\":7,\"$insert_id\":\"b\",\"field\":\"\",\"message\":\"too big\"}],\"num_records_imported\":8}").utf8)
        let refused = try #require(mixpanel.refusedRecords(in: body, count: 10))
        #expect(refused.map(\.index) == [1, 7])
        #expect(refused.map(\.reason) == ["properties.time: 'properties.time' is invalid", "too big"])
        #expect(mixpanel.refusedRecords(in: Array("{\"error\":\"bad\"}".utf8), count: 10).map { _ in false } ?? true)
    }

    @Test func mixpanelProfileUpdatesAreAJSONListInTheDataFormParameterToTheRegionsEngageOrGroups() throws {
        let engage = try sideOutput("profiles")
        #expect(engage.url(endpoint: nil) == "https://api-eu.mixpanel.com/engage")
        #expect(try sideOutput("groups").url(endpoint: nil) == "https://api-eu.mixpanel.com/groups")
        let (headers, body) = engage.request(records: records[...], count: 2, gzipped: [1, 2, 3])
        var components = URLComponents()
        components.percentEncodedQuery = String(decoding: body, as: UTF8.self)
        #expect((components.queryItems ?? []).map { "\($0.name)=\($0.value ?? "")" }
            == ["data=[{\"a\":\"x y\"},{\"b\":\"é&=+\"}]", "verbose=1", "ip=0"])  // never the gzip bytes
        #expect(headers.contains { $0 == ("Content-Type", "application/x-www-form-urlencoded") })
        #expect(!headers.contains { $0.0 == "Authorization" || $0.0 == "Content-Encoding" })
    }

    @Test func mixpanelsStatusZeroRefusesTheWholeBatchWithItsError() throws {
        let engage = try sideOutput("profiles")
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
}
