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

    /// Tracks named like the providers' own events and events dated before 1970, among a
    /// generated stream: no provider gets a reserved name or a time it does not take, and
    /// each such event is renamed (counted) or in the rejects with its reason.
    @Test func noProviderGetsAReservedNameOrATimeItDoesNotTake() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 3000 --seed 12 > in.ndjson", in: directory.path)
        #expect(generated.status == 0, "\(generated.stderr)")
        let context = #""context":{"device":{"appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f"}}"#
        var crafted = ""
        for (index, (event, time)) in [("$merge", "2026-11-20T09:00:00Z"), ("mp_page_view", "2026-11-20T09:00:01Z"),
                                       ("[Amplitude] Revenue", "2026-11-20T09:00:02Z"), ("$identify", "2026-11-20T09:00:03Z"),
                                       ("movie_tapped", "1969-07-20T20:17:40Z"), ("movie_tapped", "1970-06-01T00:00:00Z")].enumerated() {
            crafted += #"{"type":"track","event":"\#(event)","messageId":"crafted-\#(index)","timestamp":"\#(time)","anonymousId":"dev-crafted-01","userId":"user-crafted-01",\#(context),"properties":{"$distinct_ids":["a","b"]}}"# + "\n"
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.file("in.ndjson")))
        handle.seekToEndOfFile()
        handle.write(Data(crafted.utf8))
        try handle.close()
        try pipeline(order: "[session, timed]").write(toFile: directory.file("p.yaml"), atomically: true, encoding: .utf8)
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "stats.json", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")

        let mixpanel = records(directory, "mixpanel")
        for record in mixpanel {
            let name = record["event"] as? String ?? ""
            #expect(!name.hasPrefix("$") && !name.hasPrefix("mp_"), "mixpanel got \(name)")
            #expect((int((record["properties"] as? [String: Any])?["time"]) ?? 0) >= 31_536_000_000)
        }
        #expect(Set(mixpanel.compactMap { $0["event"] as? String }).isSuperset(of: ["app_$merge", "app_mp_page_view", "app_$identify"]))
        let amplitude = records(directory, "amplitude")
        for record in amplitude {
            let name = record["event_type"] as? String ?? ""
            #expect(!name.lowercased().hasPrefix("[amplitude]"), "amplitude got \(name)")
            #expect(name != "$identify" || record["event_properties"] == nil, "a track reached amplitude as $identify")
            #expect((int(record["time"]) ?? -1) >= 0)
        }
        #expect(Set(amplitude.compactMap { $0["event_type"] as? String }).isSuperset(of: ["app_[Amplitude] Revenue", "app_$identify"]))
        for request in records(directory, "ga4") {
            #expect((int(request["timestamp_micros"]) ?? -1) >= 0)
        }
        for record in records(directory, "adjust") {
            #expect((int(record["created_at_unix"]) ?? -1) >= 0)
        }

        let rejects = records(directory, "rejects").filter { $0["reason"] as? String == "time_out_of_range" }
        // The 1969 event at Mixpanel, Amplitude, GA4 and Adjust; the 1970 one at Mixpanel only.
        #expect(rejects.compactMap { $0["destination"] as? String }.sorted() == ["adjust", "amplitude", "ga4", "mixpanel", "mixpanel"])
        let stats = (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("stats.json"))))) as? [String: Any]
        #expect(stats?["balanced"] as? Bool == true)
    }
}
