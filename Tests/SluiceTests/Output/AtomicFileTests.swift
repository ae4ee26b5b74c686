import Foundation
import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct AtomicFileTests {
    @Test func aRegularFileIsReplacedWholeAndNoTemporaryIsLeft() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("s.json", "old, longer content")
        try AtomicFile.write("{}", to: path)
        #expect(FileManager.default.contents(atPath: path) == Data("{}\n".utf8))
        #expect(directory.files() == ["s.json"])
    }

    /// `--stats /dev/stderr`, `--metrics` into a FIFO: the text goes to it, and
    /// the device or FIFO is still there (renaming over it would replace it).
    @Test func aFIFOIsWrittenToNotReplaced() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("stats.fifo")
        #expect(mkfifo(path, 0o600) == 0)
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        try AtomicFile.write("{\"lines_in\":1}", to: path)
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        var buffer = [UInt8](repeating: 0, count: 256)
        var descriptor = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
        #expect(poll(&descriptor, 1, 10_000) == 1)
        let n = read(reader, &buffer, buffer.count)
        #expect(n > 0 && Array(buffer[..<max(n, 0)]) == Array("{\"lines_in\":1}\n".utf8))
        #expect(directory.files().isEmpty || directory.files() == ["stats.fifo"])
    }

    /// `--stats /dev/stdout` with stdout redirected to a file: the link leads
    /// to the file, which gets the text; the link itself stays a link.
    @Test func aSymbolicLinkIsFollowedAndTheFileItLeadsToIsReplaced() throws {
        let directory = TemporaryDirectory()
        let target = directory.write("today.json", "old")
        let link = directory.file("stats.json")
        #expect(symlink(target, link) == 0)
        try AtomicFile.write("{\"lines_in\":2}", to: link)
        var info = stat()
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(FileManager.default.contents(atPath: target) == Data("{\"lines_in\":2}\n".utf8))
        #expect(Set(directory.files()) == ["today.json", "stats.json"])
    }
}
