import Foundation
import SluiceTestSupport
import Testing

/// `sluice plan typescript` and `sluice plan kotlin`: the generated catalogs
/// against golden files, compiled with `tsc --strict` and `kotlinc`, the loop
/// closed (a program built on the catalog feeds `sluice run` under the same
/// plan: zero violations), and wrong calls that do not compile. The compilers
/// are Debian's `node-typescript` and `kotlin`; without them the compiling
/// tests are skipped, unless `SLUICE_REQUIRE_CATALOG_COMPILERS=1` (CI) makes
/// their absence a failure.
@Suite struct PlanTypeScriptKotlinTests {
    static let golden = PlanSwiftCatalogTests.golden
    static let repository = PlanSwiftCatalogTests.repository
    static let plans = [("pipelines/plan.yaml", "plan"), ("Tests/SluiceCLITests/Catalog/Golden/every-type.yaml", "every-type")]
    static let languages = [("typescript", "ts"), ("kotlin", "kt")]

    static func available(_ tool: String) -> Bool {
        let found = (try? SluiceBinary.shell("command -v \(tool)", in: FileManager.default.currentDirectoryPath))?.status == 0
        if !found && ProcessInfo.processInfo.environment["SLUICE_REQUIRE_CATALOG_COMPILERS"] == "1" {
            Issue.record("\(tool) is not installed (apt-get install node-typescript kotlin)")
        }
        return found
    }

    private func generate(_ language: String, _ pipeline: String, in directory: TemporaryDirectory,
                          extra: [String] = []) throws -> SluiceBinary.Result {
        try SluiceBinary.run(["plan", language, "--pipeline", Self.repository.appendingPathComponent(pipeline).path] + extra,
                             in: directory.path)
    }

    /// `SLUICE_UPDATE_GOLDEN=1 swift test --filter PlanTypeScriptKotlinTests` writes the golden files anew.
    @Test(arguments: plans)
    func eachCatalogIsItsGoldenFileByteForByte(pipeline: String, stem: String) throws {
        for (language, suffix) in Self.languages {
            let directory = TemporaryDirectory()
            let result = try generate(language, pipeline, in: directory)
            #expect(result.status == 0, "\(result.stderr)")
            let file = Self.golden.appendingPathComponent("\(stem).\(suffix).golden")
            if ProcessInfo.processInfo.environment["SLUICE_UPDATE_GOLDEN"] == "1" {
                try result.stdoutText.write(to: file, atomically: true, encoding: .utf8)
            }
            let expected = try String(contentsOf: file, encoding: .utf8)
            #expect(result.stdoutText == expected, "\(language) catalog of \(pipeline) differs from \(file.lastPathComponent)")
        }
    }

