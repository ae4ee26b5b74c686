import Foundation
import ProviderEmulator
import SluiceTestSupport
import Testing

/// `sluice send` of the side outputs: Mixpanel's profiles to `/engage` and
/// groups to `/groups`, Amplitude's groups to `/groupidentify` and user
/// mappings to `/usermap`, each to an emulator of that endpoint, beside the
/// destinations' events.
@Suite struct SendSideOutputsTests {
    static let token = "0123456789abcdef0123456789abcdef"
    static let amplitudeKey = "amplitude-api-key-0123456789"

    /// A run's output with every side output in several files, and an emulator per endpoint.
    struct Fixture {
        let directory = TemporaryDirectory()
        let emulators: [String: ProviderEmulator]

        init(users: Int = 450, extraInput: [String] = [], mixpanelSend: String = "{credentials_env: MIXPANEL_SECRET}",
             mixpanelRotate: Int = 2000, emulatorToken: String = SendSideOutputsTests.token) throws {
            emulators = [
                "mixpanel": try ProviderEmulator(.mixpanel, secret: SendFixture.secret),
                "mixpanel.profiles": try ProviderEmulator(.mixpanelProfiles, secret: emulatorToken),
                "mixpanel.groups": try ProviderEmulator(.mixpanelGroups, secret: emulatorToken),
                "amplitude": try ProviderEmulator(.amplitude, secret: SendSideOutputsTests.amplitudeKey),
                "amplitude.groups": try ProviderEmulator(.amplitudeGroups, secret: SendSideOutputsTests.amplitudeKey),
                "amplitude.user_mappings": try ProviderEmulator(.amplitudeUserMappings, secret: SendSideOutputsTests.amplitudeKey),
            ]
            directory.write("p.yaml", """
                version: 1
                destinations:
                  mixpanel:
                    type: mixpanel
                    token: \(SendSideOutputsTests.token)
                    identity: original
                    group_keys: [company_id]
                    rotate: {max_events: \(mixpanelRotate)}
                    outputs: {groups: {rotate: {max_events: 40}}}
                    send: \(mixpanelSend)
                  amplitude:
                    type: amplitude
                    user_mapping: true
                    outputs: {groups: {rotate: {max_events: 50}}, user_mappings: {rotate: {max_events: 30}}}
                    send: {credentials_env: AMPLITUDE_KEY}

                """)
            var input: [String] = []
            for i in 0..<users {
                let who = #""anonymousId":"dev-\#(i)","userId":"user-\#(i)""#
                let time = String(format: "2026-11-20T08:%02d:%02dZ", (i / 60) % 60, i % 60)
                input.append(#"{"type":"identify",\#(who),"messageId":"i-\#(i)","timestamp":"\#(time)","traits":{"plan":"p\#(i % 3)","n":\#(i)}}"#)
                if i % 3 == 0 {
                    input.append(#"{"type":"group",\#(who),"groupId":"g-\#(i)","messageId":"g-\#(i)","timestamp":"\#(time)","traits":{"company_id":"c\#(i)","name":"Company \#(i)"}}"#)
                }
                if i % 5 == 0 {
                    input.append(#"{"type":"alias","previousId":"guest-\#(i)","userId":"user-\#(i)","messageId":"a-\#(i)","timestamp":"\#(time)"}"#)
                }
                input.append(#"{"type":"track","event":"movie_tapped",\#(who),"messageId":"t-\#(i)","timestamp":"\#(time)","properties":{"movie_id":\#(i)}}"#)
            }
            directory.write("in.ndjson", (input + extraInput).joined(separator: "\n") + "\n")
            let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--out", "out", "in.ndjson"], in: directory.path)
            #expect(run.status == 0, "\(run.stderr)")
        }

        /// The lines of an output's files, wherever they are now (under out/ or out/sent/), canonical JSON.
        func lines(_ folder: String) -> [String] {
            (gunzipFiles(directory, under: "out/\(folder)/") + gunzipFiles(directory, under: "out/sent/\(folder)/"))
                .flatMap(\.lines).map { canonical(String(decoding: $0, as: UTF8.self)) }
        }

        func send(_ extra: [String] = [], amplitudeKey: String = SendSideOutputsTests.amplitudeKey) throws -> SluiceBinary.Result {
            let endpoints = emulators.sorted { $0.key < $1.key }.flatMap { ["--endpoint", "\($0.key)=\($0.value.url)"] }
            return try SluiceBinary.run(["send", "--pipeline", "p.yaml"] + endpoints + extra + ["out"], in: directory.path,
                                        environment: ["MIXPANEL_SECRET": SendFixture.secret, "AMPLITUDE_KEY": amplitudeKey])
        }

        func stats(_ name: String) -> [String: Any] {
            let data = FileManager.default.contents(atPath: directory.file("stats.json")) ?? Data()
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            return ((object?["destinations"] as? [String: Any])?[name] as? [String: Any]) ?? [:]
        }
    }

    static func canonical(_ line: String) -> String {
        let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) ?? [:]
        return String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }

    @Test func everySideOutputReachesItsEndpointOnceInTheDocumentedShape() throws {
        let fixture = try Fixture()
        let sets = ["mixpanel.profiles": "mixpanel/profiles", "mixpanel.groups": "mixpanel/groups",
                    "amplitude.groups": "amplitude/groups", "amplitude.user_mappings": "amplitude/user_mappings"]
        var expected: [String: [String]] = [:]
        for (name, folder) in sets {
            expected[name] = fixture.lines(folder)
            #expect(gunzipFiles(fixture.directory, under: "out/\(folder)/").count >= 3, "\(name) is in several files")
        }
        #expect(expected["mixpanel.profiles"]?.count == 450 + 150)  // a $set per identify, a $union per group
        #expect(expected["amplitude.user_mappings"]?.count == 90)
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        for (name, lines) in expected {
            let emulator = try #require(fixture.emulators[name])
            #expect(emulator.imported.map(\.line).sorted() == lines.sorted(), "\(name)")
            #expect(emulator.statuses.allSatisfy { $0 == 200 }, "\(name)")
            #expect(fixture.stats(name)["sent"] as? Int == lines.count, "\(name)")
            #expect(gunzipFiles(fixture.directory, under: "out/\(sets[name]!)/").isEmpty, "\(name): every file moved to sent/")
            #expect(FileManager.default.fileExists(atPath: fixture.directory.file("out/.sluice-send/\(name).ledger")))
        }
        // The events went to their own endpoints, as before.
        #expect(fixture.emulators["mixpanel"]!.imported.count == fixture.lines("mixpanel/2026-11-20").count)
        #expect(fixture.emulators["amplitude"]!.imported.count == fixture.lines("amplitude/2026-11-20").count)
        // /engage and /groups carry no credentials: the token is in each update.
        #expect(fixture.emulators["mixpanel.profiles"]!.authorizations.allSatisfy { $0.isEmpty })
        #expect(!result.stderr.contains(SendFixture.secret) && !result.stderr.contains(SendSideOutputsTests.amplitudeKey))

        // A rerun has nothing left to send.
        let again = try fixture.send()
        #expect(again.status == 0, "\(again.stderr)")
        #expect(fixture.emulators["mixpanel.profiles"]!.imported.count == expected["mixpanel.profiles"]!.count)
    }

    @Test func aBatchMixpanelAnswersStatusZeroToGoesToSendRejectsWholeWithItsError() throws {
        // One group whose traits Mixpanel refuses (the emulator refuses `emulator_refuse`), in the hour of 30
        // others: their file, one request, is refused whole, each update with Mixpanel's error; the next hour's is sent.
        let bad = #"{"type":"group","anonymousId":"dev-x","userId":"user-x","groupId":"g-x","messageId":"g-x","timestamp":"2026-11-20T08:00:30Z","traits":{"company_id":"cx","emulator_refuse":true}}"#
        let later = #"{"type":"group","anonymousId":"dev-y","userId":"user-y","groupId":"g-y","messageId":"g-y","timestamp":"2026-11-20T09:00:00Z","traits":{"company_id":"cy"}}"#
        let fixture = try Fixture(users: 90, extraInput: [bad, later])
        #expect(fixture.lines("mixpanel/groups").count == 32)
        #expect(gunzipFiles(fixture.directory, under: "out/mixpanel/groups/").map { $0.lines.count }.sorted() == [1, 31])
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        let rejects = gunzipFiles(fixture.directory, under: "out/send-rejects/mixpanel.groups/").flatMap(\.lines)
            .map { String(decoding: $0, as: UTF8.self) }
        #expect(rejects.count == 31)
        #expect(rejects.allSatisfy { $0.contains("\"status\":200") && $0.contains("\"reason\":\"$set: emulator_refuse is refused\"") })
        #expect(fixture.emulators["mixpanel.groups"]!.imported.count == 1)
        #expect(fixture.stats("mixpanel.groups")["refused"] as? Int == 31)
        #expect(fixture.stats("mixpanel.groups")["sent"] as? Int == 1)
    }

    @Test func anErrorAboutTheProjectTokenStopsWithExit77AndMarksNothingSent() throws {
        let fixture = try Fixture(users: 60, emulatorToken: "another-project-token-000000000")
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 77, "\(result.stderr)")
        #expect(result.stderr.contains("mixpanel.profiles: the provider refused the credentials"), "\(result.stderr)")
        #expect(fixture.emulators["mixpanel.profiles"]!.imported.isEmpty)
        #expect(gunzipFiles(fixture.directory, under: "out/send-rejects/mixpanel.profiles/").isEmpty)
        #expect(!gunzipFiles(fixture.directory, under: "out/mixpanel/profiles/").isEmpty)
    }

    @Test func aSideOutputIsSentOneRequestAtATimeInFileOrderWhateverTheConcurrency() throws {
        let fixture = try Fixture(mixpanelSend: "{credentials_env: MIXPANEL_SECRET, concurrency: 4}", mixpanelRotate: 100)
        for name in ["mixpanel", "mixpanel.profiles"] { fixture.emulators[name]!.delayEveryRequest(milliseconds: 30) }
        let inFileOrder = gunzipFiles(fixture.directory, under: "out/mixpanel/profiles/").sorted { $0.file < $1.file }
            .flatMap(\.lines).map { SendSideOutputsTests.canonical(String(decoding: $0, as: UTF8.self)) }
        #expect(inFileOrder.count == 600)
        let result = try fixture.send()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulators["mixpanel.profiles"]!.imported.map(\.line) == inFileOrder)
        #expect(fixture.emulators["mixpanel.profiles"]!.maxInFlight == 1)
        #expect(fixture.emulators["mixpanel"]!.maxInFlight > 1, "the events' requests go side by side")
    }

