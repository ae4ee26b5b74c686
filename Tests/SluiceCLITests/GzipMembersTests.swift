import Foundation
import ProviderEmulator
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: how the output files are cut into gzip members (libdeflate
/// compresses a member in one piece), and that every reader reads them whole.
@Suite struct GzipMembersTests {
    private func read(_ directory: TemporaryDirectory, _ file: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: directory.file(file)) ?? Data())
    }

    private func files(_ directory: TemporaryDirectory, under prefix: String) -> [String] {
        directory.files().filter { $0.hasPrefix(prefix) && $0.hasSuffix(".ndjson.gz") }.sorted()
    }

    private var hasPython: Bool { (try? SluiceBinary.shell("command -v python3", in: "/tmp").status) == 0 }

    @Test func providerFilesAreOneMemberAndTheArchiveAMemberPerBlockThatEveryReaderReadsWhole() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
            version: 1
            destinations:
              mixpanel: {type: mixpanel}
              archive: {type: ndjson, path: "archive/archive-{seq}.ndjson.gz"}

            """)
        // Read as it comes (`--order window`): the archive holds the input's lines in its order.
        let run = try SluiceBinary.shell("""
            $SLUICE generate --events 12000 --seed 4 --late 0 --duplicates 0 --malformed 0 > in.ndjson && \
            $SLUICE run --flush-interval 1h --order window --pipeline p.yaml --out out in.ndjson && \
            gzip -t out/mixpanel/*/*.gz out/archive/*.gz
            """, in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let input = read(directory, "in.ndjson")

        // Mixpanel's files (2,000 records, one `/import` request each): one member, all of the file.
        let mixpanel = files(directory, under: "out/mixpanel/")
        #expect(mixpanel.count >= 6)
        for file in mixpanel {
            let bytes = read(directory, file)
            let first = try #require(TestGzip.firstMember(bytes), "\(file)")
            #expect(first.isWhole, "\(file) is more than one gzip member")
            #expect(ndjsonLines(first.data).count == 2000 || file == mixpanel.last)
        }

        // The archive: members of about 1 MiB of records each, every one ending after a record.
        let archive = files(directory, under: "out/archive/")
        var archived: [UInt8] = []
        var memberCount = 0
        for file in archive {
            let members = try #require(TestGzip.members(read(directory, file)))
            #expect(members.allSatisfy { $0.last == 10 && $0.count <= 1 << 20 })
            archived += members.joined()
            memberCount += members.count
        }
        #expect(archive.count == 1)
        #expect(memberCount > 3)
        #expect(sameBytes(archived, input))

        // zcat, and sluice itself reading the archive back as input (its default archive is per hour: compared sorted).
        let zcat = try SluiceBinary.shell("""
            zcat out/archive/*.gz | cmp - in.ndjson && $SLUICE run --out again out/archive/*.gz && \
            sort in.ndjson > sorted && zcat again/archive/*/*.gz | sort | cmp - sorted
            """, in: directory.path)
        #expect(zcat.status == 0, "\(zcat.stdoutText)\(zcat.stderr)")

        // Python: the gzip module reads every member; zlib.decompress(data, 31), which reads only the first, gets a whole Mixpanel file.
        if hasPython {
            directory.write("check.py", """
                import glob, gzip, sys, zlib
                archive = b"".join(gzip.open(f).read() for f in sorted(glob.glob("out/archive/*.gz")))
                assert archive == open("in.ndjson", "rb").read(), "gzip module: archive differs"
                for f in glob.glob("out/mixpanel/*/*.gz"):
                    data = open(f, "rb").read()
                    d = zlib.decompressobj(31)
                    first = d.decompress(data)
                    assert d.eof and d.unused_data == b"", f + ": more than one member"
                    assert first == gzip.decompress(data), f
                print("ok")
                """)
            let python = try SluiceBinary.shell("python3 check.py", in: directory.path)
            #expect(python.status == 0 && python.stdoutText == "ok\n", "\(python.stdoutText)\(python.stderr)")
        }
    }

    @Test func gzipMembersSwitchesBetweenOneMemberPerFileAndAMemberPerBlock() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
            version: 1
            destinations:
              archive: {type: ndjson, gzip_members: file}
              mixpanel: {type: mixpanel, gzip_members: blocks, rotate: {max_events: 100000, max_bytes: 64MiB}}

            """)
        let run = try SluiceBinary.shell("""
            $SLUICE generate --events 8000 --seed 6 --late 0 --duplicates 0 --malformed 0 > in.ndjson && \
            $SLUICE run --flush-interval 1h --order window --pipeline p.yaml --out out in.ndjson
            """, in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let archive = files(directory, under: "out/archive/")
        #expect(archive.count == 1)
        let first = try #require(TestGzip.firstMember(read(directory, archive[0])))
        #expect(first.isWhole)
        #expect(sameBytes(first.data, read(directory, "in.ndjson")))
        let mixpanel = files(directory, under: "out/mixpanel/")
        #expect(mixpanel.count == 1)
        let members = try #require(TestGzip.members(read(directory, mixpanel[0])))
        #expect(members.count > 1)
        #expect(members.allSatisfy { $0.last == 10 })
    }

    @Test func gzipLevelTakesLibdeflatesZeroToTwelve() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 3000 --seed 8 --malformed 0 > in.ndjson", in: directory.path)
        #expect(generated.status == 0)
        var sizes: [Int: Int] = [:]
        for level in [0, 1, 6, 12] {
            directory.write("l\(level).yaml", "version: 1\ndestinations:\n  archive: {type: ndjson, gzip_level: \(level)}\n")
            let run = try SluiceBinary.run(["run", "--order", "window", "--pipeline", "l\(level).yaml", "--out", "o\(level)", "in.ndjson"],
                                           in: directory.path)
            #expect(run.status == 0, "\(run.stderr)")
            let file = try #require(files(directory, under: "o\(level)/archive/").first)
            let bytes = read(directory, file)
            #expect(sameBytes(TestGzip.decompress(bytes), read(directory, "in.ndjson")))
            sizes[level] = bytes.count
        }
        #expect(sizes[0]! > sizes[1]! && sizes[1]! > sizes[6]! && sizes[6]! > sizes[12]!, "\(sizes)")
        directory.write("l13.yaml", "version: 1\ndestinations:\n  archive: {type: ndjson, gzip_level: 13}\n")
        let refused = try SluiceBinary.run(["validate", "l13.yaml"], in: directory.path)
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("gzip_level"), "\(refused.stderr)")
    }

    @Test func aFileSendUploadsWholeIsOneGzipMemberEvenWhenAFlushEndedAMemberInIt() throws {
        // A pause longer than the flush interval in the middle of a file: the file is two members on
        // disk. The emulator, like Python's zlib.decompress(body, 31), reads only a body's first member.
        let fixture = try SendFixture(.mixpanel, events: 1500)
        let rerun = try SluiceBinary.shell("""
            rm -rf out && ( head -n 700 in.ndjson; sleep 1; tail -n +701 in.ndjson ) | \
            $SLUICE run --flush-interval 100ms --pipeline p.yaml --out out
            """, in: fixture.directory.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let files = fixture.waiting()
        #expect(files.count == 1)
        #expect((TestGzip.members(read(fixture.directory, files[0]))?.count ?? 0) > 1, "the flush ended no member")
        let ids = fixture.recordIDs()
        #expect(ids.count > 1000)
        let result = try fixture.send()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.imported.map(\.insertID).sorted() == ids.sorted())
        #expect(fixture.emulator.requests == 1)
    }

    @Test func aProviderFileKilledMidFileKeepsWhatWasFlushedAndRecoverFinishesIt() throws {
        // One member per file: the records are held until the file closes, but each flush writes them out.
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 1200 --seed 12 --malformed 0 > in.ndjson", in: directory.path)
        #expect(generated.status == 0)
        let input = ndjsonLines(read(directory, "in.ndjson"))
        directory.write("p.yaml", "version: 1\ndestinations:\n  mixpanel: {type: mixpanel}\n")
        let sluice = try SluiceProcess(["run", "--pipeline", "p.yaml", "--flush-interval", "50ms"], in: directory.path)
        #expect(sluice.send(lines: input[..<700]))
        let flushed = { () -> Int in
            directory.files().filter { $0.hasPrefix("out/mixpanel/") && $0.hasSuffix(".part") }.reduce(0) { total, part in
                let data = TestGzip.decompressCompleteMembers(self.read(directory, part)).data
                return total + (data.isEmpty ? 0 : ndjsonLines(data).count)
            }
        }
        #expect(waitUntil(timeout: 60) { flushed() > 0 })
        let before = flushed()
        sluice.signal(SIGKILL)
        #expect(sluice.waitForExit(timeout: 30) != nil)
        sluice.closeInput()
        let recover = try SluiceBinary.run(["recover", "out"], in: directory.path)
        #expect(recover.status == 0, "\(recover.stdoutText)\(recover.stderr)")
        #expect(!directory.files().contains { $0.hasSuffix(".part") })
        let recovered = gunzipFiles(directory, under: "out/mixpanel/").flatMap(\.lines)
        #expect(recovered.count >= before, "\(recover.stdoutText) \(directory.files())")
        #expect(recovered.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0))) != nil })
    }
}

/// Whether two byte strings are equal, as a plain Bool: a failed `#expect(a == b)`
/// over megabytes would have the test library diff them element by element.
private func sameBytes(_ a: [UInt8]?, _ b: [UInt8]?) -> Bool { a == b }
