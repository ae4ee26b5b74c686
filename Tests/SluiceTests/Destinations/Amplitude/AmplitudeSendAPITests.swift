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

    /// A 429 that names users or devices over their daily quota and throttled events: the
    /// former refused (matched on the records' ids), the latter held for a wait; none named, nil.
    @Test func amplitudes429SaysWhichEventsAreOverQuotaAndWhichThrottled() throws {
        let api = try AmplitudeHTTP.make(settings: SendSettings(credentials: .environment("X"), region: "us"), secret: "k").get()
        let batch = Array(("{\"user_id\":\"u1\",\"device_id\":\"d1\"}\n{\"device_id\":\"d2\"}\n"
            + "{\"user_id\":\"u3\",\"device_id\":\"d3\"}\n{\"device_id\":\"d4\"}\n").utf8)
        let answer = Array(("{\"code\":429,\"error\":\"Too many requests for some devices and users\",\"eps_threshold\":30,"
            + "\"throttled_devices\":{\"d3\":31},\"throttled_users\":{},\"exceeded_daily_quota_users\":{\"u1\":500001},"
            + "\"exceeded_daily_quota_devices\":{\"d4\":600200},\"throttled_events\":[0,2,9]}").utf8)
        let named = try #require(api.throttledRecords(in: answer, records: batch[...], count: 4))
        #expect(named.refused.keys.sorted() == [0, 3])
        #expect(named.refused[0]?.contains("exceeded_daily_quota_users") == true)
        #expect(named.refused[3]?.contains("exceeded_daily_quota_devices") == true)
        // Event 0 is over quota (refused, not retried); 9 is outside the batch.
        #expect(named.throttled == [2])
        #expect(api.throttledRecords(in: Array("{\"code\":429,\"error\":\"Too many requests\"}".utf8), records: batch[...], count: 4) == nil)
        #expect(api.throttledRecords(in: Array("not json".utf8), records: batch[...], count: 4) == nil)
    }
}
