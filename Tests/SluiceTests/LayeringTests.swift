import Foundation
import Testing

/// The folders of `Sources/Sluice` in layers (docs/architecture.md, "Who may
/// use whom"): a file may name a type declared in its own folder or in a lower
/// layer, never one declared in a higher layer. A source scan, as simple as
/// the rule: every top-level type declaration gives its name to its folder,
/// and every capitalized identifier outside comments and string literals is a
/// use of the type of that name.
@Suite struct LayeringTests {
    /// Lower layers first; folders of one layer may use each other.
    static let layers: [[String]] = [
        ["Support"],
        ["Event"],
        ["Output"],
        ["Input"],
        ["Configuration"],
        ["State"],
        ["Plan"],
        ["Destinations"],
        ["Stages"],
        ["FanOut"],
        ["Pipeline"],
        ["Lifecycle", "Reporting"],
        ["Stats", "Shard", "Recovery", "TestCases", "Generate", "Catalog"],
    ]

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Sluice")

    @Test func noFolderUsesATypeOfAHigherLayer() throws {
        let files = try Self.readSources(under: Self.sources)
        let folders = Set(files.map(\.folder))
        let ranked = Set(Self.layers.joined())
        #expect(folders.subtracting(ranked).isEmpty,
                "folders with no layer: \(folders.subtracting(ranked).sorted()); place them in LayeringTests.layers and docs/architecture.md")
        #expect(folders.count > 10, "found \(folders.count) folders under \(Self.sources.path)")
        let upward = Layering(layers: Self.layers).upwardUses(in: files)
        #expect(upward.isEmpty, "upward uses:\n\(upward.joined(separator: "\n"))")
    }

    @Test func anUpwardUseIsFoundAndADownwardOneIsNot() {
        let files: [Layering.SourceFile] = [
            .init(path: "Input/Reader.swift", folder: "Input", text: """
                /// Counts for the `RunSummary` (a comment, not a use).
                struct Reader { var text = "RunSummary in a string"; var counts: RunSummary? ; var buffer: ByteBuffer }
                """),
            .init(path: "Pipeline/RunSummary.swift", folder: "Pipeline", text: "public struct RunSummary { var reader: Reader }"),
            .init(path: "Support/ByteBuffer.swift", folder: "Support", text: "final class ByteBuffer {}\n    struct Nested {}"),
        ]
        let upward = Layering(layers: [["Support"], ["Input"], ["Pipeline"]]).upwardUses(in: files)
        #expect(upward == ["Input/Reader.swift uses RunSummary (Pipeline)"])
    }

    @Test func commentsAndStringLiteralsAreNotUses() {
        let code = Layering.code(of: #"""
            let a = "Upper \(Interpolated) text" // Comment
            /* Block /* Nested */ Still */ let b = """
                Multi Line
                """
            let c = Real
            """#)
        #expect(Layering.identifiers(in: code) == ["Real"])
    }

    static func readSources(under root: URL) throws -> [Layering.SourceFile] {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var files: [Layering.SourceFile] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(root.path.count + 1))
            guard let folder = relative.split(separator: "/").first, relative.contains("/") else { continue }
            files.append(.init(path: relative, folder: String(folder), text: try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.path < $1.path }
    }
}

/// The scan behind `LayeringTests`.
struct Layering {
    struct SourceFile {
        var path: String
        var folder: String
        var text: String
    }

    let rank: [String: Int]

    init(layers: [[String]]) {
        var rank: [String: Int] = [:]
        for (index, folders) in layers.enumerated() { for folder in folders { rank[folder] = index } }
        self.rank = rank
    }

    /// "path uses Type (Folder)" for each use of a type declared in a higher layer, sorted.
    func upwardUses(in files: [SourceFile]) -> [String] {
        var owner: [String: Set<String>] = [:]
        for file in files {
            for name in Self.declaredTypes(in: Self.code(of: file.text)) { owner[name, default: []].insert(file.folder) }
        }
        var found: Set<String> = []
        for file in files {
            let own = rank[file.folder] ?? Int.max
            for name in Set(Self.identifiers(in: Self.code(of: file.text))) {
                for folder in owner[name] ?? [] where folder != file.folder && (rank[folder] ?? Int.max) > own {
                    found.insert("\(file.path) uses \(name) (\(folder))")
                }
            }
        }
        return found.sorted()
    }

    /// Top-level declarations (at the start of a line, after modifiers and attributes) of types and aliases.
    static func declaredTypes(in code: String) -> [String] {
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "actor", "typealias"]
        var names: [String] = []
        for line in code.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let first = line.first, !first.isWhitespace else { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "<" || $0 == "{" || $0 == "=" })
            for (index, word) in words.enumerated() where kinds.contains(word) && index + 1 < words.count {
                // `final class`, `public struct`, `@frozen public enum`: only modifiers and attributes before the kind.
                let before = words[..<index]
                let modifiers: Set<Substring> = ["public", "internal", "package", "private", "fileprivate", "final", "indirect", "nonisolated"]
                if before.allSatisfy({ modifiers.contains($0) || $0.hasPrefix("@") }) {
                    names.append(String(words[index + 1]))
                }
                break
            }
        }
        return names
    }

    /// Capitalized identifiers (type names) of code.
    static func identifiers(in code: String) -> [String] {
        var names: [String] = []
        var current = ""
        var inWord = false
        for character in code.unicodeScalars {
            let isWordCharacter = character == "_" || CharacterSet.alphanumerics.contains(character)
            if isWordCharacter {
                if !inWord { current = ""; inWord = true }
                current.unicodeScalars.append(character)
            } else if inWord {
                inWord = false
                if let first = current.unicodeScalars.first, CharacterSet.uppercaseLetters.contains(first) { names.append(current) }
            }
        }
        if inWord, let first = current.unicodeScalars.first, CharacterSet.uppercaseLetters.contains(first) { names.append(current) }
        return names
    }

    /// The code without comments and string literals (interpolations go with the literal).
    static func code(of text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        func at(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "/" && at(1) == "/" {
                while index < scalars.count && scalars[index] != "\n" { index += 1 }
            } else if scalar == "/" && at(1) == "*" {
                var depth = 0
                repeat {
                    if scalars[index] == "/" && at(1) == "*" { depth += 1; index += 2 }
                    else if scalars[index] == "*" && at(1) == "/" { depth -= 1; index += 2 }
                    else { index += 1 }
                } while depth > 0 && index < scalars.count
                out.append(" ")
            } else if scalar == "\"" || (scalar == "#" && at(1) == "\"") {
                var hashes = 0
                while index < scalars.count && scalars[index] == "#" { hashes += 1; index += 1 }
                let multiline = at(0) == "\"" && at(1) == "\"" && at(2) == "\""
                index += multiline ? 3 : 1
                // Ends at the closing quote(s) followed by as many `#`.
                while index < scalars.count {
                    if scalars[index] == "\\" && hashes == 0 { index += 2; continue }
                    let closes = multiline ? (at(0) == "\"" && at(1) == "\"" && at(2) == "\"") : at(0) == "\""
                    if closes {
                        let quoteLength = multiline ? 3 : 1
                        var count = 0
                        while count < hashes && at(quoteLength + count) == "#" { count += 1 }
                        if count == hashes { index += quoteLength + hashes; break }
                    }
                    if !multiline && scalars[index] == "\n" { break }
                    index += 1
                }
                out.append(contentsOf: "\"\"".unicodeScalars)
            } else {
                out.append(scalar)
                index += 1
            }
        }
        return String(out)
    }
}
