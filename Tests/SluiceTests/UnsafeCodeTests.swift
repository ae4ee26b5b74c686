import Foundation
import Testing

/// Where pointer code may live (docs/architecture.md, "Where unsafe code
/// lives"): every Swift file of `Sources` whose code uses an `Unsafe…` type or a
/// `withUnsafe…` call says why in a comment at its top (`// Unsafe code:`), and
/// the domain folders (the stages, the providers, the fan-out, the plan) keep
/// at most ten such files: they read bytes as spans. And the package sets no
/// `unsafeFlags`.
@Suite struct UnsafeCodeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
    static let domainFolders = ["Sluice/Stages/", "Sluice/Destinations/", "Sluice/FanOut/", "Sluice/Plan/"]
    static let maxDomainFiles = 10

    /// The files whose code (comments and strings left out) names `Unsafe…` or `withUnsafe…`.
    static func filesWithPointerCode(_ files: [(path: String, text: String)]) -> [(path: String, text: String)] {
        files.filter { file in
            Layering.identifiers(in: Layering.code(of: file.text)).contains { $0.hasPrefix("Unsafe") }
                || Layering.code(of: file.text).contains("withUnsafe")
        }
    }

    /// Whether the file's leading comment block (before its first line of code) holds `Unsafe code:`.
    static func saysWhy(_ text: String) -> Bool {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("//") {
                if trimmed.contains("Unsafe code:") { return true }
                continue
            }
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix("import ") { continue }
            return false
        }
        return false
    }

    static func readAll() throws -> [(path: String, text: String)] {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var files: [(String, String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            files.append((String(url.path.dropFirst(root.path.count + 1)), try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    @Test func everyFileWithPointerCodeSaysWhyAtItsTop() throws {
        let files = try Self.readAll()
        #expect(files.count > 100, "found \(files.count) files under \(Self.root.path)")
        let silent = Self.filesWithPointerCode(files).filter { !Self.saysWhy($0.text) }.map(\.path)
        #expect(silent.isEmpty, "pointer code without an `// Unsafe code:` comment at the top:\n\(silent.joined(separator: "\n"))")
    }

    @Test func theDomainFoldersKeepAtMostTenFilesWithPointerCode() throws {
        let domain = Self.filesWithPointerCode(try Self.readAll())
            .filter { file in Self.domainFolders.contains { file.path.hasPrefix($0) } }.map(\.path)
        #expect(domain.count <= Self.maxDomainFiles, "pointer code in the domain folders:\n\(domain.joined(separator: "\n"))")
    }

    /// `unsafeFlags` make a package unusable as a dependency: the package
    /// builds with none (SluiceJSON's hot generics are `@inlinable` instead of
    /// built with cross-module optimization).
    @Test func thePackageHasNoUnsafeFlags() throws {
        let manifest = Self.root.deletingLastPathComponent().appendingPathComponent("Package.swift")
        let code = Layering.code(of: try String(contentsOf: manifest, encoding: .utf8))
        #expect(code.contains(".target("), "not the manifest: \(manifest.path)")
        #expect(!code.contains("unsafeFlags"), "Package.swift sets unsafeFlags")
    }

    @Test func theScanFindsPointerCodeAndTheHeaderButNotComments() {
        let files = [
            (path: "a.swift", text: "// Unsafe code: because.\nimport X\nlet p: UnsafePointer<UInt8>? = nil\n"),
            (path: "b.swift", text: "import X\nfunc f(_ a: [UInt8]) { a.withUnsafeBytes { _ in } }\n"),
            (path: "c.swift", text: "// The span form, not UnsafePointer.\nlet s = \"withUnsafeBytes\"\n"),
        ]
        #expect(Self.filesWithPointerCode(files).map(\.path) == ["a.swift", "b.swift"])
        #expect(Self.saysWhy(files[0].text))
        #expect(!Self.saysWhy(files[1].text))
        #expect(Self.saysWhy("import X\n\n// Unsafe code: after the imports, before the code.\nlet x = 1\n"))
        #expect(!Self.saysWhy("import X\nlet x = 1\n// Unsafe code: too late, after the code starts.\n"))
    }
}