    @Test func amplitudesGroupIdentifyRefusingTheKeyExits77WithNothingMarkedSent() throws {
        let fixture = try Fixture(users: 60)
        let result = try fixture.send(["--stats", "stats.json"], amplitudeKey: "a-wrong-key-9876543210")
        #expect(result.status == 77, "\(result.stderr)")
        #expect(result.stderr.contains("amplitude.groups: the provider refused the credentials"))
        #expect(!result.stderr.contains("a-wrong-key-9876543210"))
        #expect(fixture.emulators["amplitude.groups"]!.imported.isEmpty)
        let ledger = (try? String(contentsOfFile: fixture.directory.file("out/.sluice-send/amplitude.groups.ledger"),
                                  encoding: .utf8)) ?? ""
        #expect(!ledger.contains("ack"))
        #expect(!gunzipFiles(fixture.directory, under: "out/amplitude/groups/").isEmpty)
    }

    @Test func aDestinationsRateLimitHoldsForItsSideOutputsToo() throws {
        let fixture = try Fixture(users: 300, mixpanelSend: "{credentials_env: MIXPANEL_SECRET, max_requests_per_second: 10}",
                                  mixpanelRotate: 150)
        let result = try fixture.send()
        #expect(result.status == 0, "\(result.stderr)")
        let starts = ["mixpanel", "mixpanel.profiles", "mixpanel.groups"].flatMap { fixture.emulators[$0]!.arrivals }.sorted()
        #expect(starts.count >= 6)
        // Ten a second for the destination as a whole: the request n places after another starts at least n
        // intervals (100 ms each) after it. Arrivals are read at the emulator, where a request can come a
        // scheduling delay late on a busy machine: 150 ms of that is allowed, so pairs next to each other say
        // nothing, and the spans across several requests (without the limit, all arrive within milliseconds) do.
        var tooClose: [String] = []
        for first in starts.indices {
            for later in starts.indices where later > first {
                let span = Double(starts[later] - starts[first]) / 1e6
                if span < Double(later - first) * 100 - 150 { tooClose.append("\(first)-\(later): \(span) ms") }
            }
        }
        #expect(tooClose.isEmpty, "spans under the limit: \(tooClose)")
    }

