@testable import Sluice
import SluiceTestSupport
import Testing

@Suite struct GzipInflaterTests {
    @Test func aFinishedFileOfSeveralGzipMembersReadsBackWhole() {
        let member1 = TestGzip.compress(Array("{\"a\":1}\n".utf8))
        let member2 = TestGzip.compress(Array("{\"b\":2}\n{\"c\":3}\n".utf8))
        #expect(GzipInflater.decompress(member1 + member2) == Array("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n".utf8))
        #expect(GzipInflater.decompress([]) == [])
    }

    @Test func aCutDamagedOrForeignBufferReadsBackAsNothing() {
        let member = TestGzip.compress(Array("{\"a\":1}\n".utf8))
        #expect(GzipInflater.decompress(Array((member + member).dropLast(3))) == nil)
        #expect(GzipInflater.decompress(member + Array("garbage".utf8)) == nil)
        #expect(GzipInflater.decompress(Array("not gzip".utf8)) == nil)
    }

    @Test func membersLargerThanTheBuffersReadBackWhole() {
        // More than the input and output buffers (256 KiB) hold, in both directions.
        var text: [UInt8] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        while text.count < 1_200_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            text += Array("{\"n\":\(state >> 20)}\n".utf8)
        }
        let file = TestGzip.compress(text) + TestGzip.compress(Array(text.prefix(300_000)))
        #expect(file.count > 256 * 1024)
        #expect(GzipInflater.decompress(file) == text + Array(text.prefix(300_000)))
    }
}
