import Foundation
import SluiceTestSupport
import Testing

/// `sluice run` typed at a prompt: stdin is a terminal (a pseudo-terminal
/// here, driven by Python's `pty`), a hint says how to end the input, and the
/// first Ctrl-D ends it, after a whole line or in the middle of one.
@Suite struct TerminalInputTests {
    /// Starts `sluice run` on a pty, waits for the hint, types `typed`, then
    /// one Ctrl-D once the terminal has echoed what was typed, and waits for the
    /// exit (exit status 124 if one Ctrl-D did not end the run within 60 s).
    static let driver = #"""
    import os, pty, select, sys, time
    sluice, typed = sys.argv[1], sys.argv[2].encode()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sluice, [sluice, "run", "--no-progress", "--stats", "stats.json"])
    seen = b""
    def read_until(needle, deadline):
        global seen
        while needle not in seen and time.time() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    seen += os.read(fd, 4096)
                except OSError:
                    return
    read_until(b"Ctrl-D", time.time() + 60)
    os.write(fd, typed)
    read_until(typed.rstrip(b"\n").split(b"\n")[-1], time.time() + 60)
    os.write(fd, b"\x04")
    deadline = time.time() + 60
    while time.time() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            read_until(b"\0", time.time() + 0.2)
            sys.stderr.buffer.write(seen)
            sys.exit(os.waitstatus_to_exitcode(status))
        read_until(b"\0", time.time() + 0.1)
    os.kill(pid, 9)
    sys.stderr.buffer.write(seen)
    sys.exit(124)
    """#

    static let event = #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#

    @Test(arguments: [("", 0), (event + "\n", 1), (event, 1), (event + "\n" + event, 2)])
    func oneCtrlDAtATerminalEndsTheInputAfterAHint(_ typed: String, _ lines: Int) throws {
        let directory = TemporaryDirectory()
        directory.write("drive.py", Self.driver)
        let result = try SluiceBinary.shell("python3 drive.py \"$SLUICE\" \"$TYPED\"", in: directory.path,
                                            environment: ["TYPED": typed])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)")
        #expect(result.stderr.contains("reading events from the terminal (stdin): paste NDJSON lines, then press Ctrl-D to end"),
                "\(result.stderr)")
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("stats.json")))) as? [String: Any]
        #expect(stats?["lines_in"] as? Int == lines)
        #expect(stats?["emitted"] as? Int == lines, "every typed line is whole: \(stats ?? [:])")
    }

    @Test func noHintWhenStdinIsNotATerminal() throws {
        let directory = TemporaryDirectory()
        let result = try SluiceBinary.run(["run"], in: directory.path)
        #expect(result.status == 0)
        #expect(!result.stderr.contains("Ctrl-D"), "\(result.stderr)")
    }
}
