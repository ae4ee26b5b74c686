import Foundation
import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct PipelineConfigurationTests {
    private func errors(_ yaml: String) -> [String] {
        do {
            _ = try PipelineConfiguration.load(yaml: yaml, file: "p.yaml")
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    /// The repository root, from this file's path.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    @Test func theCompiledInDefaultIsByteForBytePipelinesDefaultYAML() throws {
        let file = try String(contentsOfFile: Self.root + "/pipelines/default.yaml", encoding: .utf8)
        #expect(file == DefaultPipeline.text)
        let configuration = PipelineConfiguration.builtIn()
        #expect(configuration.destinations.map(\.name) == ["archive"])
    }

    @Test func everyExamplePipelineLoads() throws {
        let directory = Self.root + "/pipelines"
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".yaml") }
        #expect(!files.isEmpty)
        for file in files {
            #expect(throws: Never.self) { try PipelineConfiguration.load(path: directory + "/" + file) }
        }
    }

    @Test func aPipelineFileLargerThan16MiBIsRefusedBeforeItIsParsed() throws {
        let directory = TemporaryDirectory()
        let comment = "# " + String(repeating: "x", count: 1022) + "\n"
        let path = directory.write("big.yaml", "version: 1\ndestinations:\n  a: {type: ndjson}\n" + String(repeating: comment, count: 16 * 1024 + 1))
        do {
            _ = try PipelineConfiguration.load(path: path)
            Issue.record("loaded")
        } catch let error as ConfigurationError {
            #expect(error.diagnostics.map(\.description) == ["\(path):1:1: the file is larger than 16 MiB, more than a pipeline file can be"])
        }
    }

    @Test func aThousandDestinationsAreCheckedAndMoreAreRefusedWithTheLimit() throws {
        let destinations = { (count: Int) in (0..<count).map { "  d\($0): {type: ndjson}" }.joined(separator: "\n") }
        #expect(errors("version: 1\ndestinations:\n" + destinations(1000) + "\n").isEmpty)
        #expect(errors("version: 1\ndestinations:\n" + destinations(1001) + "\n")
            == ["p.yaml:3:3: 1001 destinations; a pipeline has at most 1000 (each is a compression thread and its buffers): split it into several pipelines"])
    }

    @Test func aDestinationOfAnUnknownTypeStillHasItsMisspeltKeysReported() {
        let found = errors("version: 1\ndestinations:\n  a: {type: mixpanl, evnts: [x], app_token: x}\n")
        #expect(found.count == 2)
        #expect(found.contains { $0.hasPrefix("p.yaml:3:13: unknown destination type 'mixpanl'; did you mean 'mixpanel'?") })
        #expect(found.contains { $0.hasPrefix("p.yaml:3:22: unknown key 'evnts' in destination 'a'; did you mean 'events'?") })
    }

    @Test func onlyVersionAndOneDestinationAreRequiredAndDefaultsApply() throws {
        let configuration = try PipelineConfiguration.load(yaml: """
        version: 1
        destinations:
          archive: {type: ndjson}
        """, file: "p.yaml")
        let archive = configuration.destinations[0]
        #expect(archive.events == ["*"])
        #expect(archive.gzipLevel == 6)
        #expect(archive.target == .files(try PathTemplate(PipelineConfiguration.defaultPath)))
        #expect(archive.rotation == RotationPolicy())
        #expect(configuration.input.maxLineBytes == 1 << 20)
        #expect(configuration.input.reorderBufferBytes == 256 << 20)
        #expect(configuration.rejects.template == (try PathTemplate(PipelineConfiguration.defaultRejectsPath)))
    }

    @Test func allSettingsAreRead() throws {
        let configuration = try PipelineConfiguration.load(yaml: """
        version: 1
        input: {max_line_bytes: 64KiB, reorder_buffer: 1GiB}
        stages: []
        destinations:
          archive:
            type: ndjson
            events: ["*", "!debug_*"]
            path: "a/{date}/{seq}.gz"
            gzip_level: 9
            rotate: {max_bytes: 2MiB, max_events: 2000, max_age: 30s}
          pipe: {type: ndjson, path: "-"}
        rejects: {path: "bad/{seq}.gz", gzip_level: 1}
        """, file: "p.yaml")
        #expect(configuration.input.maxLineBytes == 65536)
        #expect(configuration.input.reorderBufferBytes == 1 << 30)
        let archive = configuration.destinations[0]
        #expect(archive.events == ["*", "!debug_*"])
        #expect(archive.gzipLevel == 9)
        #expect(archive.rotation.maxBytes == 2 << 20)
        #expect(archive.rotation.maxEvents == 2000)
        #expect(archive.rotation.maxAge == .seconds(30))
        #expect(configuration.destinations[1].target == .stdout)
        #expect(configuration.rejects.gzipLevel == 1)
    }

    @Test func gzipMembersIsOneMemberPerFileForRequestSizedProviderFilesAndBlocksElsewhere() throws {
        let configuration = try PipelineConfiguration.load(yaml: """
        version: 1
        destinations:
          archive: {type: ndjson}
          mixpanel: {type: mixpanel}
          big: {type: mixpanel, rotate: {max_bytes: 64MiB}}
          whole: {type: ndjson, gzip_members: file, gzip_level: 12}
          cut: {type: amplitude, gzip_members: blocks, outputs: {groups: {gzip_members: file}}}
        """, file: "p.yaml")
        let members = Dictionary(uniqueKeysWithValues: configuration.destinations.map { ($0.name, $0.gzipMembers) })
        #expect(members == ["archive": .blocks, "mixpanel": .file, "big": .blocks, "whole": .file, "cut": .blocks])
        // Side outputs: their own setting, else the destination's, else by their size.
        let mixpanel = configuration.destinations.first { $0.name == "mixpanel" }!
        #expect(mixpanel.sideOutputs.allSatisfy { $0.gzipMembers == .file })
        let cut = configuration.destinations.first { $0.name == "cut" }!
        #expect(cut.sideOutputs.map(\.gzipMembers) == [.file, .blocks])
        #expect(configuration.destinations.first { $0.name == "whole" }!.gzipLevel == 12)
        #expect(errors("version: 1\ndestinations:\n  a: {type: ndjson, gzip_members: member}\n")
            .contains { $0.contains("destinations.a.gzip_members is `blocks`") })
    }

    @Test func unknownKeysAreErrorsWithTheNearestKeySuggestedAndTheirLocation() {
        let found = errors("""
        version: 1
        destinations:
          archive:
            type: ndjson
            evnts: ["*"]
        """)
        #expect(found == ["p.yaml:5:5: unknown key 'evnts' in destination 'archive'; did you mean 'events'?"])
    }

    @Test func everyErrorIsReportedAtOnce() {
        let found = errors("""
        version: 2
        input: {max_line_bytes: lots, reorder_buffer: 0}
        stages:
          - timd: {}
        destinations:
          archive: {type: braze}
          b: {type: ndjson, gzip_level: 13, path: "x/../{seq}.gz"}
          "bad name": {type: ndjson}
        rejects: {path: "no-seq.gz"}
        extra: true
        """)
        #expect(found.count == 10, "\(found)")
        #expect(found.first == "p.yaml:1:10: unsupported version 2; this sluice reads version 1")
        #expect(found.last?.hasPrefix("p.yaml:10:1:") == true)
        #expect(found.contains { $0.hasPrefix("p.yaml:2:25: input.max_line_bytes must be a size") })
        #expect(found.contains { $0.hasPrefix("p.yaml:2:47: input.reorder_buffer must be a size") })
        #expect(found.contains { $0.hasPrefix("p.yaml:4:5: unknown stage 'timd'") })
        #expect(found.contains { $0.hasPrefix("p.yaml:6:19: unknown destination type 'braze'") })
        #expect(found.contains { $0.hasPrefix("p.yaml:7:33: destinations.b.gzip_level must be between 0 and 12") })
        #expect(found.contains { $0.hasPrefix("p.yaml:7:43: destinations.b.path: the path may not contain `..`") })
        #expect(found.contains { $0.hasPrefix("p.yaml:8:3: destination name 'bad name'") })
        #expect(found.contains { $0.hasPrefix("p.yaml:9:17: rejects.path must contain {seq}") })
        #expect(found.contains { $0.hasPrefix("p.yaml:10:1: unknown key 'extra' in the pipeline file") })
    }

    @Test func maxLineBytesIsAtMostOneGiB() {
        let found = errors("""
        version: 1
        input: {max_line_bytes: 5GiB}
        destinations: {archive: {type: ndjson}}
        """)
        #expect(found == ["p.yaml:2:25: input.max_line_bytes must be at most 1GiB: a line that long is held in memory whole"])
    }

    @Test func missingVersionAndDestinationsAreReported() {
        let found = errors("input: {}\n")
        #expect(found.contains { $0.contains("missing `version: 1`") })
        #expect(found.contains { $0.contains("missing `destinations:`") })
    }

    @Test func invalidYAMLIsReportedWithItsLocation() {
        let found = errors("version: 1\ndestinations: {a: [}\n")
        #expect(found.count == 1)
        #expect(found[0].hasPrefix("p.yaml:2:"))
        #expect(found[0].contains("invalid YAML"))
    }

    /// Yams says it over six lines (quoting the document); an error is one line, where the mapping starts.
    @Test func aDuplicateKeyIsOneDiagnosticNamingTheKey() {
        let found = errors("version: 1\ndestinations:\n  mp: {type: mixpanel}\n  mp: {type: amplitude}\n")
        #expect(found.count == 1, "\(found)")
        #expect(found[0].hasPrefix("p.yaml:3:3: invalid YAML: the mapping that starts here has the key 'mp' more than once"), "\(found)")
        #expect(!found[0].contains("\n"))
    }

    @Test func onlyOneDestinationMayWriteToStdout() {
        let found = errors("""
        version: 1
        destinations:
          a: {type: ndjson, path: "-"}
          b: {type: ndjson, path: "-"}
        """)
        #expect(found.count == 1)
        #expect(found[0].contains("only one destination can write to stdout"))
    }

    @Test func twoDestinationsWritingTheSameFilesAreRefused() {
        let found = errors("""
        version: 1
        destinations:
          a: {type: ndjson, path: "shared/{date}/{hour}-{seq}.ndjson.gz"}
          b: {type: ndjson, path: "shared/{date}/{hour}-{seq}.ndjson.gz"}
          c: {type: ndjson, path: "shared/2026-11-20/08-{seq}.ndjson.gz"}
          archive: {type: ndjson}
          copy: {type: ndjson, path: "archive/{date}/archive-{hour}-{seq}.ndjson.gz"}
          own: {type: ndjson, path: "{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz"}
        """)
        #expect(found == [
            "p.yaml:4:27: destination 'b' can write the same files as destination 'a' (path \"shared/{date}/{hour}-{seq}.ndjson.gz\" and \"shared/{date}/{hour}-{seq}.ndjson.gz\" can give the same name); give each output its own path, e.g. with {dest}",
            "p.yaml:5:27: destination 'c' can write the same files as destination 'a' (path \"shared/2026-11-20/08-{seq}.ndjson.gz\" and \"shared/{date}/{hour}-{seq}.ndjson.gz\" can give the same name); give each output its own path, e.g. with {dest}",
            "p.yaml:5:27: destination 'c' can write the same files as destination 'b' (path \"shared/2026-11-20/08-{seq}.ndjson.gz\" and \"shared/{date}/{hour}-{seq}.ndjson.gz\" can give the same name); give each output its own path, e.g. with {dest}",
            "p.yaml:7:30: destination 'copy' can write the same files as destination 'archive' (path \"archive/{date}/archive-{hour}-{seq}.ndjson.gz\" and \"{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz\" can give the same name); give each output its own path, e.g. with {dest}",
        ])
    }

    @Test func aDestinationWritingTheRejectsFilesIsRefused() {
        let found = errors("""
        version: 1
        destinations:
          r: {type: ndjson, path: "rejects/{date}/rejects-{seq}.ndjson.gz"}
          ok: {type: ndjson, path: "rejects/{date}/ok-{seq}.ndjson.gz"}
          stdout: {type: ndjson, path: "-"}
        """)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("p.yaml:1:1: the rejects output can write the same files as destination 'r'") == true)
    }

    @Test(arguments: [
        ("x/{seq}.gz", "x/{seq}.gz", true),
        ("x/{seq}.gz", "y/{seq}.gz", false),
        ("x/{hour}{seq}.gz", "x/{seq}.gz", true),      // 080001 is both (errs towards refusing)
        ("x/{seq}-{hour}.gz", "x/{seq}.gz", false),
        ("x/{date}-{seq}.gz", "x/{date}-{hour}-{seq}.gz", false),
        ("/abs/{seq}.gz", "abs/{seq}.gz", false),
        ("x/1{seq}.gz", "x/{seq}.gz", true),
        ("x/a{seq}.gz", "x/{seq}.gz", false),
        ("x/{shard}-{seq}.gz", "x/{shard}-{seq}.gz", true),
        ("x/{shard}-{seq}.gz", "y/{shard}-{seq}.gz", false),
        ("x/{shard}/{seq}.gz", "x/{seq}.gz", false),          // a shard name has no `/`
        ("x/{shard}{seq}.gz", "x/{seq}.gz", true),           // shard "0" and seq 0000 give 00000, seq 00000 too
        ("x/{shard}-{seq}.gz", "x/a-{seq}.gz", true),         // the shard named "a"
        ("x/{shard}.{seq}.gz", "x/{seq}.gz", false),          // a shard name has no `.`
        ("{dest}-{shard}/{seq}.gz", "{dest}/{seq}.gz", false),
    ])
    func templatesOverlapWhenSomeNameMatchesBoth(_ a: String, _ b: String, _ overlap: Bool) throws {
        let first = try PathTemplate(a), second = try PathTemplate(b)
        #expect(first.mayShareFiles(dest: "d", with: second, otherDest: "e") == overlap)
        #expect(second.mayShareFiles(dest: "e", with: first, otherDest: "d") == overlap)
    }

    @Test(arguments: [("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("5m", .seconds(300)), ("1h", .seconds(3600)), ("2d", .seconds(172_800)),
                          ("1h30m", .seconds(5400)), ("1.5s", .milliseconds(1500)), ("2d12h", .seconds(216_000)),
                          ("0.25h", .seconds(900)), ("1m0.5s", .milliseconds(60_500)), ("0.5ms", .microseconds(500))])
    func durationsParseAloneCompoundAndWithFractions(_ text: String, _ expected: Duration) {
        #expect(ConfigReader.parseDuration(text) == expected)
    }

    @Test(arguments: [("64KiB", 65536), ("1MiB", 1 << 20), ("2GiB", 2 << 30), ("10MB", 10_000_000), ("512", 512)])
    func sizesParse(_ text: String, _ expected: Int) {
        #expect(ConfigReader.parseSize(text) == expected)
    }

    @Test func numbersTooLargeForTheirSettingAreErrorsWithTheirLocationNotCrashes() {
        let found = errors("""
        version: 99999999999999999999
        input: {max_line_bytes: 99999999999999999999GiB}
        stages:
          - dedupe: {window: 9999999999999999d, max_ids: 99999999999999999999}
          - timed: {expire_after: 106752d, lateness: 99999999999999999999ms}
          - session: {inactivity: 999999999999h}
        destinations:
          a:
            type: ndjson
            rotate: {max_bytes: 9999999999999GiB, max_events: 99999999999999999999, max_age: 999999999999999d}
        rejects: {rotate: {max_bytes: 99999999999999999999, max_age: 36501d}}
        """)
        #expect(found == [
            "p.yaml:1:10: version must be between \(Int.min) and \(Int.max), not 99999999999999999999",
            "p.yaml:2:25: input.max_line_bytes is too large: at most 9223372036854775807 bytes (8EiB), not 99999999999999999999GiB",
            "p.yaml:4:22: dedupe.window is too long: at most 36500d (100 years), not 9999999999999999d",
            "p.yaml:4:50: dedupe.max_ids must be between 1 and \(DedupeSettings.maxIDsLimit), not 99999999999999999999",
            "p.yaml:5:27: timed.expire_after is too long: at most 36500d (100 years), not 106752d",
            "p.yaml:5:46: timed.lateness is too long: at most 36500d (100 years), not 99999999999999999999ms",
            "p.yaml:6:27: session.inactivity is too long: at most 36500d (100 years), not 999999999999h",
            "p.yaml:10:25: destinations.a.rotate.max_bytes is too large: at most 9223372036854775807 bytes (8EiB), not 9999999999999GiB",
            "p.yaml:10:55: destinations.a.rotate.max_events must be between 1 and \(Int.max), not 99999999999999999999",
            "p.yaml:10:86: destinations.a.rotate.max_age is too long: at most 36500d (100 years), not 999999999999999d",
            "p.yaml:11:31: rejects.rotate.max_bytes is too large: at most 9223372036854775807 bytes (8EiB), not 99999999999999999999",
            "p.yaml:11:62: rejects.rotate.max_age is too long: at most 36500d (100 years), not 36501d",
        ])
    }

    @Test func theLongestDurationAndLargestSizeAreAccepted() {
        #expect(ConfigReader.parseDuration("36500d") == .seconds(36_500 * 86_400))
        #expect(ConfigReader.parseDuration("36501d") == nil)
        #expect(ConfigReader.parseSize("8589934591GiB") == 8_589_934_591 << 30)
        #expect(ConfigReader.parseSize("8589934592GiB") == nil)
        #expect(ConfigReader.parseSize("\(Int.max)") == Int.max)
    }

    @Test func badDurationsAndSizesAreRefused() {
        #expect(ConfigReader.parseDuration("5 minutes") == nil)
        #expect(ConfigReader.parseDuration("-5s") == nil)
        for text in ["", "5", "1h30", ".5s", "5.s", "1h-30m", "5 s", "5sec", "1x", "1.2.3s"] {
            #expect(ConfigReader.parseDuration(text) == nil, "\(text)")
        }
        #expect(ConfigReader.durationProblem("-5s").hasPrefix("must be positive"))
        #expect(ConfigReader.durationProblem("abc").hasPrefix("is not a duration"))
        #expect(ConfigReader.parseSize("1TB") == nil)
    }

    @Test func rejectsRawIsScrubByDefaultKeepOptsOutAndAnythingElseIsAnError() throws {
        let base = "version: 1\ndestinations: {archive: {type: ndjson}}\n"
        #expect(try !PipelineConfiguration.load(yaml: base, file: "p.yaml").rejects.keepRaw)
        #expect(try PipelineConfiguration.load(yaml: base + "rejects: {raw: keep}\n", file: "p.yaml").rejects.keepRaw)
        #expect(try !PipelineConfiguration.load(yaml: base + "rejects: {raw: scrub}\n", file: "p.yaml").rejects.keepRaw)
        #expect(errors(base + "rejects: {raw: yes}\n") == ["p.yaml:3:16: rejects.raw must be scrub or keep, not 'yes'"])
    }

    @Test func keepingRejectsRawIsAWarningOnlyWhenAPrivacyStageWouldScrubThem() throws {
        let keep = "version: 1\ndestinations: {archive: {type: ndjson}}\nrejects:\n  raw: keep\n"
        #expect(try PipelineConfiguration.load(yaml: keep, file: "p.yaml").warnings.isEmpty)
        let withPrivacy = try PipelineConfiguration.load(yaml: keep + "stages: [{privacy: {}}]\n", file: "p.yaml")
        #expect(withPrivacy.warnings.map(\.description) == ["p.yaml:4:8: rejects keep personal data raw (`rejects: {raw: keep}`): "
            + "rejected lines and their details are written as they came, not scrubbed by the privacy stage"])
        #expect(withPrivacy.lint().map(\.severity) == [.warning])
    }
}
