import Foundation
import SluiceTestSupport
import Testing

/// `--state` keeps what destinations remember of devices: a series of runs
/// gives a device's later events what an identify or a group of an earlier
/// run set, as one long run does.
@Suite struct StateDeviceMemoryTests {
    static let token = "0123456789abcdef0123456789abcdef"

    static func pipeline(groupKeys: String = "[company_id]") -> String {
        """
        version: 1
        destinations:
          ga4: {type: ga4, path: "ga4/{seq}.ndjson.gz"}
          mixpanel: {type: mixpanel, token: \(token), group_keys: \(groupKeys), path: "mixpanel/{seq}.ndjson.gz"}

        """
    }

    static let device = #""anonymousId":"dev-000001","context":{"device":{"appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f"}}"#
    static let hour8 = [
        #"{"type":"identify",\#(device),"messageId":"m1","timestamp":"2026-11-20T08:00:00Z","traits":{"plan":"pro"}}"#,
        #"{"type":"group",\#(device),"groupId":"g-1","messageId":"m2","timestamp":"2026-11-20T08:00:01Z","traits":{"company_id":"acme"}}"#,
    ].joined(separator: "\n") + "\n"
    static let hour9 = #"{"type":"track","event":"movie_tapped",\#(device),"messageId":"m3","timestamp":"2026-11-20T09:00:00Z","properties":{"movie_id":5}}"# + "\n"

    private func lines(_ directory: TemporaryDirectory, _ prefix: String) -> [String] {
        gunzipFiles(directory, under: prefix).flatMap(\.lines).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Runs hour 8 then hour 9 with one state; the records of hour 9.
    private func series(secondPipeline: String? = nil) throws -> (ga4: [String], mixpanel: [String], stats: String) {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", Self.pipeline())
        directory.write("p2.yaml", secondPipeline ?? Self.pipeline())
        directory.write("h8.ndjson", Self.hour8)
        directory.write("h9.ndjson", Self.hour9)
        // Read as they come (`--order window`): hour 8's messages are processed in its own run, not left
        // pending for the next one as exact order leaves those within the stages' lateness of the end.
        let first = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--state", "app.state", "--out", "out8", "--order", "window",
                                          "h8.ndjson"], in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try SluiceBinary.run(["run", "--pipeline", "p2.yaml", "--state", "app.state", "--stats", "s.json", "--out", "out9",
                                           "--order", "window", "h9.ndjson"], in: directory.path)
        #expect(second.status == 0, "\(second.stderr)")
        let stats = (try? String(contentsOfFile: directory.file("s.json"), encoding: .utf8)) ?? ""
        return (lines(directory, "out9/ga4/"), lines(directory, "out9/mixpanel/"), stats)
    }

    @Test func aLaterRunsEventsGetTheUserPropertiesAndGroupsAnEarlierRunSet() throws {
        let (ga4, mixpanel, stats) = try series()
        #expect(ga4.count == 1 && ga4[0].contains(#""user_properties":{"plan":{"value":"pro"}}"#), "\(ga4)")
        #expect(mixpanel.count == 1 && mixpanel[0].contains(#""company_id":["acme"]"#), "\(mixpanel)")
        #expect(stats.contains(#""restored_devices":2"#), "\(stats)")
    }

    @Test func aMemorySavedUnderOtherGroupKeysIsLeftOutNotMisread() throws {
        let (ga4, mixpanel, stats) = try series(secondPipeline: Self.pipeline(groupKeys: "[account_id]"))
        #expect(ga4.count == 1 && ga4[0].contains(#""user_properties":{"plan":{"value":"pro"}}"#), "\(ga4)")
        #expect(mixpanel.count == 1 && !mixpanel[0].contains("company_id"), "\(mixpanel)")
        #expect(stats.contains(#""restored_devices":1"#), "\(stats)")
    }
}
