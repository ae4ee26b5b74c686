import Foundation
import Sluice

/// The finished files of a destination under the output root: what its path
/// template names, not `.part` (still being written), and nothing under the
/// folders `sluice send` keeps its own files in.
enum FinishedFiles {
    /// Folders under the output root that are never a destination's files.
    static let ownFolders: Set<String> = ["sent", ".sluice-send", "send-rejects", ".quarantine"]

    /// Paths relative to `root`, in name order (files named by date and hour and `{seq}` come out in time order).
    static func list(root: String, template: PathTemplate, dest: String) -> [String] {
        var found: [String] = []
        walk(root, relative: "", template: template, dest: dest, into: &found)
        return found.sorted()
    }

    private static func walk(_ root: String, relative: String, template: PathTemplate, dest: String, into found: inout [String]) {
        let directory = relative.isEmpty ? root : root + "/" + relative
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names {
            if relative.isEmpty && ownFolders.contains(name) { continue }
            let path = relative.isEmpty ? name : relative + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                walk(root, relative: path, template: template, dest: dest, into: &found)
            } else if !name.hasSuffix(".part"), template.matches(path, dest: dest) {
                found.append(path)
            }
        }
    }
}
