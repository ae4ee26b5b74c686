import Foundation

/// A fresh directory under the system temp dir, removed when the value is released.
public final class TemporaryDirectory {
    public let path: String

    public init() {
        path = NSTemporaryDirectory() + "sluice-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) -> String {
        let target = file(name)
        try! FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: target, contents: Data(bytes))
        return target
    }

    @discardableResult
    public func write(_ name: String, _ text: String) -> String { write(name, Array(text.utf8)) }

    /// Every regular file below the directory, relative paths, sorted.
    public func files() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var result: [String] = []
        while let item = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file(item), isDirectory: &isDirectory), !isDirectory.boolValue {
                result.append(item)
            }
        }
        return result.sorted()
    }
}

extension TemporaryDirectory {
    /// A writable directory on another filesystem than the temporary
    /// directory (`/dev/shm`), for what must refuse to rename across them; nil when there is none.
    public static let otherFilesystem: String? = {
        var tmp = stat(), shm = stat()
        guard stat(NSTemporaryDirectory(), &tmp) == 0, stat("/dev/shm", &shm) == 0, access("/dev/shm", W_OK) == 0,
              tmp.st_dev != shm.st_dev else { return nil }
        return "/dev/shm"
    }()
}
