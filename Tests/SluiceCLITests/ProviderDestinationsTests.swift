import Foundation
import SluiceTestSupport
import Testing

/// The generated stream through the `pipelines/` examples that route it to all
/// five providers: every output file gunzipped, every record parsed and checked
/// against its provider's rules (`ProviderRules`, written without Sluice code),
/// the files against the default rotation, and the accounting balanced.
@Suite struct ProviderDestinationsTests {
    /// One destination's output: its files, each as its parsed records and raw lines.
    struct Output {
        var files: [(path: String, lines: [String], bytes: Int)] = []
        var records: [[String: Any]] { files.flatMap { $0.lines }.map(ProviderDestinationsTests.parse) }
        var lineCount: Int { files.reduce(0) { $0 + $1.lines.count } }
    }

    static let sideOutputs: Set<String> = ["profiles", "groups", "user_mappings"]

    struct Run {
        var stats: [String: Any]
        var outputs: [String: Output]
        var rejects: [[String: Any]]

        func destination(_ name: String) -> [String: Any] {
            (stats["destinations"] as! [[String: Any]]).first { $0["name"] as? String == name }!
        }

        /// A side output's counts (`mixpanel.profiles`), from its destination's `outputs`.
        func sideOutput(_ name: String) -> [String: Any] {
            let parts = name.split(separator: ".").map(String.init)
            return (destination(parts[0])["outputs"] as? [[String: Any]] ?? []).first { $0["name"] as? String == parts[1] } ?? [:]
        }

        func counts(_ name: String, _ key: String) -> [String: Int] {
            destination(name)[key] as? [String: Int] ?? [:]
        }

        func total(_ name: String, _ key: String) -> Int { counts(name, key).values.reduce(0, +) }
    }

