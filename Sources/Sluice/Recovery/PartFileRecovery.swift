import Foundation
import Logging

/// `sluice recover DIR`: finishes or quarantines the `.part` files a crashed
/// (or killed, or out-of-space) run left under DIR.
///
/// For each `.part`, with an exclusive non-blocking `flock` (a live run holds
/// one on every file it writes, so those are left alone):
/// - every byte is complete gzip members: it is fsynced and renamed to its
///   final name (`renamed`);
/// - complete members, then damage (a crash mid-member): the complete
///   members' bytes become the final file, and the original moves to the
///   quarantine folder (`salvaged`); when the file ends inside a member, the
///   whole lines decoded from it before the cut follow as a member of their
///   own, and the half line after them is reported as dropped;
/// - no complete member and no whole line: it moves to the quarantine folder (`quarantined`);
/// - empty: it is removed (`removed`);
/// - its final name exists already: it moves to the quarantine folder (`conflict`).
///
/// Never overwrites a file (final names are taken with link(2), which fails
/// if the name exists), keeps the quarantine folder out of its scan, and is
/// idempotent: a second run finds nothing to do, and a run interrupted half
/// way is finished by the next one.
public enum PartFileRecovery {
    public struct Options: Sendable {
        /// The directory to scan, recursively (the run's `--out`).
        public var directory: String
        /// Where damaged originals go; default `DIR/.quarantine`. Must be on the same filesystem.
        public var quarantine: String?
        /// Report what would be done, change nothing.
        public var dryRun = false

        public init(directory: String) { self.directory = directory }

        var quarantineDirectory: String { quarantine ?? directory + "/.quarantine" }
    }

    /// Scans `options.directory` and handles every `.part` file under it.
    public static func run(_ options: Options, logger: Logger) -> RecoveryReport {
        var report = RecoveryReport()
        let paths: [String]
        do {
            paths = try partFiles(options)
        } catch {
            report.directoryError = error
            logger.error("\(error)")
            return report
        }
        for path in paths {
            // A `.part` a live run renamed since the listing is finished: not listed, not an error.
            guard let outcome = PartFileRecoverer(path: path, options: options).recover() else { continue }
            if case let .failed(error) = outcome.action { logger.error("\(path): \(error)") }
            report.files.append(outcome)
        }
        logger.info("\(report.summaryLine)")
        return report
    }

    /// Every `*.part` under the directory (not in the quarantine, nor in a
    /// `--staging` directory: those are an attempt's, which the next attempt
    /// clears), sorted; leftover `*.recovering` temp files of an interrupted
    /// recover are removed.
    static func partFiles(_ options: Options) throws(RecoveryError) -> [String] {
        var info = stat()
        guard stat(options.directory, &info) == 0 else { throw .cannotOpenDirectory(path: options.directory, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .cannotOpenDirectory(path: options.directory, errno: ENOTDIR) }
        guard let enumerator = FileManager.default.enumerator(atPath: options.directory) else {
            throw .cannotOpenDirectory(path: options.directory, errno: EACCES)
        }
        let quarantine = URL(fileURLWithPath: options.quarantineDirectory).standardizedFileURL.path
        var result: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let path = options.directory + "/" + relative
            if URL(fileURLWithPath: path).standardizedFileURL.path == quarantine
                || FileSystem.exists(path + "/" + StagingArea.markerName) {
                enumerator.skipDescendants()
                continue
            }
            if relative.hasSuffix(".recovering") && !options.dryRun {
                unlink(path)
            } else if relative.hasSuffix(".part") {
                var info = stat()
                if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG { result.append(path) }
            }
        }
        return result.sorted()
    }
}

/// What `recover` did, per file, and the exit status that sums it up.
public struct RecoveryReport: Sendable {
    public var files: [RecoveredFile] = []
    /// Set when the directory itself could not be read (exit 66).
    public var directoryError: RecoveryError?

    /// 0 all finished (or nothing to do); 66 no such directory; 74 an I/O
    /// error on some file; 65 data was quarantined with nothing kept, or a
    /// final name was taken; 75 a file is in use by a running sluice.
    public var exitStatus: Int32 {
        if directoryError != nil { return ExitStatus.noInput }
        if files.contains(where: { if case .failed = $0.action { return true } else { return false } }) { return ExitStatus.ioError }
        if files.contains(where: { $0.action == .quarantined || $0.action == .conflict }) { return ExitStatus.dataError }
        if files.contains(where: { $0.action == .inUse }) { return ExitStatus.tryAgain }
        return ExitStatus.ok
    }

    /// `4 .part files: 1 renamed, 1 salvaged, ...` (the logger adds `sluice: `)
    public var summaryLine: String {
        let order: [RecoveredFile.Action] = [.renamed, .salvaged, .quarantined, .conflict, .removed, .inUse]
        var parts = order.compactMap { action -> String? in
            let count = files.filter { $0.action == action }.count
            return count > 0 ? "\(count) \(action.word)" : nil
        }
        let failed = files.filter { if case .failed = $0.action { return true } else { return false } }.count
        if failed > 0 { parts.append("\(failed) failed") }
        if files.isEmpty { return "no .part files, nothing to do" }
        return "\(files.count) .part file\(files.count == 1 ? "" : "s"): " + parts.joined(separator: ", ")
    }
}

/// One `.part` file and what was done with it.
public struct RecoveredFile: Sendable {
    public enum Action: Sendable, Equatable {
        case renamed, salvaged, quarantined, conflict, removed, inUse
        case failed(RecoveryError)

        var word: String {
            switch self {
            case .renamed: return "renamed"
            case .salvaged: return "salvaged"
            case .quarantined: return "quarantined"
            case .conflict: return "conflict"
            case .removed: return "removed"
            case .inUse: return "in-use"
            case .failed: return "failed"
            }
        }
    }

    public var path: String
    public var action: Action
    /// The final file written (renamed, salvaged).
    public var target: String?
    /// Where the original went (salvaged, quarantined, conflict).
    public var quarantinedAs: String?
    public var scan: GzipMemberScan?
    public var dryRun = false

    /// One line for the report (stdout).
    public var line: String {
        let verb = (dryRun ? "would be " : "") + action.word
        var text = verb.padding(toLength: max(verb.count, 12), withPad: " ", startingAt: 0) + " " + path
        if let target { text += " -> " + target }
        if let scan, scan.members > 0 || scan.cutLines > 0 {
            text += " (\(scan.members) gzip member\(scan.members == 1 ? "" : "s"), \(scan.lines) lines"
            if !scan.isComplete { text += ", \(scan.validBytes) of \(scan.fileBytes) bytes kept" }
            if scan.cutLines > 0 {
                text += ", and \(scan.cutLines) line\(scan.cutLines == 1 ? "" : "s") (\(scan.cutLineBytes) bytes) from the member cut short"
            }
            if scan.cutTailBytes > 0 {
                text += "; dropped: \(scan.cutTailBytes) bytes of a last line cut short"
            }
            text += ")"
        }
        switch action {
        case .removed: text += " (empty)"
        case .inUse: text += " (locked by a running sluice; left alone)"
        case .conflict: text += " (its final name exists already)"
        case let .failed(error): text += ": \(error)"
        default: break
        }
        if let damage = scan?.damage, action != .inUse { text += "; damage: \(damage)" }
        if let quarantinedAs { text += "; original moved to \(quarantinedAs)" }
        return text
    }
}

