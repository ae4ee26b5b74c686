import SluiceJSON

/// One entry of a pipeline file's `tests:`: input events, and what each
/// destination must receive.
///
/// ```yaml
/// tests:
///   - name: a tap reaches the archive with its id
///     input:                               # events as YAML mappings, or one line of JSON each
///       - {type: track, event: movie_tapped, anonymousId: d1, timestamp: "2026-11-20T09:00:00Z",
///          properties: {movie_id: 5}}
///       - '{"type":"track","event":"like_toggled","anonymousId":"d1","timestamp":"2026-11-20T09:00:01Z"}'
///     expect:
///       archive:                           # records, in order, each matched as a subset
///         - {event: movie_tapped, properties: {movie_id: 5, movie_slug: !absent}}
///       mixpanel: []                       # receives nothing
///       mixpanel.profiles: [{$distinct_id: u1}]   # a side output, by its own name
///       rejects: [plan_violation]          # reasons, or subsets of reject records
///     counts: {emitted: 1, rejected: 1, plan_violation: 1}
/// ```
public struct PipelineTestCase: Sendable {
    /// `name` (required, unique in the file): what `--filter` matches.
    public var name: String
    /// Where the case starts in the file.
    public var line: Int
    public var column: Int
    /// `input` (required): one NDJSON line per item, in order.
    public var input: [[UInt8]]
    /// `expect.NAME` per destination, in file order; a destination not listed is not checked.
    public var expect: [Expectation]
    /// `expect.rejects` (default: not checked): the reject records, matched like a destination's.
    public var rejects: Expectation?
    /// `counts` (default none): totals and per-reason counts of the run.
    public var counts: [(name: String, value: Int)]

    /// What one output must receive: every record listed, in order, each a subset of the record received.
    public struct Expectation: Sendable {
        public var output: String
        public var records: [JSONValue]
    }

    /// The names `counts:` takes: the run's totals, then every reject and drop reason.
    public static let countNames: [String] = ["lines_in", "emitted", "merged", "rejected", "dropped", "blank_lines"]
        + RejectReason.allCases.map(\.rawValue) + DropReason.allCases.map(\.rawValue)

    static let keys = ["name", "input", "expect", "counts"]

    /// Reads `tests:` against the pipeline's destinations, reporting every problem.
    static func readAll(_ node: ConfigValue, destinations: [String], _ reader: inout ConfigReader) -> [PipelineTestCase] {
        guard let sequence = node.sequence else {
            reader.error(node, "tests must be a list of cases, each with name, input and expect")
            return []
        }
        var cases: [PipelineTestCase] = []
        var names: Set<String> = []
        for (index, item) in sequence.enumerated() {
            let errorsBefore = reader.diagnostics.count
            guard let testCase = read(item, position: index + 1, destinations: destinations, &reader) else { continue }
            if !names.insert(testCase.name).inserted {
                reader.error(item.mapping?["name"] ?? item, "two test cases are named '\(testCase.name)'")
            }
            if reader.diagnostics.count == errorsBefore { cases.append(testCase) }
        }
        return cases
    }

    private static func read(_ node: ConfigValue, position: Int, destinations: [String], _ reader: inout ConfigReader) -> PipelineTestCase? {
        let what = "tests[\(position)]"
        guard let entries = reader.mapping(node, known: keys, what: what) else { return nil }
        var testCase = PipelineTestCase(name: "", line: node.line, column: node.column,
                                        input: [], expect: [], rejects: nil, counts: [])
        var sawName = false, sawInput = false, sawCheck = false
        for entry in entries {
            switch entry.key {
            case "name":
                sawName = true
                if let name = reader.string(entry.value, what: "\(what).name") {
                    if name.isEmpty { reader.error(entry.value, "\(what).name is empty") }
                    testCase.name = name
                }
            case "input":
                sawInput = true
                testCase.input = readInput(entry.value, what: "\(what).input", &reader)
            case "expect":
                sawCheck = true
                readExpect(entry.value, into: &testCase, destinations: destinations, what: "\(what).expect", &reader)
            case "counts":
                sawCheck = true
                testCase.counts = readCounts(entry.value, what: "\(what).counts", &reader)
            default:
                break
            }
        }
        if !sawName { reader.error(node, "\(what) needs `name:`") }
        if !sawInput { reader.error(node, "\(what) needs `input:`, a list of events") }
        if !sawCheck { reader.error(node, "\(what) needs `expect:` (or `counts:`): a case that checks nothing cannot fail") }
        return testCase
    }

