import Foundation

/// The write keys `sluice serve` accepts, from `--write-key-env VAR` (one or
/// more, comma-separated) and `--write-key-file FILE` (one per line or
/// comma-separated; blank lines and `#` comments skipped). A request names
/// its key as HTTP Basic auth's user name (the password empty), as Segment's
/// HTTP Tracking API and its SDKs do, or as `writeKey` in the body.
package struct WriteKeys: Sendable {
    package let keys: Set<String>

    package init(_ keys: some Sequence<String>) {
        self.keys = Set(keys)
    }

    /// The keys of `--write-key-env` and `--write-key-file`; a key list that
    /// ends up empty, a variable that is not set or a file that cannot be
    /// read is an error that says which.
    package static func load(environmentVariable: String?, file: String?,
                             environment: [String: String] = ProcessInfo.processInfo.environment) throws(WriteKeyError) -> WriteKeys {
        var keys: [String] = []
        if let environmentVariable {
            guard let value = environment[environmentVariable] else { throw .variableNotSet(environmentVariable) }
            keys += split(value)
        }
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else { throw .unreadableFile(file) }
            for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text.isEmpty || text.hasPrefix("#") { continue }
                keys += split(text)
            }
        }
        if environmentVariable == nil && file == nil { throw .noneGiven }
        if keys.isEmpty { throw .empty }
        return WriteKeys(keys)
    }

    private static func split(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    package func accepts(_ key: String) -> Bool { keys.contains(key) }

    /// The user name of an `Authorization: Basic ...` header (the write key), or nil
    /// when the header is not Basic auth or does not decode.
    package static func basicUser(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
    }
}

/// Why the write keys could not be read (exit 64).
package enum WriteKeyError: Error, Equatable, CustomStringConvertible {
    case noneGiven, empty
    case variableNotSet(String)
    case unreadableFile(String)

    package var description: String {
        switch self {
        case .noneGiven: return "give the write keys: --write-key-env VAR or --write-key-file FILE"
        case .empty: return "no write key given: --write-key-env's variable and --write-key-file hold none"
        case let .variableNotSet(name): return "--write-key-env \(name): the variable is not set"
        case let .unreadableFile(path): return "--write-key-file \(path) cannot be read"
        }
    }
}