    static func parse(_ line: String) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
            Issue.record("not a JSON object: \(line.prefix(200))")
            return [:]
        }
        return object
    }

    /// Runs `generate | run --pipeline PIPELINE` (with `extra` lines after the generated ones) and reads everything back.
    private func run(_ pipeline: String, events: Int, seed: Int, extra: [String] = [], in directory: TemporaryDirectory) throws -> Run {
        _ = directory.write("extra.ndjson", extra.map { $0 + "\n" }.joined())
        let result = try SluiceBinary.shell(
            "( $SLUICE generate --events \(events) --seed \(seed) --malformed 0.01; cat extra.ndjson ) | " +
            "$SLUICE run --pipeline \(repositoryRoot)/pipelines/\(pipeline) --stats stats.json",
            in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let stats = ProviderDestinationsTests.parse(String(decoding: FileManager.default.contents(atPath: directory.file("stats.json"))!, as: UTF8.self))
        var outputs: [String: Output] = [:]
        var rejects: [[String: Any]] = []
        for file in directory.files().sorted() where file.hasPrefix("out/") {
            #expect(file.hasSuffix(".ndjson.gz"), "\(file) left unfinished")
            guard let bytes = TestGzip.decompressFile(directory.file(file)) else {
                Issue.record("\(file) is not valid gzip")
                continue
            }
            let lines = ndjsonLines(bytes).map { String(decoding: $0, as: UTF8.self) }
            // A side output is a folder of its destination's (`out/mixpanel/profiles/...`), by its own name (`mixpanel.profiles`).
            let parts = file.split(separator: "/")
            let destination = ProviderDestinationsTests.sideOutputs.contains(String(parts[2])) ? parts[1] + "." + parts[2] : parts[1]
            if destination == "rejects" {
                rejects += lines.map(ProviderDestinationsTests.parse)
            } else {
                outputs[String(destination), default: Output()].files.append((file, lines, bytes.count))
            }
        }
        return Run(stats: stats, outputs: outputs, rejects: rejects)
    }

    /// The accounting: every line in exactly one outcome, every destination's
    /// counts match its files, every refusal is a reject record naming its
    /// destination, and each `events: ["*"]` destination accounts for every
    /// event that reached the fan-out.
    private func checkAccounting(_ run: Run, lines: Int, excludedByRouting: [String: Int] = [:]) {
        let stats = run.stats
        let int = { (key: String) in stats[key] as? Int ?? -1 }
        #expect(int("lines_in") == lines)
        #expect(int("lines_in") == int("emitted") + int("merged") + int("rejected") + int("dropped"))
        #expect(stats["balanced"] as? Bool == true)
        let rejectedByReason = stats["rejected_by_reason"] as? [String: Int] ?? [:]
        let destinationRejected = run.rejects.filter { $0["destination"] == nil && $0["stage"] as? String == "destination" }
        #expect(destinationRejected.isEmpty, "a destination refusal without its destination")
        // Lines that reached the fan-out: emitted, unrouted, or refused by every destination that was routed them.
        let inputAndStageRejects = run.rejects.filter { $0["destination"] == nil }.count
        let refusedEverywhere = int("rejected") - inputAndStageRejects
        #expect(refusedEverywhere >= 0)
        let fannedOut = int("emitted") + ((stats["dropped_by_reason"] as? [String: Int])?["unrouted"] ?? 0) + refusedEverywhere
        for (name, output) in run.outputs where name.contains(".") {
            // A side output's counts are its own, apart from its destination's records.
            let counts = run.sideOutput(name)
            #expect(counts["records"] as? Int == output.lineCount, "\(name): stats say \(counts["records"] ?? 0) records")
            #expect(counts["files"] as? Int == output.files.count)
            #expect(counts["uncompressed_bytes"] as? Int == output.files.reduce(0) { $0 + $1.bytes })
        }
        for (name, output) in run.outputs where !name.contains(".") {
            let destination = run.destination(name)
            #expect(destination["records"] as? Int == output.lineCount, "\(name): stats say \(destination["records"] ?? 0) records")
            #expect(destination["files"] as? Int == output.files.count)
            #expect(destination["uncompressed_bytes"] as? Int == output.files.reduce(0) { $0 + $1.bytes })
            let refusals = run.rejects.filter { $0["destination"] as? String == name }
            #expect(refusals.count == run.total(name, "refused_by_reason"), "\(name): refusals in the rejects vs stats")
            for refusal in refusals {
                #expect(refusal["stage"] as? String == "destination")
                #expect(run.counts(name, "refused_by_reason")[refusal["reason"] as? String ?? ""] != nil)
                #expect(!ProviderDestinationsTests.parse(refusal["line"] as? String ?? "").isEmpty)
            }
            let events = destination["events"] as? Int ?? 0
            let accounted = events + run.total(name, "refused_by_reason") + run.total(name, "not_taken_by_reason")
            if let excluded = excludedByRouting[name] {
                #expect(accounted == fannedOut - excluded, "\(name): \(accounted) events accounted for, \(fannedOut - excluded) routed")
            }
        }
        _ = rejectedByReason
    }

    /// Each file is at most one upload request: the default rotation of its type.
    private func checkRotation(_ run: Run, _ limits: [String: (events: Int, bytes: Int)]) {
        for (name, limit) in limits {
            for file in run.outputs[name]?.files ?? [] {
                #expect(file.lines.count <= limit.events && file.bytes <= limit.bytes,
                        "\(file.path): \(file.lines.count) records, \(file.bytes) bytes")
            }
        }
    }

    private static let rotationLimits: [String: (events: Int, bytes: Int)] = [
        "mixpanel": (2000, 2_000_000), "amplitude": (2000, 1_000_000 - 1024), "ga4": (2000, 64 << 20),
        "adjust": (1_000_000, 64 << 20), "segment": (2500, 500_000 - 1024),
        "mixpanel.profiles": (200, 2_000_000), "mixpanel.groups": (200, 2_000_000),
        "amplitude.groups": (1024, 1_000_000 - 1024), "amplitude.user_mappings": (2000, 1_000_000 - 1024),
    ]

    private func crafted(_ event: String = "movie_tapped", type: String = "track", messageId: String, anonymousId: String,
                         userId: String? = nil, time: String = "2026-11-21T00:00:00Z", properties: String = "{}", extra: String = "") -> String {
        let user = userId.map { #","userId":"\#($0)""# } ?? ""
        let name = type == "track" ? #""event":"\#(event)","# : ""
        return #"{"type":"\#(type)",\#(name)"messageId":"\#(messageId)","timestamp":"\#(time)","anonymousId":"\#(anonymousId)"\#(user),"properties":\#(properties)\#(extra)}"#
    }

    @Test func theGeneratedStreamReachesAllFiveProvidersAndEveryRefusalIsInTheRejects() throws {
        let directory = TemporaryDirectory()
        let extra = [
            crafted(messageId: "x-null-user", anonymousId: "dev-crafted-0001", userId: "null"),          // Mixpanel refuses
            crafted(messageId: String(repeating: "m", count: 101), anonymousId: "dev-crafted-0002"),     // Segment refuses
            crafted(messageId: "x-short-id", anonymousId: "abc"),                                        // Amplitude refuses
            crafted(messageId: "x-1970", anonymousId: "dev-crafted-0004", time: "1970-06-01T00:00:00Z"),  // Mixpanel refuses
            crafted(messageId: "x-big", anonymousId: "dev-crafted-0005",
                    properties: #"{"blob":"\#(String(repeating: "x", count: 40_000))"}"#),              // Segment refuses, others cut
            #"{"type":"group","groupId":"g1","messageId":"\#(String(repeating: "g", count: 101))","timestamp":"2026-11-21T00:00:00Z","anonymousId":"dev-crafted-0006","traits":{}}"#,
            crafted("debug_trace", messageId: "x-debug", anonymousId: "dev-crafted-0007"),                // not routed to Mixpanel
            crafted("purchase_completed", messageId: "x-no-currency", anonymousId: "dev-crafted-0008", properties: #"{"price":5}"#),
            crafted(messageId: "x-segment-only", anonymousId: "dev-crafted-0009", extra: #","integrations":{"All":false,"Segment":true}"#),
            #"{"type":"group","groupId":"g-2","messageId":"x-group","timestamp":"2026-11-21T00:00:00Z","anonymousId":"dev-crafted-0010","userId":"user-crafted-10","traits":{"company_id":"acme","name":"Acme Inc"}}"#,
            #"{"type":"alias","previousId":"guest-crafted-11","userId":"user-crafted-11","messageId":"x-alias","timestamp":"2026-11-21T00:00:00Z","anonymousId":"dev-crafted-0011"}"#,
        ]
        let run = try run("providers.yaml", events: 6000, seed: 5, extra: extra, in: directory)

        // Every line is taken somewhere: the group message Segment refused is Amplitude's `$identify`.
        #expect((run.stats["rejected_by_reason"] as? [String: Int])?["message_id_too_long"] == nil)
        #expect(run.counts("mixpanel", "refused_by_reason") == ["invalid_distinct_id": 1, "time_out_of_range": 1])
        #expect(run.counts("segment", "refused_by_reason") == ["message_id_too_long": 2, "message_too_large": 1])
        #expect(run.counts("amplitude", "refused_by_reason") == ["missing_user_or_device_id": 1])
        #expect((run.counts("adjust", "changes")["revenue_without_currency"] ?? 0) >= 1)
        checkAccounting(run, lines: 6000 + extra.count,
                        excludedByRouting: ["mixpanel": 2, "amplitude": 1, "ga4": 1, "segment": 0])
        checkRotation(run, ProviderDestinationsTests.rotationLimits)

        let mixpanel = run.outputs["mixpanel"]!
        for (record, line) in zip(mixpanel.records, mixpanel.files.flatMap(\.lines)) { ProviderRules.checkMixpanel(record, line: line) }
        let mixpanelNames = Set(mixpanel.records.map { $0["event"] as? String ?? "" })
        #expect(mixpanelNames.contains("avatar_changed") && !mixpanelNames.contains("Avatar Changed"), "rename: did not apply")
        #expect(!mixpanelNames.contains("debug_trace"))
        let amplitude = run.outputs["amplitude"]!
        for (record, line) in zip(amplitude.records, amplitude.files.flatMap(\.lines)) { ProviderRules.checkAmplitude(record, line: line) }
        #expect(amplitude.records.contains { $0["event_type"] as? String == "$identify" })
        let ga4 = run.outputs["ga4"]!
        for (record, line) in zip(ga4.records, ga4.files.flatMap(\.lines)) { ProviderRules.checkGA4(record, line: line, sessions: false) }
        let adjust = run.outputs["adjust"]!
        #expect(!adjust.records.isEmpty)
        for (record, line) in zip(adjust.records, adjust.files.flatMap(\.lines)) {
            ProviderRules.checkAdjust(record, line: line, appToken: "4w565xzmb54d", tokens: ["f0ob4r", "abc123"])
        }
        let segment = run.outputs["segment"]!
        for (record, line) in zip(segment.records, segment.files.flatMap(\.lines)) { ProviderRules.checkSegment(record, line: line) }
        #expect(segment.records.contains { $0["messageId"] as? String == "x-segment-only" })

        // The generated identify messages: a profile update each; the crafted group and alias: a record in each of theirs.
        let profiles = run.outputs["mixpanel.profiles"]!
        #expect(profiles.lineCount > 100)
        for (record, line) in zip(profiles.records, profiles.files.flatMap(\.lines)) { ProviderRules.checkMixpanelProfile(record, line: line, group: false) }
        let groups = run.outputs["mixpanel.groups"]!
        #expect(groups.lineCount == 1)
        for (record, line) in zip(groups.records, groups.files.flatMap(\.lines)) { ProviderRules.checkMixpanelProfile(record, line: line, group: true) }
        let identifications = run.outputs["amplitude.groups"]!
        #expect(identifications.lineCount == 1)
        for file in identifications.files {
            let properties = file.lines.map { ProviderRules.checkAmplitudeGroup(ProviderDestinationsTests.parse($0), line: $0) }
            #expect(properties.reduce(0, +) <= 1024, "\(file.path): over 1024 group properties in one request")
        }
        let mappings = run.outputs["amplitude.user_mappings"]!
        #expect(mappings.lineCount == 1)
        for (record, line) in zip(mappings.records, mappings.files.flatMap(\.lines)) { ProviderRules.checkAmplitudeUserMapping(record, line: line) }
        // GA4 carried the identify messages' traits on later events.
        #expect((run.counts("ga4", "changes")["remembered_user_properties_added"] ?? 0) > 0)
    }

    /// Every event refused by a destination (GA4's app stream without an app instance id):
    /// the summary line says so, with the reason, instead of "0 records in 0 files" alone.
    @Test func theSummaryLineNamesADestinationsRefusalsAndTheirReason() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\ndestinations:\n  ga4: {type: ga4, stream: app}\n  archive: {type: ndjson}\n")
        let lines = (0..<4).map { i in
            "{\"type\":\"track\",\"event\":\"Tap\",\"anonymousId\":\"a-\(i)\",\"messageId\":\"m-\(i)\",\"timestamp\":\"2026-11-20T08:00:0\(i)Z\"}"
        }
        directory.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--out", "out", "in.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("ga4 0 records in 0 files [4 refused: missing_app_instance_id]"), "\(run.stderr)")
        #expect(run.stderr.contains("archive 4 records in 1 file,") || run.stderr.contains("archive 4 records in 1 file;"), "\(run.stderr)")
    }

    @Test func withDedupeTimedAndSessionInFrontEveryProviderGetsSessionsAndDurations() throws {
        let directory = TemporaryDirectory()
        let run = try run("app-to-providers.yaml", events: 6000, seed: 7, in: directory)
        let stages = run.stats["stages"] as? [[String: Any]] ?? []
        let completed = stages.first { $0["stage"] as? String == "timed" }?["completed"] as? Int ?? 0
        #expect(completed > 0)
        #expect((run.stats["merged"] as? Int ?? 0) >= completed)
        checkAccounting(run, lines: 6000, excludedByRouting: ["mixpanel": 0, "amplitude": 0, "ga4": 0, "adjust": 0, "segment": 0])
        checkRotation(run, ProviderDestinationsTests.rotationLimits)

        let mixpanel = run.outputs["mixpanel"]!.records
        for (record, line) in zip(mixpanel, run.outputs["mixpanel"]!.files.flatMap(\.lines)) { ProviderRules.checkMixpanel(record, line: line) }
        // Mixpanel has timed events: one $duration per pair the timed stage completed, and the session as properties.
        #expect(mixpanel.filter { ($0["properties"] as? [String: Any])?["$duration"] != nil }.count == completed)
        #expect(mixpanel.allSatisfy { ($0["properties"] as? [String: Any])?["session_id"] is String })

        let amplitude = run.outputs["amplitude"]!
        for (record, line) in zip(amplitude.records, amplitude.files.flatMap(\.lines)) { ProviderRules.checkAmplitude(record, line: line) }
        #expect(amplitude.records.allSatisfy { (($0["session_id"] as? NSNumber)?.int64Value ?? -1) > 0 }, "an event outside a session")

        let ga4 = run.outputs["ga4"]!
        for (record, line) in zip(ga4.records, ga4.files.flatMap(\.lines)) { ProviderRules.checkGA4(record, line: line, sessions: true) }
        // GA4 has none: `timed: split` sends a _start and a _stop, the stop with the duration.
        let ga4Events = ga4.records.flatMap { $0["events"] as? [[String: Any]] ?? [] }
        // Devices without the Firebase SDK's app instance id are not taken by an app stream.
        let ga4Refused = run.rejects.filter { $0["destination"] as? String == "ga4" }
        #expect(ga4Refused.allSatisfy { $0["reason"] as? String == "missing_app_instance_id" })
        let refusedPairs = ga4Refused.filter { ($0["line"] as? String ?? "").contains(#""timed":"completed""#) }.count
        #expect(ga4Events.filter { ($0["params"] as? [String: Any])?["duration_ms"] != nil }.count == completed - refusedPairs)
        #expect(ga4Events.contains { ($0["name"] as? String ?? "").hasSuffix("_start") })
        #expect(run.counts("ga4", "changes")["session_id_missing"] == nil)

        let adjust = run.outputs["adjust"]!
        for (record, line) in zip(adjust.records, adjust.files.flatMap(\.lines)) {
            ProviderRules.checkAdjust(record, line: line, appToken: "4w565xzmb54d", tokens: ["f0ob4r", "abc123"])
        }
        // `rename:` comes before the token table: purchase_completed is sent as `purchase`.
        #expect(adjust.records.contains { $0["event_token"] as? String == "f0ob4r" && ($0["partner_params"] as? [String: Any])?["sku"] is String })
        #expect((run.counts("adjust", "not_taken_by_reason")["unsupported_event"] ?? 0) > 0)
        #expect((run.counts("adjust", "not_taken_by_reason")["unsupported_type"] ?? 0) > 0)

        let segment = run.outputs["segment"]!
        for (record, line) in zip(segment.records, segment.files.flatMap(\.lines)) { ProviderRules.checkSegment(record, line: line) }
        #expect(segment.records.allSatisfy { (($0["context"] as? [String: Any])?["session"] as? [String: Any])?["id"] is String })
    }
}
