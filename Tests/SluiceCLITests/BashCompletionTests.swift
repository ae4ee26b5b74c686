import Foundation
import SluiceTestSupport
import Testing

/// `sluice --generate-completion-script bash`, loaded into a real bash and
/// its completion function called as readline calls it: file names for the
/// inputs and every option that takes a path, directories for directories,
/// options still completed.
@Suite struct BashCompletionTests {
    /// What bash offers for `line` (the word being completed is its last, after
    /// the cursor at its end), one per line, sorted.
    private func completions(_ line: String, in directory: TemporaryDirectory) throws -> [String] {
        let script = """
            source <("$SLUICE" --generate-completion-script bash)
            complete -p sluice >/dev/null || exit 3
            read -r -a COMP_WORDS <<< "$LINE"
            [[ "$LINE" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE="$LINE"
            COMP_POINT=${#LINE}
            COMPREPLY=()
            # readline calls the function with the command, the word being completed and the one before it.
            _sluice sluice "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}" | sort
            """
        let result = try SluiceBinary.shell(script, in: directory.path, environment: ["LINE": line])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdoutText.split(separator: "\n").map(String.init)
    }

    private func layout() -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        for file in ["app.yaml", "events-08.ndjson.gz", "events-09.ndjson.gz", "stats-old.json", "app.state", "metrics.prom"] {
            directory.write(file, "")
        }
        directory.write("logs/a.ndjson", "")
        return directory
    }

    @Test(arguments: [
        ("sluice run ev", ["events-08.ndjson.gz", "events-09.ndjson.gz"]),
        ("sluice run events-08.ndjson.gz ev", ["events-08.ndjson.gz", "events-09.ndjson.gz"]),
        ("sluice run --pipeline a", ["app.yaml"]),
        ("sluice run --stats st", ["stats-old.json"]),
        ("sluice run --metrics me", ["metrics.prom"]),
        ("sluice run --state app.s", ["app.state"]),
        ("sluice run --out l", ["logs"]),
        ("sluice run --staging l", ["logs"]),
        ("sluice validate a", ["app.yaml"]),
        ("sluice test a", ["app.yaml"]),
        ("sluice recover l", ["logs"]),
        ("sluice shard-of --shards 4 ev", ["events-08.ndjson.gz", "events-09.ndjson.gz"]),
        ("sluice stats merge st", ["stats-old.json"]),
    ])
    func pathsCompleteToFileNames(_ line: String, _ expected: [String]) throws {
        let directory = layout()
        #expect(try completions(line, in: directory) == expected, "\(line)")
    }

    @Test func optionsAndSubcommandsStillComplete() throws {
        let directory = layout()
        #expect(try completions("sluice run --fl", in: directory) == ["--flush-interval"])
        #expect(try completions("sluice ru", in: directory) == ["run"])
        #expect(try completions("sluice run --pipeline app.yaml --st", in: directory) == ["--staging", "--state", "--stats", "--stdout", "--strict"])
    }
}
