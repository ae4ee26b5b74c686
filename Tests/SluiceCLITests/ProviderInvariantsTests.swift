import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// The invariants of issue "provider records that never lie", checked on every
/// record the real binary writes for a generated stream with late and duplicate
/// events, all five providers, and both orders of the `session` and `timed` stages:
/// no empty id anywhere, no two records of one provider sharing an insert id
/// (duplicates are dropped by `dedupe`), no event in a session that began after it,
/// and GA4 app instance ids that came from the events.
@Suite struct ProviderInvariantsTests {
    static let orders = ["[session, timed]", "[timed, session]"]

    private func pipeline(order: String) -> String {
        let stages = order == "[session, timed]"
            ? "  - session: {inactivity: 30m, sign_out_events: [signed_out]}\n  - timed: {}\n"
            : "  - timed: {}\n  - session: {inactivity: 30m, sign_out_events: [signed_out]}\n"
        return """
            version: 1
            stages:
              - dedupe: {}
            \(stages)destinations:
              mixpanel: {type: mixpanel}
              amplitude: {type: amplitude}
              ga4: {type: ga4, timed: split}
              adjust: {type: adjust, app_token: 4w565xzmb54d, tokens: {signed_out: abc123, movie_tapped: def456}}
              segment: {type: segment}
            """
    }

    private func records(_ directory: TemporaryDirectory, _ destination: String) -> [[String: Any]] {
        directory.files().filter { $0.hasPrefix("out/\(destination)/") && $0.hasSuffix(".gz") }.sorted().flatMap { file -> [[String: Any]] in
            guard let bytes = TestGzip.decompressFile(directory.file(file)) else {
                Issue.record("\(file) is not complete, valid gzip")
                return []
            }
            return ndjsonLines(bytes).map { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? [:] }
        }
    }

    private func expectID(_ value: Any?, _ what: String) {
        guard let value else { return }
        guard let text = value as? String else {
            Issue.record("\(what) is not a string: \(value)")
            return
        }
        #expect(!text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(what) is blank")
    }

    private func int(_ value: Any?) -> Int64? { (value as? NSNumber)?.int64Value }

    @Test(arguments: orders)
    func everyRecordOfEveryProviderKeepsTheInvariants(order: String) throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 20000 --seed 11 --late 0.03 --duplicates 0.02 > in.ndjson",
                                               in: directory.path)
        #expect(generated.status == 0, "\(generated.stderr)")
        try pipeline(order: order).write(toFile: directory.file("p.yaml"), atomically: true, encoding: .utf8)
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "stats.json", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")

        let mixpanel = records(directory, "mixpanel")
        #expect(mixpanel.count > 10000)
        var insertIDs = Set<String>()
        for record in mixpanel {
            let properties = record["properties"] as? [String: Any] ?? [:]
            for key in ["distinct_id", "$user_id", "$device_id"] { expectID(properties[key], "mixpanel \(key)") }
            #expect(insertIDs.insert(properties["$insert_id"] as? String ?? "").inserted, "mixpanel $insert_id shared")
        }

        let amplitude = records(directory, "amplitude")
        #expect(amplitude.count > 10000)
        insertIDs.removeAll()
        var inSession = 0
        for record in amplitude {
            for key in ["user_id", "device_id"] { expectID(record[key], "amplitude \(key)") }
            let session = int(record["session_id"]) ?? -2
            let time = int(record["time"]) ?? 0
            #expect(session == -1 || (session > 0 && session <= time), "amplitude session_id \(session) after time \(time)")
            if session > 0 { inSession += 1 }
            #expect(insertIDs.insert(record["insert_id"] as? String ?? "").inserted, "amplitude insert_id shared")
        }
        #expect(inSession > amplitude.count * 9 / 10)

        let ga4 = records(directory, "ga4")
        #expect(ga4.count > 10000)
        var starts = 0
        for request in ga4 {
            let id = request["app_instance_id"] as? String ?? ""
            #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
            expectID(request["user_id"], "ga4 user_id")
            let requestTime = int(request["timestamp_micros"]) ?? 0
            for event in request["events"] as? [[String: Any]] ?? [] {
                let time = int(event["timestamp_micros"]) ?? requestTime
                if let session = int((event["params"] as? [String: Any])?["session_id"]) {
                    #expect(session * 1_000_000 <= time, "ga4 \(event["name"] ?? "") in a session starting after it")
                }
                if (event["name"] as? String ?? "").hasSuffix("_start") { starts += 1 }
            }
        }
        #expect(starts > 0)

        for record in records(directory, "adjust") {
            for key in ["web_uuid", "idfa", "gps_adid", "idfv", "android_id"] { expectID(record[key], "adjust \(key)") }
        }
        let segment = records(directory, "segment")
        #expect(segment.count > 10000)
        for record in segment {
            for key in ["userId", "anonymousId", "messageId"] { expectID(record[key], "segment \(key)") }
        }

        // The GA4 refusals are devices without an app instance id, each in the rejects and the stats.
        let stats = (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("stats.json"))))) as? [String: Any]
        #expect(stats?["balanced"] as? Bool == true)
        let rejects = records(directory, "rejects").filter { $0["destination"] as? String == "ga4" }
        #expect(!rejects.isEmpty && rejects.allSatisfy { $0["reason"] as? String == "missing_app_instance_id" })
    }
}