    private static func readInput(_ node: ConfigValue, what: String, _ reader: inout ConfigReader) -> [[UInt8]] {
        guard let sequence = node.sequence else {
            reader.error(node, "\(what) must be a list of events (YAML mappings, or one line of JSON each)")
            return []
        }
        var lines: [[UInt8]] = []
        for item in sequence {
            if let scalar = item.scalar {
                // Inline JSON, taken as the line it is: broken lines can be tested too.
                if scalar.text.contains("\n") {
                    reader.error(item, "an input string in \(what) is one line of JSON; write each line as its own item")
                    continue
                }
                lines.append(Array(scalar.text.utf8))
                continue
            }
            guard item.mapping != nil else {
                reader.error(item, "each item of \(what) is an event (a YAML mapping) or one line of JSON (a string)")
                continue
            }
            if let value = JSONValue.read(item, &reader, what: what) { lines.append(value.json) }
        }
        return lines
    }

    private static func readExpect(_ node: ConfigValue, into testCase: inout PipelineTestCase, destinations: [String], what: String,
                                   _ reader: inout ConfigReader) {
        guard let entries = reader.mapping(node, known: destinations + ["rejects"], what: what) else { return }
        for entry in entries {
            let records = readRecords(entry.value, rejects: entry.key == "rejects", what: "\(what).\(entry.key)", &reader)
            if entry.key == "rejects" {
                testCase.rejects = Expectation(output: "rejects", records: records)
            } else {
                testCase.expect.append(Expectation(output: entry.key, records: records))
            }
        }
    }

    /// Expected records: YAML mappings, or inline JSON objects; for rejects, a
    /// reason alone (`plan_violation`) stands for `{reason: plan_violation}`.
    private static func readRecords(_ node: ConfigValue, rejects: Bool, what: String, _ reader: inout ConfigReader) -> [JSONValue] {
        guard let sequence = node.sequence else {
            reader.error(node, "\(what) must be a list of records (`[]` for none)")
            return []
        }
        var records: [JSONValue] = []
        for item in sequence {
            if let scalar = item.scalar {
                if rejects && scalar.style == .plain && !scalar.text.hasPrefix("{") {
                    if checkReason(scalar.text, item, what: what, &reader) { records.append(.object([("reason", .string(scalar.text))])) }
                    continue
                }
                guard let document = try? JSONDocument.parse(Array(scalar.text.utf8)) else {
                    reader.error(item, "\(what) holds a string that is not a JSON object; write the record as a YAML mapping or as one line of JSON")
                    continue
                }
                records.append(JSONValue(document, 0))
                continue
            }
            guard item.mapping != nil, let value = JSONValue.read(item, &reader, what: what, allowAbsent: true) else {
                if item.mapping == nil { reader.error(item, "each item of \(what) is a record: a YAML mapping or one line of JSON") }
                continue
            }
            if rejects, let reasonNode = item.mapping?["reason"], let reason = reasonNode.scalar?.text {
                _ = checkReason(reason, reasonNode, what: what, &reader)
            }
            records.append(value)
        }
        return records
    }

    private static func checkReason(_ reason: String, _ node: ConfigValue, what: String, _ reader: inout ConfigReader) -> Bool {
        let reasons = RejectReason.allCases.map(\.rawValue)
        if reasons.contains(reason) { return true }
        reader.error(node, "\(what): '\(reason)' is not a reject reason" + ConfigReader.suggestion(for: reason, among: reasons))
        return false
    }

    private static func readCounts(_ node: ConfigValue, what: String, _ reader: inout ConfigReader) -> [(name: String, value: Int)] {
        guard let entries = reader.mapping(node, known: countNames, what: what) else { return [] }
        var counts: [(name: String, value: Int)] = []
        for entry in entries {
            if let value = reader.integer(entry.value, what: "\(what).\(entry.key)", range: 0...Int.max) {
                counts.append((entry.key, value))
            }
        }
        return counts
    }
}

extension PipelineConfiguration {
    /// The file's `tests:` cases, checked against its destinations (every problem at once).
    public func testCases() throws(ConfigurationError) -> [PipelineTestCase] {
        guard let testsNode else { return [] }
        var reader = ConfigReader(file: file)
        // A destination's side outputs are checked by their own names (`mixpanel.profiles`).
        let outputs = destinations.flatMap { settings in
            [settings.name] + settings.sideOutputs.map { SideOutputKind.outputName(destination: settings.name, kind: $0.kind.name) }
        }
        let cases = PipelineTestCase.readAll(testsNode, destinations: outputs, &reader)
        if !reader.diagnostics.isEmpty { throw ConfigurationError(diagnostics: reader.diagnostics) }
        return cases
    }
}
