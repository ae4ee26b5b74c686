import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The examples under `integrations/` for the sidecar and cron users: the
/// systemd units checked by `systemd-analyze verify`, the logrotate snippet by
/// `logrotate -d`, the units' commands run for real (paths moved into a
/// temporary directory), and the container file's sources.
@Suite struct IntegrationExamplesTests {
    static let integrations = repositoryRoot + "/integrations"

    static func installed(_ tool: String) -> Bool {
        (try? SluiceBinary.shell("command -v \(tool)", in: "/").status) == 0
    }

    private func text(_ path: String) throws -> String {
        try String(contentsOfFile: Self.integrations + "/" + path, encoding: .utf8)
    }

    /// A unit's `ExecStart=/bin/bash -c '...'` command, its continuation lines joined, `%%` read as systemd reads it.
    private func bashCommand(ofUnit path: String) throws -> String {
        let unit = try text(path).replacingOccurrences(of: "\\\n", with: "")
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=/bin/bash -c '") })
        return String(line.dropFirst("ExecStart=/bin/bash -c '".count).dropLast()).replacingOccurrences(of: "%%", with: "%")
    }

    @Test(.enabled(if: installed("systemd-analyze"), "needs systemd-analyze (apt-get install systemd; .ci/run installs it)"))
    func theSystemdUnitsPassSystemdAnalyzeVerify() throws {
        let directory = TemporaryDirectory()
        for name in ["sluice-sidecar.service", "sluice-hourly.service", "sluice-hourly.timer", "sluice-serve.service"] {
            // The binary named is the one built here, so verify finds it executable.
            directory.write(name, try text("systemd/" + name).replacingOccurrences(of: "/usr/local/bin/sluice", with: SluiceBinary.path))
        }
        let verify = try SluiceBinary.shell("systemd-analyze verify --man=no ./sluice-sidecar.service ./sluice-hourly.service ./sluice-hourly.timer "
                                            + "./sluice-serve.service",
                                            in: directory.path)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stderr.isEmpty, "every warning is a mistake in an example: \(verify.stderr)")
        // The check itself fails on a unit with a misspelt key.
        directory.write("broken.service", "[Service]\nExecStrat=/bin/true\n")
        let broken = try SluiceBinary.shell("systemd-analyze verify --man=no ./broken.service", in: directory.path)
        #expect(broken.status != 0 && broken.stderr.contains("ExecStrat"))
    }

    @Test(.enabled(if: installed("logrotate"), "needs logrotate (apt-get install logrotate; .ci/run installs it)"))
    func theLogrotateSnippetPassesLogrotatesCheck() throws {
        let directory = TemporaryDirectory()
        let check = try SluiceBinary.shell("logrotate -d -s state \(Self.integrations)/logrotate/sluice 2>&1", in: directory.path)
        #expect(check.status == 0, "\(check.stdoutText)")
        #expect(!check.stdoutText.contains("error:"), "\(check.stdoutText)")
        #expect(check.stdoutText.contains("/var/log/app/events.log"), "the snippet was read: \(check.stdoutText)")
    }

    /// The serve unit's command with its paths moved here and any free port: an SDK's batch is
    /// answered 200, `systemctl reload`'s SIGHUP runs an epoch, and `systemctl stop`'s SIGTERM
    /// runs a last one and exits 143, every acknowledged message in the files.
    @Test func theServeUnitsCommandTakesSegmentsAPIAndStopsCleanly() throws {
        let directory = TemporaryDirectory()
        directory.write("write-keys", "# the services' keys\nwk_unit\n")
        let unit = try text("systemd/sluice-serve.service").replacingOccurrences(of: "\\\n", with: "")
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let command = String(line.dropFirst("ExecStart=".count))
            .replacingOccurrences(of: "/usr/local/bin/sluice", with: SluiceBinary.path)
            .replacingOccurrences(of: "/etc/sluice/serve.yaml", with: repositoryRoot + "/pipelines/dedupe.yaml")
            .replacingOccurrences(of: "/etc/sluice/write-keys", with: directory.file("write-keys"))
            .replacingOccurrences(of: "/var/lib/sluice/", with: directory.path + "/")
            .replacingOccurrences(of: "/var/lib/node_exporter/textfile/", with: directory.path + "/")
            .replacingOccurrences(of: "127.0.0.1:8088", with: "127.0.0.1:0 --port-file port")
        #expect(!command.contains("/var/") && !command.contains("/etc/"), "a path left unmoved: \(command)")
        let words = command.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let server = try SluiceProcess(Array(words.dropFirst()), in: directory.path, executable: words[0])
        var port = 0
        #expect(waitUntil(timeout: 60) {
            port = Int((try? String(contentsOfFile: directory.file("port"), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            return port != 0 || !server.process.isRunning
        })
        #expect(httpExchange(port: port, path: "/v1/batch", body: trackBatch(0..<20), headers: basicAuth("wk_unit"))?.status == 200)
        server.signal(SIGHUP)
        #expect(waitUntil(timeout: 60) { FileManager.default.fileExists(atPath: directory.file("serve-stats.json")) })
        #expect(httpExchange(port: port, path: "/v1/batch", body: trackBatch(20..<30), headers: basicAuth("wk_unit"))?.status == 200)
        server.signal(SIGTERM)
        #expect(server.waitForExit(timeout: 60) == 143, "\(server.stderr)")
        let metrics = prometheusSamples(directory.file("sluice-serve.prom"))
        #expect(metrics["sluice_lines_in_total"] == 10, "the last epoch's lines")
        // What the epochs' state still holds (exact order waits for later events) comes out with --final.
        let empty = directory.write("empty.ndjson", [])
        let drained = try SluiceBinary.run(["run", "--pipeline", repositoryRoot + "/pipelines/dedupe.yaml", "--state",
                                            "serve/.sluice-serve/state", "--final", "--out", "serve", "--quiet", empty], in: directory.path)
        #expect(drained.status == 0, "\(drained.stderr)")
        let ids = gunzipFiles(directory, under: "serve/archive/").flatMap(\.lines).compactMap {
            ((try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any])?["messageId"] as? String
        }
        #expect(ids.sorted() == (0..<30).map { "m\($0)" }.sorted())
    }

    /// The sidecar unit's command, run as systemd would: sluice is the process
    /// it starts (SIGHUP from `systemctl reload` reaches it), it follows the log
    /// as lines are appended, and SIGTERM finishes every file, exit 143.
    @Test func theSidecarUnitsCommandFollowsTheLogAndStopsCleanly() throws {
        let directory = TemporaryDirectory()
        directory.write("events.log", "")
        let command = try bashCommand(ofUnit: "systemd/sluice-sidecar.service")
            .replacingOccurrences(of: "/usr/local/bin/sluice", with: SluiceBinary.path)
            .replacingOccurrences(of: "/etc/sluice/sidecar.yaml", with: repositoryRoot + "/pipelines/sidecar.yaml")
            .replacingOccurrences(of: "/var/lib/sluice/out", with: directory.file("out"))
            .replacingOccurrences(of: "/var/lib/node_exporter/textfile/sluice.prom", with: directory.file("sluice.prom"))
            .replacingOccurrences(of: "/var/log/app/events.log", with: directory.file("events.log"))
        #expect(!command.contains("/var/") && !command.contains("/etc/"), "a path left unmoved: \(command)")
        let sidecar = try SluiceProcess(["-c", command], in: directory.path, executable: "/bin/bash")
        let log = try #require(FileHandle(forWritingAtPath: directory.file("events.log")))
        defer { try? log.close() }
        let event = { (n: Int) in
            #"{"type":"track","event":"e","anonymousId":"d\#(n)","messageId":"m\#(n)","timestamp":"2026-11-20T08:00:00Z"}"# + "\n"
        }
        // tail -n 0 starts at the end: wait for tail to be following before writing.
        #expect(waitUntil(timeout: 60) { (try? String(contentsOfFile: "/proc/\(sidecar.pid)/comm", encoding: .utf8)) == "sluice\n" })
        #expect(waitUntil(timeout: 60) { FileManager.default.fileExists(atPath: directory.file("sluice.prom")) })
        // tail -n 0 starts at the end: write until a line got through (the first ones may come before tail follows).
        var sent = 0
        #expect(waitUntil(timeout: 60) {
            log.write(Data(event(sent).utf8))
            sent += 1
            return linesIn(metrics: directory.file("sluice.prom")) > 0
        })
        let followed = linesIn(metrics: directory.file("sluice.prom"))
        sidecar.signal(SIGHUP)
        for _ in 0..<10 {
            log.write(Data(event(sent).utf8))
            sent += 1
        }
        #expect(waitUntil(timeout: 60) { linesIn(metrics: directory.file("sluice.prom")) >= followed + 10 })
        sidecar.signal(SIGTERM)
        #expect(sidecar.waitForExit(timeout: 60) == 143, "\(sidecar.stderr)")
        let records = gunzipFiles(directory, under: "out/").flatMap(\.lines)
        let metrics = prometheusSamples(directory.file("sluice.prom"))
        #expect(metrics["sluice_run_exit_code"] == 143)
        #expect(Int(metrics["sluice_lines_in_total"] ?? -1) == records.count, "every line read is in a finished file")
        #expect(records.count >= followed + 10)
        #expect(!directory.files().contains { $0.hasSuffix(".part") })
    }

    /// The sidecar unit's reload, as systemd runs it (`$$` a dollar, `$MAINPID`
    /// the main process) the moment the unit started: it waits until sluice
    /// catches SIGHUP, so a reload right after a restart rotates instead of
    /// ending the sidecar (bash before its exec, or sluice while it loads).
    @Test func theSidecarUnitsReloadRightAfterAStartRotatesNotKills() throws {
        let unit = try text("systemd/sluice-sidecar.service").replacingOccurrences(of: "\\\n", with: "")
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecReload=/bin/sh -c '") })
        let reload = String(line.dropFirst("ExecReload=/bin/sh -c '".count))
        let script = try #require(reload.split(separator: "'", omittingEmptySubsequences: false).first)
            .replacingOccurrences(of: "$$", with: "$")
        #expect(reload.hasSuffix("' reload $MAINPID"), "\(reload)")
        for _ in 0..<5 {
            let directory = TemporaryDirectory()
            directory.write("in.ndjson", #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
            // Started through bash -c 'exec ...' as the unit does; reloaded at once.
            let sidecar = try SluiceProcess(["-c", "exec \"$SLUICE\" run --flush-interval 100ms --metrics m.prom"], in: directory.path,
                                            executable: "/bin/bash")
            let reloaded = Process()
            reloaded.executableURL = URL(fileURLWithPath: "/bin/sh")
            reloaded.arguments = ["-c", script, "reload", "\(sidecar.pid)"]
            try reloaded.run()
            reloaded.waitUntilExit()
            #expect(reloaded.terminationStatus == 0)
            #expect(waitUntil(timeout: 30) { sidecar.stderr.contains("rotating:") }, "\(sidecar.stderr)")
            sidecar.signal(SIGTERM)
            #expect(sidecar.waitForExit(timeout: 30) == 143, "killed by the reload: \(sidecar.stderr)")
        }
    }

    /// The hourly unit's command over the previous hour's log (its name fixed
    /// here, where the unit asks date(1)), with --state, --stats and --metrics.
    @Test func theHourlyUnitsCommandRunsOverThePreviousHoursLog() throws {
        let directory = TemporaryDirectory()
        let command = try bashCommand(ofUnit: "systemd/sluice-hourly.service")
        #expect(command.hasPrefix("hour=$(date -d \"1 hour ago\" +%F-%H); "), "\(command)")
        let moved = command
            .replacingOccurrences(of: "$(date -d \"1 hour ago\" +%F-%H)", with: "2026-11-20-08")
            .replacingOccurrences(of: "/usr/local/bin/sluice", with: SluiceBinary.path)
            .replacingOccurrences(of: "/etc/sluice/cron.yaml", with: repositoryRoot + "/pipelines/cron.yaml")
            .replacingOccurrences(of: "/var/lib/sluice/", with: directory.path + "/")
            .replacingOccurrences(of: "/var/lib/node_exporter/textfile/", with: directory.path + "/")
            .replacingOccurrences(of: "/var/log/app/", with: directory.path + "/")
        let generate = try SluiceBinary.shell("\"$SLUICE\" generate --events 500 --seed 3 | gzip > events-2026-11-20-08.ndjson.gz",
                                              in: directory.path)
        #expect(generate.status == 0)
        let run = try SluiceBinary.shell(moved, in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("stats/2026-11-20-08.json")))) as? [String: Any]
        #expect(stats?["lines_in"] as? Int == 500 && stats?["balanced"] as? Bool == true)
        #expect(FileManager.default.fileExists(atPath: directory.file("app.state")))
        #expect(prometheusSamples(directory.file("sluice-hourly.prom"))["sluice_run_exit_code"] == 0)
    }

    @Test func theContainerFileCopiesWhatTheRepositoryHasAndBuildsTheSluiceProduct() throws {
        let containerfile = try text("container/Containerfile")
        let instructions = containerfile.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n").filter { !$0.hasPrefix("#") }
        let copies = instructions.filter { $0.hasPrefix("COPY ") && !$0.contains("--from=") }
        #expect(copies.count >= 3)
        for copy in copies {
            let sources = copy.split(separator: " ").dropFirst().dropLast()
            for source in sources {
                #expect(FileManager.default.fileExists(atPath: repositoryRoot + "/" + source), "COPY \(source): not in the repository")
            }
        }
        let package = try String(contentsOfFile: repositoryRoot + "/Package.swift", encoding: .utf8)
        #expect(package.contains(".executable(name: \"sluice\""))
        #expect(instructions.contains { $0.contains("swift build -c release --product sluice") })
        #expect(instructions.contains { $0 == #"ENTRYPOINT ["/usr/local/bin/sluice"]"# })
        #expect(instructions.contains { $0.hasPrefix("COPY --from=build /usr/local/bin/sluice /usr/local/bin/sluice") })
    }
}
