import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: what a scheduler may do after each exit code. The codes worth a
/// retry (73, 74, 75) leave the `--state` file as the run found it, so the same
/// inputs from it again are exact; the final ones (64, 65, 66, 78) never change
/// it behind the scheduler's back.
@Suite struct ExitCodeRetryTests {
    private static let cron = repositoryRoot + "/pipelines/cron.yaml"

    private func line(_ fields: String, at time: String, id: String) -> String {
        #"{"type":"track","messageId":"\#(id)","anonymousId":"dev-1","timestamp":"2026-11-20T\#(time)Z",\#(fields)}"# + "\n"
    }

    private func bytes(_ directory: TemporaryDirectory, _ name: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: directory.file(name)) ?? Data())
    }

    /// A directory whose state carries an open timer (`upload` started at 08:00), and the stop for it in `hour-09.ndjson`.
    private func carriedTimer() throws -> (TemporaryDirectory, saved: [UInt8]) {
        let directory = TemporaryDirectory()
        directory.write("hour-08.ndjson", line(#""event":"upload","timed":"start","timerId":"u1""#, at: "08:00:00", id: "m1"))
        directory.write("hour-09.ndjson", line(#""event":"upload","timed":"stop","timerId":"u1""#, at: "08:00:09", id: "m2"))
        let first = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--state", "app.state", "hour-08.ndjson"], in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        return (directory, bytes(directory, "app.state"))
    }

    @Test(arguments: ["--stats", "--metrics"])
    func aRunWhoseReportCannotBeWrittenExits73AndARetryFromTheSameStateIsExact(_ flag: String) throws {
        let (directory, saved) = try carriedTimer()
        directory.write("file", "x")
        let failed = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--state", "app.state", "--out", "attempt-1", "--final",
                                           flag, "file/report", "hour-09.ndjson"], in: directory.path)
        #expect(failed.status == 73, "\(failed.stderr)")
        // Found at the start: nothing is read, so nothing is written but the message.
        #expect(failed.stderr.contains("cannot write \(flag) file/report: Not a directory; nothing was read"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("attempt-1")))
        #expect(bytes(directory, "app.state") == saved, "the state is the one the run started from")
        #expect(!directory.files().contains { $0.contains(".tmp-") })

        // The retry: the same input, the same state, a fresh --out.
        let retry = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--state", "app.state", "--out", "attempt-2", "--final",
                                          flag, "report", "hour-09.ndjson"], in: directory.path)
        #expect(retry.status == 0, "\(retry.stderr)")
        let records = gunzipFiles(directory, under: "attempt-2/archive/").flatMap(\.lines)
            .compactMap { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] }
        #expect(records.count == 1)
        #expect(records.first?["timed"] as? String == "completed", "the stop met the start the state carried")
        #expect((records.first?["properties"] as? [String: Any])?["duration_ms"] as? Int == 9000)
        #expect(bytes(directory, "app.state") != saved)
    }

    @Test func aStateThatCannotBeSavedAtTheEndExits74AndARetryFromTheSameStateIsExact() throws {
        let (directory, saved) = try carriedTimer()
        // 3000 timers left open: about 1 MB of state to carry, and next to no output.
        let padding = String(repeating: "p", count: 300)
        directory.write("hour-10.ndjson", (0..<3000).map {
            line(#""event":"upload","timed":"start","timerId":"t\#($0)","properties":{"note":"\#(padding)"}"#, at: "10:00:00", id: "s\($0)")
        }.joined())
        // dash counts ulimit -f in 512-byte blocks: 256 KiB per file at most. SIGXFSZ is ignored by sluice.
        let failed = try SluiceBinary.shell("ulimit -f 512; exec \"$SLUICE\" run --pipeline \(Self.cron) --state app.state --out attempt-1 "
            + "--stats s1.json hour-09.ndjson hour-10.ndjson", in: directory.path, shell: "/bin/sh")
        #expect(failed.status == 74, "\(failed.stderr)")
        #expect(failed.stderr.contains("cannot save --state app.state.tmp-") && failed.stderr.contains("File too large. The outputs of this run are complete but the state was NOT saved"),
                "\(failed.stderr)")
        #expect(bytes(directory, "app.state") == saved, "the state is the one the run started from")
        #expect(!directory.files().contains { $0.contains(".tmp-") })
        let stats = (try? JSONSerialization.jsonObject(with: Data(bytes(directory, "s1.json")))) as? [String: Any] ?? [:]
        #expect((stats["error"] as? String)?.hasPrefix("cannot save --state app.state") == true)

        let retry = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--state", "app.state", "--out", "attempt-2", "--stats", "s2.json",
                                          "hour-09.ndjson", "hour-10.ndjson"], in: directory.path)
        #expect(retry.status == 0, "\(retry.stderr)")
        let retried = (try? JSONSerialization.jsonObject(with: Data(bytes(directory, "s2.json")))) as? [String: Any] ?? [:]
        #expect(retried["carried_in"] as? Int == 1 && retried["merged"] as? Int == 1 && retried["carried"] as? Int == 3000)
    }

    /// A final code: nothing is read, or the run's data itself is at fault; a retry would do the same.
    struct FinalCase: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: [String]
        var status: Int32
        var savesState: Bool
        var testDescription: String { name }
    }

    @Test(arguments: [
        FinalCase(name: "64 usage: --stdout names no destination", arguments: ["--stdout", "nope", "hour-09.ndjson"], status: 64, savesState: false),
        FinalCase(name: "66 an input cannot be opened", arguments: ["hour-09.ndjson", "missing.ndjson"], status: 66, savesState: false),
        FinalCase(name: "78 a pipeline file with errors", arguments: ["--pipeline", "broken.yaml", "hour-09.ndjson"], status: 78, savesState: false),
        FinalCase(name: "65 --strict and a line was rejected: the run is done, its state saved",
                  arguments: ["--strict", "hour-09.ndjson", "broken.ndjson"], status: 65, savesState: true),
    ])
    func aFinalExitLeavesTheStateAsDocumented(_ final: FinalCase) throws {
        let (directory, saved) = try carriedTimer()
        directory.write("broken.yaml", "version: 1\ndestinations:\n  archive: {type: ndjsn}\n")
        directory.write("broken.ndjson", "not json\n")
        let pipeline = final.arguments.contains("--pipeline") ? [] : ["--pipeline", Self.cron]
        let result = try SluiceBinary.run(["run"] + pipeline + ["--state", "app.state"] + final.arguments, in: directory.path)
        #expect(result.status == final.status, "\(result.stderr)")
        #expect((bytes(directory, "app.state") != saved) == final.savesState)
        #expect(!directory.files().contains { $0.contains(".tmp-") })
    }
}
