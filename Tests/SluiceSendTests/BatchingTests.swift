import Foundation
import Sluice
@testable import SluiceSend
import SluiceTestSupport
import Testing

@Suite struct BatchingTests {
    private let api: any ProviderAPI = try! MixpanelImport.make(
        settings: SendSettings(credentials: .environment("X"), region: "eu"), secret: "secret").get()

    @Test func batchesKeepToTheProvidersRecordAndByteLimits() {
        let line = "{\"event\":\"e\",\"properties\":{\"pad\":\"" + String(repeating: "x", count: 1400) + "\"}}\n"
        let file = SendFile(path: "f", identity: "i", compressed: [], text: Array(String(repeating: line, count: 5000).utf8))
        let batches = Batches.cut(0..<5000, of: file, api: api)
        #expect(batches.first == 0..<(2_000_000 / line.utf8.count))  // as many whole lines as fit in 2,000,000 bytes
        #expect(batches.allSatisfy { $0.count <= 2000 && file.bytes($0).count <= 2_000_000 })
        #expect(batches.map(\.count).reduce(0, +) == 5000)
        let small = SendFile(path: "f", identity: "i", compressed: [], text: Array(String(repeating: "{}\n", count: 4500).utf8))
        #expect(Batches.cut(100..<4500, of: small, api: api) == [100..<2100, 2100..<4100, 4100..<4500])
    }

    @Test func mixpanelRequestsAreGzipNDJSONToTheRegionsImportWithBasicAuth() throws {
        let mixpanel = try #require(api as? MixpanelImport)
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
        let mixpanel = try #require(api as? MixpanelImport)
        let body = Array(("{\"code\":400,\"error\":\"some data points in the request failed validation\",\"failed_records\":["
            + "{\"index\":1,\"$insert_id\":\"a\",\"field\":\"properties.time\",\"message\":\"'properties.time' is invalid\"},"
            + "{\"index\":7,\"$insert_id\":\"b\",\"field\":\"\",\"message\":\"too big\"}],\"num_records_imported\":8}").utf8)
        let refused = try #require(mixpanel.refusedRecords(in: body, count: 10))
        #expect(refused.map(\.index) == [1, 7])
        #expect(refused.map(\.reason) == ["properties.time: 'properties.time' is invalid", "too big"])
        #expect(mixpanel.refusedRecords(in: Array("{\"error\":\"bad\"}".utf8), count: 10).map { _ in false } ?? true)
    }

    @Test func aFinishedFileOfSeveralGzipMembersReadsBackWhole() {
        let member1 = TestGzip.compress(Array("{\"a\":1}\n".utf8))
        let member2 = TestGzip.compress(Array("{\"b\":2}\n{\"c\":3}\n".utf8))
        #expect(Gzip.decompress(member1 + member2) == Array("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n".utf8))
        #expect(Gzip.decompress(Array((member1 + member2).dropLast(3))) == nil)
        #expect(Gzip.decompress(Array("not gzip".utf8)) == nil)
    }

    @Test func retryAfterIsHonouredAndBackoffGrowsToItsCap() {
        let policy = RetryPolicy()
        #expect(policy.delay(attempt: 5, retryAfter: .seconds(7)) == .seconds(7))
        #expect(policy.delay(attempt: 0, retryAfter: nil, random: 0.999) < .seconds(1))
        #expect(policy.delay(attempt: 3, retryAfter: nil, random: 0.5) == .seconds(4))
        #expect(policy.delay(attempt: 30, retryAfter: nil, random: 0.5) == .seconds(30))
        #expect(RetryPolicy.parseRetryAfter("120") == .seconds(120))
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now: now) == .seconds(30))
        #expect(RetryPolicy.parseRetryAfter("soon") == nil)
    }

    @Test func theRedactorTakesOutTheSecretAndItsBasicAuthForm() {
        var redactor = Redactor()
        redactor.add("s3cr3t-value")
        let basic = Data("s3cr3t-value:".utf8).base64EncodedString()
        #expect(redactor.scrub("key s3cr3t-value header Basic \(basic)") == "key [redacted] header Basic [redacted]")
    }
}
