import Foundation
import ProviderEmulator
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `sluice send --watch` beside a running `sluice run` on the same output.
@Suite struct SendWatchTests {
    @Test func watchSendsFilesAsARunningRunFinishesThemEachRecordOnceAndStopsOnSIGTERM() throws {
        let directory = TemporaryDirectory()
        let emulator = try ProviderEmulator(secret: SendFixture.secret)
        directory.write("p.yaml", """
            version: 1
            destinations:
              mixpanel:
                type: mixpanel
                rotate: {max_events: 250, max_age: 1s}
                send: {credentials_env: MIXPANEL_SECRET}

            """)
        let generated = try SluiceBinary.shell("$SLUICE generate --events 3000 --duplicates 0 --malformed 0 --seed 5 > in.ndjson",
                                               in: directory.path)
        #expect(generated.status == 0)
        let input = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))
        let run = try SluiceProcess(["run", "--pipeline", "p.yaml", "--out", "out", "--flush-interval", "100ms"], in: directory.path)
        let send = try SluiceProcess(["send", "--pipeline", "p.yaml", "--watch", "--endpoint", "mixpanel=\(emulator.url)",
                                      "--stats", "stats.json", "out"],
                                     in: directory.path, environment: ["MIXPANEL_SECRET": SendFixture.secret])
        // The first half: files finish while the run goes on, and are sent while it does.
        run.send(lines: input[0..<1500])
        #expect(waitUntil(timeout: 60) { emulator.imported.count >= 500 }, "\(send.stderr)")
        #expect(run.process.isRunning)
        // logrotate's SIGHUP, aimed at both, leaves the sender running; SIGUSR1 prints its counts.
        send.signal(SIGHUP)
        send.signal(SIGUSR1)
        #expect(waitUntil(timeout: 30) { send.stderr.contains("sluice: stats so far: {\"command\":\"send\"") })
        #expect(send.process.isRunning)
        run.send(lines: input[1500...])
        run.closeInput()
        #expect(run.waitForExit(timeout: 60) == 0, "\(run.stderr)")
        // The run is done: its files only leave out/mixpanel now, each to out/sent once sent.
        #expect(waitUntil(timeout: 60) { directory.files().filter { $0.hasPrefix("out/mixpanel/") }.isEmpty }, "\(send.stderr)")
        send.signal(SIGTERM)
        #expect(send.waitForExit(timeout: 30) == 143, "\(send.stderr)")
        let records = gunzipFiles(directory, under: "out/sent/mixpanel/").flatMap(\.lines)
        #expect(records.count > 2000)
        #expect(emulator.imported.map(\.line).sorted() == records.map { String(decoding: $0, as: UTF8.self) }.sorted())
    }
}
