import Foundation
import SluiceTestSupport
import Testing

/// Each destination deflates on a thread of its own (issue 9): what that
/// writes must be what one thread compressing the same records would write.
@Suite struct ParallelCompressionTests {
    /// The `messageId` of each NDJSON line, in order (lines without one left out).
    private func messageIds(_ bytes: [UInt8]) -> [String] {
        ndjsonLines(bytes).compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])?["messageId"] as? String
        }
    }

    @Test func filesWrittenByTheCompressionThreadsAreTheBytesOneThreadWouldWriteInInputOrder() throws {
        let directory = TemporaryDirectory()
        // T1: three destinations, so three compression threads beside the reader.
        // A flush interval longer than any run: one gzip member per file even on
        // a loaded machine (a flush ends a member, which one deflate call would not).
        let run = try SluiceBinary.shell("""
            $SLUICE generate --events 30000 --seed 9 --late 0 --duplicates 0 > in.ndjson && \
            $SLUICE run --flush-interval 1h --pipeline \(repositoryRoot)/pipelines/bench-t1.yaml in.ndjson
            """, in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")

        let files = directory.files().filter { $0.hasPrefix("out/") && $0.hasSuffix(".ndjson.gz") }
        for destination in ["mixpanel", "amplitude", "archive"] {
            #expect(files.contains { $0.hasPrefix("out/\(destination)/") }, "no file for \(destination)")
        }
        var archive: [UInt8] = []
        for file in files {
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file(file))))
            let records = try #require(TestGzip.decompress(written), "\(file) is not one complete gzip member")
            // zlib level 6 over the same records in one call, on this thread.
            #expect(written == TestGzip.compress(records, level: 6), "\(file) differs from a single-threaded deflate")
            if file.hasPrefix("out/archive/") { archive += records }
        }
        // Order kept: the archive holds every event in input order.
        let input = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("in.ndjson"))))
        let expected = messageIds(input)
        #expect(expected.count == 30000)
        #expect(messageIds(archive) == expected)
    }
}
