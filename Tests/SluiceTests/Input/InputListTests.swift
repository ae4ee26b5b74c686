#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct InputListTests {
    @Test func noInputIsStdinAndStdinKeepsItsPlaceAmongFiles() throws {
        let directory = TemporaryDirectory()
        let a = directory.write("a.ndjson", "{}\n")
        let b = directory.write("b.ndjson", "{}\n")
        #expect(try InputList.resolve([]) == ["-"])
        #expect(try InputList.resolve([b, "-", a]) == [b, "-", a])
    }

    @Test func aDirectoryIsItsRegularFilesInByteOrderOfTheirNamesWithoutHiddenOnesOrSubdirectories() throws {
        let directory = TemporaryDirectory()
        for name in ["logs/server-10.ndjson", "logs/server-2.ndjson.gz", "logs/Server-9.ndjson", "logs/.hidden.ndjson",
                     "logs/sub/deeper.ndjson", "other.ndjson"] {
            _ = directory.write(name, "{}\n")
        }
        #expect(symlink(directory.file("other.ndjson"), directory.file("logs/link.ndjson")) == 0)
        let logs = directory.file("logs")
        #expect(try InputList.resolve([logs]) == ["Server-9.ndjson", "link.ndjson", "server-10.ndjson", "server-2.ndjson.gz"].map { logs + "/" + $0 })
        #expect(try InputList.resolve([logs + "/", "-"]).last == "-")
    }

    @Test func aMissingInputOrADirectoryWithAnUnreadableFileFailsBeforeAnythingIsRead() throws {
        let directory = TemporaryDirectory()
        #expect(throws: InputError.cannotOpen(path: directory.file("nope.ndjson"), errno: ENOENT)) {
            try InputList.resolve([directory.file("nope.ndjson")])
        }
        _ = directory.write("logs/a.ndjson", "{}\n")
        #expect(symlink(directory.file("gone.ndjson"), directory.file("logs/b.ndjson")) == 0)
        #expect(throws: InputError.cannotOpen(path: directory.file("logs/b.ndjson"), errno: ENOENT)) {
            try InputList.resolve([directory.file("logs")])
        }
    }

    @Test func anEmptyDirectoryIsNoInputAtAll() throws {
        let directory = TemporaryDirectory()
        #expect(mkdir(directory.file("empty"), 0o755) == 0)
        #expect(try InputList.resolve([directory.file("empty")]).isEmpty)
    }
}
