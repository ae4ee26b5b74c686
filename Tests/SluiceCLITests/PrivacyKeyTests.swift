import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SluiceTestSupport
import Testing

/// End to end: the pseudonymization key's sources, as `sluice run` and
/// `sluice validate` treat them.
@Suite struct PrivacyKeyTests {
    private func pipeline(_ key: String) -> String {
        """
        version: 1
        stages:
          - privacy: {pseudonymize: {fields: [userId], \(key)}}
        destinations: {archive: {type: ndjson}}
        """
    }

    @Test func aKeyWrittenWhereTheVariablesNameGoesIsNeverPrinted() throws {
        let directory = TemporaryDirectory()
        let key = "9c1f3e5a7b2d4f6e8a0c1e3f5a7b9d2e"
        directory.write("p.yaml", pipeline("key_env: \(key)"))
        for arguments in [["run", "--pipeline", "p.yaml"], ["validate", "p.yaml"]] {
            let result = try SluiceBinary.run(arguments, in: directory.path)
            #expect(result.status == 78)
            #expect(result.stderr.contains("p.yaml:3:57: privacy.pseudonymize.key_env looks like a key"), "\(result.stderr)")
            #expect(!result.stderr.contains(key.prefix(8)) && !result.stderr.contains(key.suffix(8)))
            #expect(result.stdout.isEmpty)
        }
        #expect(!directory.files().contains { $0.hasPrefix("out/") })
    }

    @Test func aKeyFileThatIsADeviceOrAFIFOIsRefusedAtOnce() throws {
        let directory = TemporaryDirectory()
        #expect(mkfifo(directory.file("key.fifo"), 0o600) == 0)
        for (path, kind) in [("/dev/zero", "a character device"), ("key.fifo", "a FIFO")] {
            directory.write("p.yaml", pipeline("key_file: \(path)"))
            // /dev/zero would be read without end, a FIFO without a writer wait for one: both are refused before any read.
            let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml"], in: directory.path)
            #expect(result.status == 78)
            #expect(result.stderr.contains("it is \(kind), not a regular file"), "\(result.stderr)")
        }
    }

    @Test func aKeyFileOthersCanReadIsWarnedAboutAndStillUsed() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("hmac.key", "0123456789abcdef0123456789abcdef\n")
        directory.write("p.yaml", pipeline("key_file: hmac.key"))
        directory.write("in.ndjson", #"{"type":"track","event":"e","userId":"u","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        #expect(chmod(path, 0o644) == 0)
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stdout", "archive", "in.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("sluice: warning: p.yaml:3:58: privacy.pseudonymize.key_file ./hmac.key is readable by group or others (mode 0644)"),
                "\(run.stderr)")
        let userId = try #require((try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any])?["userId"] as? String)
        #expect(userId.count == 64)
        let validate = try SluiceBinary.run(["validate", "p.yaml"], in: directory.path)
        #expect(validate.status == 0 && validate.stderr.contains("warning: privacy.pseudonymize.key_file"))
        #expect(try SluiceBinary.run(["validate", "--strict", "p.yaml"], in: directory.path).status == 78)
        // Only its owner reads it: no warning.
        #expect(chmod(path, 0o600) == 0)
        let quiet = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stdout", "archive", "in.ndjson"], in: directory.path)
        #expect(quiet.status == 0 && !quiet.stderr.contains("warning"))
    }
}