    @Test func aDestinationWritingItsEventsToStdoutHasItsSideOutputsSent() throws {
        let directory = TemporaryDirectory()
        let profiles = try ProviderEmulator(.mixpanelProfiles, secret: Self.token)
        directory.write("p.yaml", """
            version: 1
            destinations:
              mixpanel: {type: mixpanel, path: "-", token: \(Self.token), send: {credentials_env: MIXPANEL_SECRET}}

            """)
        directory.write("in.ndjson", (0..<5).map {
            #"{"type":"identify","userId":"user-\#($0)","messageId":"i-\#($0)","timestamp":"2026-11-20T08:00:00Z","traits":{"plan":"pro"}}"#
        }.joined(separator: "\n") + "\n")
        let run = try SluiceBinary.shell("$SLUICE run --pipeline p.yaml --out out in.ndjson > /dev/null", in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let result = try SluiceBinary.run(["send", "--pipeline", "p.yaml", "--endpoint", "mixpanel.profiles=\(profiles.url)", "out"],
                                          in: directory.path, environment: ["MIXPANEL_SECRET": SendFixture.secret])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(profiles.imported.count == 5)
    }

    @Test func aSideOutputWithAnAbsolutePathIsRefused() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
            version: 1
            destinations:
              mixpanel:
                type: mixpanel
                token: \(Self.token)
                outputs: {profiles: {path: "\(directory.path)/engage/{seq}.ndjson.gz"}}
                send: {credentials_env: MIXPANEL_SECRET}

            """)
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: true)
        let result = try SluiceBinary.run(["send", "--pipeline", "p.yaml", "--dry-run", "out"], in: directory.path)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("its paths must be relative templates"), "\(result.stderr)")
    }

    @Test func dryRunListsTheSideOutputsRequestsToTheirEndpoints() throws {
        let fixture = try Fixture(users: 60)
        let result = try SluiceBinary.run(["send", "--pipeline", "p.yaml", "--dry-run", "out"], in: fixture.directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("mixpanel.profiles POST https://api.mixpanel.com/engage mixpanel/profiles/"))
        #expect(result.stdoutText.contains("mixpanel.groups POST https://api.mixpanel.com/groups mixpanel/groups/"))
        #expect(result.stdoutText.contains("amplitude.groups POST https://api2.amplitude.com/groupidentify amplitude/groups/"))
        #expect(result.stdoutText.contains("amplitude.user_mappings POST https://api.amplitude.com/usermap amplitude/user_mappings/"))
        #expect(fixture.emulators.values.allSatisfy { $0.requests == 0 })
    }
}
