import Foundation
import ProviderEmulator
import SluiceTestSupport
import Testing

/// A run's output and the emulator `sluice send` delivers it to: the pieces
/// the send tests share.
struct SendFixture {
    static let secret = "s3cr3t-project-secret-0123456789abcdef"
    let directory = TemporaryDirectory()
    let emulator: ProviderEmulator
    /// The destination's name and type.
    let dest: String

    /// `events` generated events run through a pipeline with one destination of
    /// the emulator's provider (files of `maxEvents` records) whose `send:` block is `send`.
    init(_ provider: ProviderEmulator.Provider = .mixpanel, events: Int, maxEvents: Int? = nil,
         send: String = "{credentials_env: MIXPANEL_SECRET}", emulatorSecret: String = SendFixture.secret,
         maxRecords: Int? = nil, extraInput: [String] = [], destinationKeys: String = "") throws {
        emulator = try ProviderEmulator(provider, secret: emulatorSecret, maxRecords: maxRecords)
        dest = "\(provider)"
        directory.write("p.yaml", """
            version: 1
            destinations:
              \(dest):
                type: \(dest)
            \(maxEvents.map { "    rotate: {max_events: \($0)}\n" } ?? "")\(destinationKeys)    send: \(send)

            """)
        // GA4 takes events of the last 72 hours only (`sluice send` refuses older ones): its events are of now.
        let start = provider == .ga4
            ? " --start " + ISO8601DateFormatter().string(from: Date(timeIntervalSinceNow: -7200)) : ""
        let generated = try SluiceBinary.shell("$SLUICE generate --events \(events) --duplicates 0 --malformed 0 --seed 11\(start) > in.ndjson",
                                               in: directory.path)
        #expect(generated.status == 0)
        if !extraInput.isEmpty {
            let handle = FileHandle(forWritingAtPath: directory.file("in.ndjson"))!
            handle.seekToEndOfFile()
            handle.write(Data((extraInput.joined(separator: "\n") + "\n").utf8))
            try handle.close()
        }
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--out", "out", "in.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// Every record of the run's files, wherever they are now (out/NAME, out/sent/NAME).
    func records() -> [String] {
        (gunzipFiles(directory, under: "out/\(dest)/") + gunzipFiles(directory, under: "out/sent/\(dest)/"))
            .flatMap(\.lines).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The insert ids (Segment: message ids) of `records()`.
    func recordIDs() -> [String] { records().map(insertID) }

    /// The files still waiting under out/NAME.
    func waiting() -> [String] { gunzipFiles(directory, under: "out/\(dest)/").map(\.file) }

    func send(_ extra: [String] = [], secret: String = SendFixture.secret) throws -> SluiceBinary.Result {
        try SluiceBinary.run(["send", "--pipeline", "p.yaml", "--endpoint", "\(dest)=\(emulator.url)"] + extra + ["out"],
                             in: directory.path, environment: ["MIXPANEL_SECRET": secret])
    }

    func start(_ extra: [String] = []) throws -> SluiceProcess {
        try SluiceProcess(["send", "--pipeline", "p.yaml", "--endpoint", "\(dest)=\(emulator.url)"] + extra + ["out"],
                          in: directory.path, environment: ["MIXPANEL_SECRET": SendFixture.secret])
    }

    /// The ledger's lines.
    func ledger() -> [String] {
        let text = (try? String(contentsOfFile: directory.file("out/.sluice-send/\(dest).ledger"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The `--stats` file's destination counts.
    func stats(_ name: String = "stats.json") -> [String: Any] {
        let data = FileManager.default.contents(atPath: directory.file(name)) ?? Data()
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        return ((object?["destinations"] as? [String: Any])?[dest] as? [String: Any]) ?? [:]
    }
}

/// The insert id of a record: Mixpanel's `properties.$insert_id`, Amplitude's `insert_id`, Segment's `messageId`.
func insertID(_ line: String) -> String {
    let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    return (object?["properties"] as? [String: Any])?["$insert_id"] as? String
        ?? object?["insert_id"] as? String ?? object?["messageId"] as? String ?? ""
}
