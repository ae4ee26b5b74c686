import Foundation
import Testing
@testable import Sluice

/// A stage is one folder under `Stages/` and one line in the registry: nothing
/// else in the library names it, and its reasons are declared in its folder,
/// not in the core's lists.
@Suite struct StageRegistryTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Sluice").path

    /// Each stage: its key, its folder, and the types only it may name (the
    /// stage first: the registry line names it).
    static let stages: [(key: String, folder: String, types: [String])] = [
        ("dedupe", "Dedupe", ["MessageDeduplication", "DedupeSettings", "DedupeState"]),
        ("timed", "Timed", ["TimedEventPairing", "TimedSettings", "TimedState", "TimedEventRewrite", "OpenTimerTable"]),
        ("session", "Session", ["SessionTracking", "SessionSettings", "SessionState", "SessionContext"]),
        ("privacy", "Privacy", ["PrivacyProtection", "PrivacySettings", "PrivacySettingsReader", "ConsentRule", "PIIScanner",
                                 "TextRedaction", "PrivacyRejectScrubber", "PrivacyTextScrubber"]),
        // The plan's model (PlanSettings, MessagePlan, PlanViolation) is `Plan/`, below the
        // destinations, whose lint reads it; the stage is its use of that model.
        ("plan", "Plan", ["TrackingPlan", "PlanCounters", "NameKey"]),
    ]

    private func swiftFiles() -> [(path: String, code: [Substring])] {
        let enumerator = FileManager.default.enumerator(atPath: Self.sources)!
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { path in
            let text = (try? String(contentsOfFile: Self.sources + "/" + path, encoding: .utf8)) ?? ""
            // Comments may mention stages; code may not (the registry line excepted).
            return (path, text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") })
        }
    }

    /// Whether `line` holds `word` as a whole identifier.
    private func names(_ line: Substring, _ word: String) -> Bool {
        var rest = line[...]
        while let range = rest.range(of: word) {
            let before = range.lowerBound == line.startIndex ? nil : line[line.index(before: range.lowerBound)]
            let after = range.upperBound == line.endIndex ? nil : line[range.upperBound]
            let isIdentifier = { (c: Character?) in c.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false }
            if !isIdentifier(before) && !isIdentifier(after) { return true }
            rest = line[range.upperBound...]
        }
        return false
    }

    @Test func everyStageTypeIsRegisteredOnceAndFoundByItsKey() {
        let keys = StageRegistry.keys
        #expect(Set(keys).count == keys.count)
        #expect(keys.sorted() == Self.stages.map(\.key).sorted())
        for key in keys { #expect(StageRegistry.type(key: key)?.key == key) }
        #expect(StageRegistry.type(key: "unknown") == nil)
    }

    @Test(arguments: stages)
    func aStageIsNamedOnlyInItsFolderAndTheRegistryLine(_ key: String, _ folder: String, _ types: [String]) {
        let files = swiftFiles()
        #expect(files.contains { $0.path.hasPrefix("Stages/\(folder)/") })
        for file in files where !file.path.hasPrefix("Stages/\(folder)/") {
            for line in file.code {
                for type in types where names(line, type) {
                    #expect(file.path == "Stages/Stage.swift" && line.contains("\(types[0]).type,"),
                            "\(file.path) names the \(key) stage's \(type): \(line)")
                }
            }
        }
    }

    @Test(arguments: stages)
    func aStageDeclaresItsReasonsInItsFolderAndTheCoreListsNone(_ key: String, _ folder: String, _ types: [String]) throws {
        let type = try #require(StageRegistry.type(key: key))
        let declared = type.rejectReasons.map { ("RejectReason", $0.rawValue) } + type.dropReasons.map { ("DropReason", $0.rawValue) }
        let files = swiftFiles()
        for (kind, raw) in declared {
            // `static let name = RejectReason("raw")`, in one file of the stage's folder and nowhere else.
            let declaration = "\(kind)(\"\(raw)\")"
            let declaring = files.filter { $0.code.contains { $0.contains(declaration) } }
            #expect(declaring.map(\.path).count == 1 && declaring.allSatisfy { $0.path.hasPrefix("Stages/\(folder)/") },
                    "\(raw) is declared in \(declaring.map(\.path))")
            guard let line = declaring.first?.code.first(where: { $0.contains(declaration) }),
                  let name = line.split(separator: "=").first?.split(separator: " ").last
            else { continue }
            for file in files where !file.path.hasPrefix("Stages/\(folder)/") {
                for line in file.code where names(line, "\(kind).\(name)") {
                    Issue.record("\(file.path) names the \(key) stage's reason \(kind).\(name): \(line)")
                }
            }
        }
        #expect(type.rejectReasons.allSatisfy { !RejectReason.core.contains($0) && RejectReason.allCases.contains($0) })
        #expect(type.dropReasons.allSatisfy { !DropReason.core.contains($0) && DropReason.allCases.contains($0) })
    }

    @Test func everyReasonIsKnownOnceAndByName() {
        let rejects = RejectReason.allCases.map(\.rawValue), drops = DropReason.allCases.map(\.rawValue)
        #expect(Set(rejects).count == rejects.count)
        #expect(Set(drops).count == drops.count)
        #expect(Set(rejects).isDisjoint(with: drops))
        for reason in RejectReason.allCases { #expect(RejectReason(rawValue: reason.rawValue) == reason) }
        for reason in DropReason.allCases { #expect(DropReason(rawValue: reason.rawValue) == reason) }
        #expect(DropReason(rawValue: "no_such_reason") == nil)
        #expect(drops.sorted() == ["abandoned_timer", "consent", "duplicate", "stdout_closed", "unrouted"])
    }
}
