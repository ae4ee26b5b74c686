import ArgumentParser
import Logging
import Sluice

struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Finish or quarantine the .part files a crashed run left behind.",
        discussion: """
        Scans DIR (the run's --out) for .part files. A .part made of complete gzip
        members is renamed to its final name; one with a damaged tail keeps its
        complete members in the final file (and, when the file was cut inside a
        member, that member's whole lines before the cut) and the original moves
        to the quarantine folder; one with nothing whole is quarantined; an empty
        one is removed. Files a running sluice is writing are left alone. Never
        overwrites a file; running it twice does nothing the second time.
        One line per file on stdout.

        Examples:
          sluice recover out
          sluice recover --dry-run /data/analytics

        Exit codes: 0 every .part finished (or none), 65 something was quarantined
        with nothing kept or a final name was taken, 66 DIR cannot be read,
        74 an I/O error, 75 a file is in use by a running sluice (try again later).
        """
    )

    @Argument(help: ArgumentHelp("The output directory to scan.", valueName: "dir"), completion: .directory)
    var directory: String

    @Option(help: ArgumentHelp("Where damaged originals go (default: DIR/.quarantine, same filesystem).", valueName: "dir"),
            completion: .directory)
    var quarantine: String?

    @Flag(name: .customLong("dry-run"), help: "Report what would be done; change nothing.")
    var dryRun = false

    func run() throws {
        var options = PartFileRecovery.Options(directory: directory)
        options.quarantine = quarantine
        options.dryRun = dryRun
        let report = PartFileRecovery.run(options, logger: .sluiceStderr(console: StderrConsole(), quiet: false))
        for file in report.files { print(file.line) }
        try StandardOutput.finish()
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }
}
