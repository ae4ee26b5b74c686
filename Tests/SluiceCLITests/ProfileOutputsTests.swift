import Foundation
import SluiceJSON
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: identify, group and alias through the built binary into every
/// file set they make (Mixpanel's profiles and groups, Amplitude's groups and
/// user mappings), each read back from its gzip files, with the stats, the
/// metrics, the privacy stage in front, rotation, `--staging` and `recover`.
@Suite struct ProfileOutputsTests {
    static let token = "0123456789abcdef0123456789abcdef"
    static let pipeline = """
    version: 1
    stages:
      - privacy: {}
    destinations:
      mixpanel: {type: mixpanel, token: \(token), identity: original, group_keys: [company_id]}
      amplitude: {type: amplitude, user_mapping: true}
      ga4: {type: ga4}
      segment: {type: segment}

    """

    static let device = #""anonymousId":"dev-000001","userId":"user-1234","context":{"ip":"203.0.113.7","device":{"appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f"}}"#

    static let input = [
        #"{"type":"identify",\#(device),"messageId":"m1","timestamp":"2026-11-20T08:00:00Z","traits":{"email":"jane.doe@example.com","plan":"pro"}}"#,
        #"{"type":"group",\#(device),"groupId":"g-1","messageId":"m2","timestamp":"2026-11-20T08:00:01Z","traits":{"company_id":"acme","name":"Acme Inc","billing":"ap@acme.example.com"}}"#,
        #"{"type":"alias","previousId":"guest-8841","userId":"user-1234","messageId":"m3","timestamp":"2026-11-20T08:00:02Z"}"#,
        #"{"type":"track","event":"movie_tapped",\#(device),"messageId":"m4","timestamp":"2026-11-20T08:00:03Z","properties":{"movie_id":5}}"#,
    ].joined(separator: "\n") + "\n"

    /// Every line of a file set, from all its files, in name order.
    private func lines(_ directory: TemporaryDirectory, _ prefix: String) -> [String] {
        gunzipFiles(directory, under: prefix).flatMap(\.lines).map { String(decoding: $0, as: UTF8.self) }
    }

