import Foundation
import SluiceTestSupport
import Testing

/// Every destination's blocks are deflated on one pool of threads, shared by
/// all (issue 24): the files must be the same whatever the number of threads,
/// ordinary gzip to every reader, and hold the records in input order.
@Suite struct ParallelCompressionTests {
    /// The `messageId` of each NDJSON line, in order (lines without one left out).
    private func messageIds(_ bytes: [UInt8]) -> [String] {
        ndjsonLines(bytes).compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])?["messageId"] as? String
        }
    }

    /// The run's output files, path to bytes.
    private func outputs(_ directory: TemporaryDirectory, under out: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for file in directory.files() where file.hasPrefix(out + "/") {
            files[String(file.dropFirst(out.count + 1))] = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file(file))))
        }
        return files
    }

    @Test func filesAreByteForByteTheSameWithOneCompressionThreadOrThreeAndHoldTheRecordsInInputOrder() throws {
        let directory = TemporaryDirectory()
        // T1: three destinations sharing the pool. A flush interval longer than
        // any run: members end only when files close, never on a timer. Read as it
        // comes (`--order window`), so the records keep the input's order.
        let run = try SluiceBinary.shell("""
            $SLUICE generate --events 30000 --seed 9 --late 0 --duplicates 0 > in.ndjson && \
            $SLUICE run --flush-interval 1h --order window --compression-threads 1 --out one --pipeline \(repositoryRoot)/pipelines/bench-t1.yaml in.ndjson && \
            $SLUICE run --flush-interval 1h --order window --compression-threads 3 --out three --pipeline \(repositoryRoot)/pipelines/bench-t1.yaml in.ndjson && \
            $SLUICE run --flush-interval 1h --order window --out default --pipeline \(repositoryRoot)/pipelines/bench-t1.yaml in.ndjson && \
            gzip -t one/*/*/*.gz three/*/*/*.gz
            """, in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")

        let one = try outputs(directory, under: "one")
        for destination in ["mixpanel", "amplitude", "archive"] {
            #expect(one.keys.contains { $0.hasPrefix("\(destination)/") && $0.hasSuffix(".ndjson.gz") }, "no file for \(destination)")
        }
        #expect(try outputs(directory, under: "three") == one)
        #expect(try outputs(directory, under: "default") == one)

        var archive: [UInt8] = []
        for (file, written) in one.sorted(by: { $0.key < $1.key }) where file.hasSuffix(".ndjson.gz") {
            // Files of 64 MiB are blocks: a member per 1 MiB of records, each ending after a record.
            let members = try #require(TestGzip.members(written), "\(file) is not complete gzip")
            #expect(members.count > 1, "\(file)")
            #expect(members.allSatisfy { $0.last == 10 }, "\(file): a member ends inside a record")
            if file.hasPrefix("archive/") { archive += members.joined() }
        }
        // Order kept: the archive holds every event in input order.
        let input = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("in.ndjson"))))
        let expected = messageIds(input)
        #expect(expected.count == 30000)
        #expect(messageIds(archive) == expected)
    }

    @Test(arguments: [("0", "must be positive"), ("-2", "must be positive"), ("many", "must be positive"),
                      ("300", "--compression-threads 300: give 1 to 256")])
    func compressionThreadsOutsideOneTo256IsAUsageError(_ value: String, _ message: String) throws {
        let directory = TemporaryDirectory()
        let run = try SluiceBinary.run(["run", "--compression-threads", value, "--out", "out"], in: directory.path)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("sluice: error: ") && run.stderr.contains(message), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }
}
