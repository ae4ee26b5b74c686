import Foundation
import Sluice
@testable import SluiceSend
import SluiceTestSupport
import Testing

@Suite struct BatchingTests {
    private let eu = SendSettings(credentials: .environment("X"), region: "eu")
    /// Mixpanel's `/import`, as the registry gives it.
    private var api: any ProviderAPI {
        try! DestinationRegistry.type(named: "mixpanel")!.delivery!.events(eu, "secret", false).get()
    }

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

    @Test func formEncodedRecordsAreCutByTheSizeTheyTakeInTheBody() throws {
        let groups = try #require(DestinationRegistry.type(named: "amplitude")?.delivery?.sideOutputs["groups"]?(eu, "k"))
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