    private func json(_ directory: TemporaryDirectory, _ name: String) throws -> JSONDocument {
        try JSONDocument.parse(Array(try #require(FileManager.default.contents(atPath: directory.file(name)))))
    }

    @Test func everyFileSetIsWrittenScrubbedReadBackAndListedInTheStatsAndTheMetrics() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", Self.pipeline)
        directory.write("in.ndjson", Self.input)
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "s.json", "--metrics", "m.prom", "in.ndjson"],
                                       in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")

        let profiles = lines(directory, "out/mixpanel/profiles/")
        #expect(profiles == [
            #"{"$token":"\#(Self.token)","$distinct_id":"user-1234","$ip":"203.0.113.0","$set":{"$email":"[email]","plan":"pro"}}"#,
            #"{"$token":"\#(Self.token)","$distinct_id":"user-1234","$ip":"203.0.113.0","$union":{"company_id":["acme"]}}"#,
        ])
        #expect(lines(directory, "out/mixpanel/groups/") == [
            #"{"$token":"\#(Self.token)","$group_key":"company_id","$group_id":"acme","$set":{"company_id":"acme","$name":"Acme Inc","billing":"[email]"}}"#,
        ])
        let events = lines(directory, "out/mixpanel/2026-11-20/")
        #expect(events.map { $0.split(separator: ",").first } == [#"{"event":"$merge""#, #"{"event":"$create_alias""#, #"{"event":"movie_tapped""#])
        #expect(events[2].contains(#""company_id":["acme"]"#))
        #expect(lines(directory, "out/amplitude/groups/") == [
            #"{"group_type":"[Segment] Group","group_value":"g-1","group_properties":{"company_id":"acme","name":"Acme Inc","billing":"[email]"}}"#,
        ])
        #expect(lines(directory, "out/amplitude/user_mappings/") == [#"{"user_id":"guest-8841","global_user_id":"user-1234"}"#])
        #expect(lines(directory, "out/amplitude/2026-11-20/").count == 3)  // $identify, the group's $identify, the track
        // GA4: the group as join_group, then the track with the identify's user properties.
        let ga4 = lines(directory, "out/ga4/")
        #expect(ga4.count == 2 && ga4[0].contains(#""name":"join_group","params":{"#) && ga4[0].contains(#""group_id":"g-1""#))
        #expect(ga4.count == 2 && ga4[1].contains(#""user_properties":{"email":{"value":"[email]"},"plan":{"value":"pro"}}"#))
        // The privacy stage ran before every file set: no address reached any file.
        for file in directory.files() where file.hasSuffix(".ndjson.gz") {
            let text = String(decoding: TestGzip.decompressFile(directory.file(file)) ?? [], as: UTF8.self)
            #expect(!text.contains("@example.com") && !text.contains("@acme.example.com"), "\(file)")
        }

        let stats = try json(directory, "s.json")
        #expect(stats.kind(try #require(stats.member("balanced"))) == .true)
        let destinations = stats.elements(of: try #require(stats.member("destinations")))
        let mixpanel = try #require(destinations.first { stats.string(stats.member("name", of: $0)!) == "mixpanel" })
        let outputs = stats.elements(of: try #require(stats.member("outputs", of: mixpanel)))
        #expect(outputs.map { stats.string(stats.member("name", of: $0)!) } == ["profiles", "groups"])
        #expect(outputs.map { String(decoding: stats.rawBytes(stats.member("records", of: $0)!), as: UTF8.self) } == ["2", "1"])
        let files = stats.elements(of: try #require(stats.member("files")))
        let listed = files.compactMap { file -> String? in
            guard let output = stats.member("output", of: file) else { return nil }
            return stats.string(stats.member("destination", of: file)!)! + "." + stats.string(output)!
        }
        #expect(listed == ["mixpanel.profiles", "mixpanel.groups", "amplitude.groups", "amplitude.user_mappings"])

        let metrics = prometheusSamples(directory.file("m.prom"))
        #expect(metrics[#"sluice_destination_output_records_total{destination="mixpanel",output="profiles"}"#] == 2)
        #expect(metrics[#"sluice_destination_output_files_total{destination="amplitude",output="user_mappings"}"#] == 1)
        #expect(metrics[#"sluice_destination_records_total{destination="mixpanel",type="mixpanel"}"#] == 3)
        #expect(run.stderr.contains("mixpanel 3 records in 1 file (profiles 2 in 1 file, groups 1 in 1 file)"), "\(run.stderr)")
    }

    @Test func aSideOutputRotatesAtItsOwnLimitAndItsPathTemplate() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
        version: 1
        destinations:
          mixpanel:
            type: mixpanel
            token: \(Self.token)
            outputs:
              profiles: {path: "engage/{date}/profiles-{seq}.ndjson.gz", rotate: {max_events: 2}}

        """)
        let identifies = (0..<5).map {
            #"{"type":"identify","userId":"user-\#($0)000","messageId":"m\#($0)","timestamp":"2026-11-20T08:00:0\#($0)Z","traits":{"plan":"pro"}}"#
        }
        directory.write("in.ndjson", identifies.joined(separator: "\n") + "\n")
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "in.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let files = gunzipFiles(directory, under: "out/engage/")
        #expect(files.map(\.file) == ["out/engage/2026-11-20/profiles-0000.ndjson.gz", "out/engage/2026-11-20/profiles-0001.ndjson.gz",
                                      "out/engage/2026-11-20/profiles-0002.ndjson.gz"])
        #expect(files.map(\.lines.count) == [2, 2, 1])
        #expect(!directory.files().contains { $0.hasPrefix("out/mixpanel") })
    }

    @Test func withStagingTheSideOutputsFilesAreMovedIntoPlaceWithTheRest() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", Self.pipeline)
        directory.write("in.ndjson", Self.input)
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--staging", "staging", "--out", "out", "in.ndjson"],
                                       in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("staging")))
        for prefix in ["out/mixpanel/profiles/", "out/mixpanel/groups/", "out/amplitude/groups/", "out/amplitude/user_mappings/"] {
            #expect(!lines(directory, prefix).isEmpty, "\(prefix)")
        }
        #expect(!directory.files().contains { $0.hasSuffix(".part") })
    }

    @Test func afterKillMinus9RecoverFinishesTheProfilesFileTheRunLeftPart() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\ndestinations:\n  mixpanel: {type: mixpanel, token: \(Self.token)}\n")
        let sluice = try SluiceProcess(["run", "--pipeline", "p.yaml", "--flush-interval", "50ms"], in: directory.path)
        let identifies = (0..<50).map {
            Array(#"{"type":"identify","userId":"user-\#($0)000","messageId":"m\#($0)","timestamp":"2026-11-20T08:00:00Z","traits":{"n":\#($0)}}"#.utf8)
        }
        #expect(sluice.send(lines: identifies))
        // Killed once the profiles' .part holds the 50 records in complete gzip members (the run never ends on its own: stdin stays open).
        let part = "out/mixpanel/profiles/2026-11-20/mixpanel-profiles-08-0000.ndjson.gz.part"
        #expect(waitUntil(timeout: 60) {
            let bytes = Array(FileManager.default.contents(atPath: directory.file(part)) ?? Data())
            return ndjsonLines(TestGzip.decompressCompleteMembers(bytes).data).count == 50
        })
        sluice.signal(SIGKILL)
        #expect(sluice.waitForExit(timeout: 30) != nil)
        let recover = try SluiceBinary.run(["recover", "out"], in: directory.path)
        #expect(recover.status == 0, "\(recover.stdoutText)\(recover.stderr)")
        #expect(recover.stdoutText.contains("renamed"), "\(recover.stdoutText)")
        let recovered = lines(directory, "out/mixpanel/profiles/")
        #expect(recovered.count == 50 && recovered.allSatisfy { $0.hasPrefix(#"{"$token":""#) })
        #expect(!directory.files().contains { $0.hasSuffix(".part") })
    }
}