    /// The plan with every type compiles with `tsc --strict`; `pipelines/plan.yaml`'s
    /// catalog drives a program whose NDJSON passes the plan; wrong calls do not compile.
    @Test func typeScriptEventsPassThePlanAndAWrongCallDoesNotCompile() throws {
        guard Self.available("tsc") && Self.available("node") else { return }
        let directory = TemporaryDirectory()
        #expect(try generate("typescript", "Tests/SluiceCLITests/Catalog/Golden/every-type.yaml", in: directory,
                             extra: ["--output", "Every.ts"]).status == 0)
        let every = try SluiceBinary.shell("tsc --strict --noEmit Every.ts 2>&1", in: directory.path)
        #expect(every.status == 0, "\(every.stdoutText)")

        #expect(try generate("typescript", "pipelines/plan.yaml", in: directory, extra: ["--output", "AnalyticsEvent.ts"]).status == 0)
        directory.write("main.ts", """
            import { AnalyticsEvent, RecordingAnalyticsEventTracker, trackMessage } from "./AnalyticsEvent";
            const tracker = new RecordingAnalyticsEventTracker();
            tracker.track(AnalyticsEvent.movieTapped({ movie_id: 5, movie_slug: "heat", movie_index: 2 }));
            tracker.track(AnalyticsEvent.movieTapped({ movie_id: 6 }));
            tracker.track(AnalyticsEvent.likeToggled({ liked: true, source: "feed" }));
            tracker.track(AnalyticsEvent.likeToggled());
            tracker.events.forEach((event, index) => {
                const message = trackMessage(event);
                message.anonymousId = "device-1";
                message.messageId = "m-" + index;
                message.timestamp = "2026-11-20T09:00:0" + index + "Z";
                console.log(JSON.stringify(message));
            });
            """)
        let compiled = try SluiceBinary.shell("tsc --strict --target es2017 --module commonjs --outDir js main.ts AnalyticsEvent.ts 2>&1",
                                              in: directory.path)
        #expect(compiled.status == 0, "\(compiled.stdoutText)")
        let plan = Self.repository.appendingPathComponent("pipelines/plan.yaml").path
        let run = try SluiceBinary.shell("node js/main.js | \"$SLUICE\" run --pipeline \(plan) --out out --stats s.json", in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try Self.stats(directory)
        #expect(stats["lines_in"] as? Int == 4)
        #expect(stats["emitted"] as? Int == 4)
        #expect(stats["rejected"] as? Int == 0, "\(run.stderr)")

        for wrong in [#"AnalyticsEvent.movieTapped({ movie_id: "5" })"#, #"AnalyticsEvent.movieTapped({ movie_slug: "heat" })"#,
                      #"AnalyticsEvent.likeToggled({ source: "home" })"#, "AnalyticsEvent.movieTaped({ movie_id: 5 })",
                      "AnalyticsEvent.movieTapped({ movie_id: 5, movie_idx: 2 })"] {
            directory.write("wrong.ts", "import { AnalyticsEvent } from \"./AnalyticsEvent\";\nconsole.log(\(wrong).name);\n")
            let refused = try SluiceBinary.shell("tsc --strict --noEmit wrong.ts 2>&1", in: directory.path)
            #expect(refused.status != 0, "\(wrong) compiled")
            #expect(refused.stdoutText.contains("error TS"), "\(refused.stdoutText)")
        }
    }

    /// The same in Kotlin: `kotlinc` builds the every-type catalog and a program on
    /// `pipelines/plan.yaml`'s whose JSON passes the plan; wrong calls do not compile.
    @Test func kotlinEventsPassThePlanAndAWrongCallDoesNotCompile() throws {
        guard Self.available("kotlinc") && Self.available("java") else { return }
        let directory = TemporaryDirectory()
        #expect(try generate("kotlin", "Tests/SluiceCLITests/Catalog/Golden/every-type.yaml", in: directory,
                             extra: ["--output", "Every.kt", "--package", "com.example.every"]).status == 0)
        #expect(try generate("kotlin", "pipelines/plan.yaml", in: directory, extra: ["--output", "AnalyticsEvent.kt"]).status == 0)
        directory.write("Main.kt", """
            fun main() {
                val tracker = RecordingAnalyticsEventTracker()
                tracker.track(AnalyticsEvent.MovieTapped(movieId = 5, movieSlug = "heat", movieIndex = 2))
                tracker.track(AnalyticsEvent.MovieTapped(6))
                tracker.track(AnalyticsEvent.LikeToggled(liked = true, source = LikeToggledSource.FEED))
                tracker.track(AnalyticsEvent.LikeToggled())
                tracker.events.forEachIndexed { index, event ->
                    val message = LinkedHashMap(event.segmentMessage)
                    message["anonymousId"] = "device-1"
                    message["messageId"] = "m-$index"
                    message["timestamp"] = "2026-11-20T09:00:0${index}Z"
                    println(AnalyticsJSON.encode(message))
                }
            }
            """)
        let compiled = try SluiceBinary.shell("kotlinc -Werror Every.kt AnalyticsEvent.kt Main.kt -include-runtime -d app.jar 2>&1 | grep -v Xverify",
                                              in: directory.path)
        #expect(FileManager.default.fileExists(atPath: directory.file("app.jar")), "\(compiled.stdoutText)")
        let plan = Self.repository.appendingPathComponent("pipelines/plan.yaml").path
        let run = try SluiceBinary.shell("java -jar app.jar | \"$SLUICE\" run --pipeline \(plan) --out out --stats s.json", in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try Self.stats(directory)
        #expect(stats["lines_in"] as? Int == 4)
        #expect(stats["emitted"] as? Int == 4)
        #expect(stats["rejected"] as? Int == 0, "\(run.stderr)")

        // One compile for all the wrong calls: each is an error of its own line.
        directory.write("Wrong.kt", """
            fun wrong() {
                println(AnalyticsEvent.MovieTapped(movieId = "5").name)
                println(AnalyticsEvent.MovieTapped(movieSlug = "heat").name)
                println(AnalyticsEvent.LikeToggled(source = "home").name)
                println(AnalyticsEvent.MovieTaped(movieId = 5).name)
            }
            """)
        let refused = try SluiceBinary.shell("kotlinc AnalyticsEvent.kt Wrong.kt -d wrong.jar 2>&1", in: directory.path)
        #expect(!FileManager.default.fileExists(atPath: directory.file("wrong.jar")))
        for line in 2...5 { #expect(refused.stdoutText.contains("Wrong.kt:\(line):"), "line \(line) compiled: \(refused.stdoutText)") }
    }

    @Test(arguments: ["typescript", "kotlin"])
    func checkExitsOneOnceThePlanChangedSinceTheFileWasGenerated(language: String) throws {
        let directory = TemporaryDirectory()
        let source = try String(contentsOf: Self.repository.appendingPathComponent("pipelines/plan.yaml"), encoding: .utf8)
        directory.write("p.yaml", source)
        #expect(try SluiceBinary.run(["plan", language, "--pipeline", "p.yaml", "--output", "Catalog"], in: directory.path).status == 0)
        let check = { try SluiceBinary.run(["plan", language, "--pipeline", "p.yaml", "--check", "Catalog"], in: directory.path) }
        #expect(try check().status == 0)
        directory.write("p.yaml", source.replacingOccurrences(of: "movie_index: integer", with: "movie_index: number"))
        let stale = try check()
        #expect(stale.status == 1)
        #expect(stale.stderr.contains("Catalog is stale"), "\(stale.stderr)")
        #expect(stale.stderr.contains("sluice plan \(language) --pipeline p.yaml --output Catalog"), "\(stale.stderr)")
    }

    /// `catalogs:` in the plan stage: `sluice validate` passes while the generated files match
    /// the plan, and names each one that is stale or missing once it does not (exit 78).
    @Test func validateSaysWhichCatalogOfThePlanIsStale() throws {
        let directory = TemporaryDirectory()
        let source = try String(contentsOf: Self.repository.appendingPathComponent("pipelines/plan.yaml"), encoding: .utf8)
        let marker = "      unplanned_events: reject"
        #expect(source.contains(marker))
        let withCatalogs = source.replacingOccurrences(of: marker, with: marker + "\n      catalogs: [app/AnalyticsEvent.swift, web/AnalyticsEvent.ts]")
        directory.write("p.yaml", withCatalogs)
        try FileManager.default.createDirectory(atPath: directory.file("app"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("web"), withIntermediateDirectories: true)
        for (language, path) in [("swift", "app/AnalyticsEvent.swift"), ("typescript", "web/AnalyticsEvent.ts")] {
            #expect(try SluiceBinary.run(["plan", language, "--pipeline", "p.yaml", "--output", path], in: directory.path).status == 0)
        }
        let fresh = try SluiceBinary.run(["validate", "p.yaml"], in: directory.path)
        #expect(fresh.status == 0, "\(fresh.stderr)")
        directory.write("p.yaml", withCatalogs.replacingOccurrences(of: "movie_index: integer", with: "movie_index: number"))
        try SluiceBinary.run(["plan", "swift", "--pipeline", "p.yaml", "--output", "app/AnalyticsEvent.swift"], in: directory.path)
        let stale = try SluiceBinary.run(["validate", "p.yaml"], in: directory.path)
        #expect(stale.status == 78)
        #expect(stale.stderr.contains("error: catalog 'web/AnalyticsEvent.ts' is stale: the plan has changed since it was generated; write it again with `sluice plan typescript"), "\(stale.stderr)")
        #expect(!stale.stderr.contains("app/AnalyticsEvent.swift"), "\(stale.stderr)")
        try FileManager.default.removeItem(atPath: directory.file("web/AnalyticsEvent.ts"))
        let missing = try SluiceBinary.run(["validate", "p.yaml"], in: directory.path)
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("catalog 'web/AnalyticsEvent.ts' cannot be read"), "\(missing.stderr)")
    }

    static func stats(_ directory: TemporaryDirectory) throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("s.json"))))) as? [String: Any] ?? [:]
    }
}
