import Foundation
import SluiceTestSupport
import Testing

/// `sluice plan swift`: the generated catalog against golden files, compiled
/// with `swiftc` in Swift 5 and Swift 6 modes with warnings as errors, the loop
/// closed (a program built on the catalog feeds `sluice run` under the same
/// plan: zero violations), and a wrong call that does not compile.
@Suite struct PlanSwiftCatalogTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The plans with golden catalogs: `pipelines/plan.yaml` and one with every type, keywords and collisions.
    static let plans = [("pipelines/plan.yaml", "plan.swift.golden"), ("Tests/SluiceCLITests/Catalog/Golden/every-type.yaml", "every-type.swift.golden")]

    private func generate(_ pipeline: String, in directory: TemporaryDirectory, extra: [String] = []) throws -> SluiceBinary.Result {
        try SluiceBinary.run(["plan", "swift", "--pipeline", Self.repository.appendingPathComponent(pipeline).path] + extra, in: directory.path)
    }

    /// `swiftc` on `files` in `directory`; its status and output.
    private func swiftc(_ arguments: [String], in directory: TemporaryDirectory) throws -> SluiceBinary.Result {
        try SluiceBinary.shell("swiftc " + arguments.joined(separator: " ") + " 2>&1", in: directory.path)
    }

    /// `SLUICE_UPDATE_GOLDEN=1 swift test --filter PlanSwiftCatalogTests` writes the golden files anew.
    @Test(arguments: plans)
    func theCatalogIsTheGoldenFileByteForByte(pipeline: String, golden: String) throws {
        let directory = TemporaryDirectory()
        let result = try generate(pipeline, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let path = Self.golden.appendingPathComponent(golden).path
        if ProcessInfo.processInfo.environment["SLUICE_UPDATE_GOLDEN"] == "1" {
            try Data(result.stdout).write(to: URL(fileURLWithPath: path))
        }
        let expected = FileManager.default.contents(atPath: path).map { Array($0) } ?? []
        #expect(result.stdout == expected, "the catalog of \(pipeline) differs from \(golden)")
        // The same plan gives the same bytes.
        #expect(try generate(pipeline, in: directory).stdout == result.stdout)
    }

    @Test func everyTypeCompilesWarningFreeInSwift5And6AndItsMessagesAreThePlansJSON() throws {
        let directory = TemporaryDirectory()
        let catalog = try generate(Self.plans[1].0, in: directory, extra: ["--output", "AnalyticsEvent.swift"])
        #expect(catalog.status == 0, "\(catalog.stderr)")
        directory.write("main.swift", """
            import Foundation
            let tracker = RecordingAnalyticsEventTracker()
            tracker.track(.orderCompleted(orderId: "o1", total: 9.5, coupon: nil, currency: .inApp, paidAt: Date(timeIntervalSince1970: 0),
                                          cart: ["a": .integer(1)], tags: [.string("x")], tier: .number2, ratio: .number0_5, gift: true))
            tracker.track(.default(in: "x", self_: 1, class: true))
            tracker.track(._9lives)
            tracker.track(.movieTapped(movieId: 1, movieId2: 2))
            tracker.track(.movieTapped2)
            tracker.track(.name2)
            tracker.screen(.movieDetail(movieId: 3))
            tracker.identify(userId: "u", traits: AnalyticsTraits(plan: .pro, createdAt: Date(timeIntervalSince1970: 1)))
            for event in tracker.events { print(String(decoding: event.segmentJSON, as: UTF8.self)) }
            print(String(decoding: tracker.screens[0].segmentJSON, as: UTF8.self))
            let identify = tracker.identifies[0]
            print(String(decoding: try! JSONSerialization.data(withJSONObject: identify.traits.segmentMessage(userId: identify.userId),
                                                                 options: [.sortedKeys]), as: UTF8.self))
            """)
        for mode in ["5", "6"] {
            let compiled = try swiftc(["-swift-version", mode, "-warnings-as-errors", "AnalyticsEvent.swift", "main.swift", "-o", "app\(mode)"],
                                      in: directory)
            #expect(compiled.status == 0, "Swift \(mode): \(compiled.stdoutText)")
        }
        let ran = try SluiceBinary.shell("./app6", in: directory.path)
        #expect(ran.status == 0)
        // Compared as JSON: how `.sortedKeys` orders `movieId` and `movie_id` is Foundation's own.
        let parse = { (text: String) in
            text.split(separator: "\n").map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? NSDictionary }
        }
        #expect(parse(ran.stdoutText) == parse("""
            {"event":"Order Completed","properties":{"cart":{"a":1},"coupon":null,"currency":"in-app","gift":true,"order_id":"o1","paid_at":"1970-01-01T00:00:00.000Z","ratio":0.5,"tags":["x"],"tier":2,"total":9.5},"type":"track"}
            {"event":"default","properties":{"class":true,"in":"x","self":1},"type":"track"}
            {"event":"9lives","properties":{},"type":"track"}
            {"event":"movie_tapped","properties":{"movieId":2,"movie_id":1},"type":"track"}
            {"event":"movie-tapped","properties":{},"type":"track"}
            {"event":"name","properties":{},"type":"track"}
            {"name":"Movie Detail","properties":{"movie_id":3},"type":"screen"}
            {"traits":{"created_at":"1970-01-01T00:00:01.000Z","plan":"pro"},"type":"identify","userId":"u"}
            """), "\(ran.stdoutText)")
    }

    /// The loop closed: a program that tracks one of each event through the catalog of
    /// `pipelines/plan.yaml`, its Segment NDJSON piped into `sluice run` under that plan:
    /// nothing rejected, every event delivered. A wrong call does not compile.
    @Test func eventsMadeThroughTheCatalogPassThePlanAndAWrongCallDoesNotCompile() throws {
        let directory = TemporaryDirectory()
        let catalog = try generate("pipelines/plan.yaml", in: directory, extra: ["--output", "AnalyticsEvent.swift"])
        #expect(catalog.status == 0, "\(catalog.stderr)")
        let emitter = """
            import Foundation
            let events: [AnalyticsEvent] = [.movieTapped(movieId: 5, movieSlug: "heat", movieIndex: 2), .movieTapped(movieId: 6),
                                            .likeToggled(liked: true, source: .feed), .likeToggled(liked: false, source: .detail)]
            for (index, event) in events.enumerated() {
                var message = event.segmentMessage
                message["anonymousId"] = "device-1"
                message["messageId"] = "m-\\(index)"
                message["timestamp"] = "2026-11-20T09:00:0\\(index)Z"
                message["context"] = ["device": ["appInstanceId": "5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f"]]
                let line = try! JSONSerialization.data(withJSONObject: message, options: [.sortedKeys])
                print(String(decoding: line, as: UTF8.self))
            }
            """
        directory.write("main.swift", emitter)
        let compiled = try swiftc(["-swift-version", "6", "-warnings-as-errors", "AnalyticsEvent.swift", "main.swift", "-o", "emit"], in: directory)
        #expect(compiled.status == 0, "\(compiled.stdoutText)")
        let plan = Self.repository.appendingPathComponent("pipelines/plan.yaml").path
        let run = try SluiceBinary.shell("./emit | \"$SLUICE\" run --pipeline \(plan) --out out --stats s.json", in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("s.json"))))) as? [String: Any]
        #expect(stats?["lines_in"] as? Int == 4)
        #expect(stats?["emitted"] as? Int == 4)
        #expect(stats?["rejected"] as? Int == 0, "\(run.stderr)")

        for wrong in [".movieTapped(movieId: \"5\")", ".movieTapped(movieSlug: \"heat\")", ".likeToggled(source: .home)", ".movieTaped(movieId: 5)"] {
            directory.write("main.swift", "let event: AnalyticsEvent = \(wrong)\nprint(event.name)\n")
            let refused = try swiftc(["-swift-version", "6", "AnalyticsEvent.swift", "main.swift", "-o", "wrong"], in: directory)
            #expect(refused.status != 0, "\(wrong) compiled")
            #expect(refused.stdoutText.contains("error:"), "\(refused.stdoutText)")
        }
    }

    /// `--check`: 0 for a catalog of the plan as it is, 1 once the plan changed (or for a file
    /// that is not a catalog); a comment in the plan file changes nothing.
    @Test func checkExitsOneOnceThePlanChangedSinceTheFileWasGenerated() throws {
        let directory = TemporaryDirectory()
        let source = try String(contentsOf: Self.repository.appendingPathComponent("pipelines/plan.yaml"), encoding: .utf8)
        directory.write("p.yaml", source)
        let written = try SluiceBinary.run(["plan", "swift", "--pipeline", "p.yaml", "--output", "Catalog.swift"], in: directory.path)
        #expect(written.status == 0, "\(written.stderr)")
        let check = { try SluiceBinary.run(["plan", "swift", "--pipeline", "p.yaml", "--check", "Catalog.swift"], in: directory.path) }
        #expect(try check().status == 0)
        directory.write("p.yaml", "# a comment changes nothing\n" + source)
        #expect(try check().status == 0)
        directory.write("p.yaml", source.replacingOccurrences(of: "movie_index: integer", with: "movie_index: number"))
        let stale = try check()
        #expect(stale.status == 1)
        #expect(stale.stderr.contains("Catalog.swift is stale"), "\(stale.stderr)")
        directory.write("Other.swift", "struct Other {}\n")
        let other = try SluiceBinary.run(["plan", "swift", "--pipeline", "p.yaml", "--check", "Other.swift"], in: directory.path)
        #expect(other.status == 1)
        let noPlan = directory.write("none.yaml", "version: 1\ndestinations: {archive: {type: ndjson}}\n")
        let without = try SluiceBinary.run(["plan", "swift", "--pipeline", noPlan], in: directory.path)
        #expect(without.status == 78)
        #expect(without.stderr.contains("has no plan stage"))
    }
}
