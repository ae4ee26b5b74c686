import ArgumentParser
import Foundation
import Logging
import Sluice

struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Work with tracking plans: the app's typed event catalog from a plan, a draft plan from logs.",
        subcommands: [PlanSwiftCommand.self, PlanTypeScriptCommand.self, PlanKotlinCommand.self, PlanInferCommand.self]
    )
}

/// What every catalog generator takes: the pipeline, and where the file goes or which file to check.
struct CatalogFileOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The pipeline file whose plan stage holds the tracking plan.", valueName: "file"),
            completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String

    @Option(help: ArgumentHelp("Write the generated file here (default: stdout).", valueName: "path"))
    var output: String?

    @Option(help: ArgumentHelp("Check that this generated file matches the plan (exit 1 if stale); write nothing.", valueName: "file"))
    var check: String?

    func validate() throws {
        if check != nil && output != nil { throw ValidationError("--check writes nothing: give it without --output") }
    }

    func request() -> CatalogProgram.Request {
        var request = CatalogProgram.Request(pipelinePath: pipeline)
        request.outputPath = output
        request.checkPath = check
        return request
    }
}

struct PlanSwiftCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swift",
        abstract: "Write the plan as a typed Swift event catalog for the app (one dependency-free file).",
        discussion: """
        The plan stage's events become the cases of an enum (default
        AnalyticsEvent) with associated values typed from the plan (integer Int,
        number Double, boolean Bool, string String, timestamp Date, enum a nested
        enum, object and array JSON values; required ones without a default),
        screens the cases of AnalyticsScreen, identify's traits the struct
        AnalyticsTraits; each has name, properties and segmentMessage. A tracker
        protocol and a recording tracker for tests come with them. The same plan
        gives the same bytes; the header carries the plan's fingerprint, which
        --check compares.

        Examples:
          sluice plan swift --pipeline pipelines/plan.yaml --output App/AnalyticsEvent.swift
          sluice plan swift --pipeline pipelines/plan.yaml --check App/AnalyticsEvent.swift

        Exit codes: 0 written (or, with --check, the file matches the plan), 1 with
        --check, the file is stale or not a generated catalog, 64 usage, 66 the file
        to check cannot be read, 73 the output cannot be written, 78 the pipeline
        has errors or no plan stage.
        """
    )

    @OptionGroup var file: CatalogFileOptions

    @Option(help: ArgumentHelp("The access level of the generated types: public or internal (default: public).", valueName: "level"))
    var access: String = "public"

    @Option(name: .customLong("type-name"),
            help: ArgumentHelp("The events' enum; the other types are named after it (default: AnalyticsEvent).", valueName: "name"))
    var typeName: String = "AnalyticsEvent"

    func validate() throws {
        guard SwiftCatalog.Access(rawValue: access) != nil else {
            throw ValidationError("--access must be public or internal, not '\(access)'")
        }
        try PlanSwiftCommand.validateTypeName(typeName)
    }

    func run() throws {
        var request = file.request()
        request.typeName = typeName
        request.access = SwiftCatalog.Access(rawValue: access)!
        try PlanSwiftCommand.generate(request)
    }

    /// Runs `CatalogProgram.generate`; the text to stdout, a nonzero status as the exit code.
    static func generate(_ request: CatalogProgram.Request) throws {
        let console = StderrConsole()
        let status = CatalogProgram.generate(request, logger: .sluiceStderr(console: console, quiet: false)) { text in
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// `--type-name` must be an identifier in every language the catalog is written in.
    static func validateTypeName(_ typeName: String) throws {
        let identifier = typeName.unicodeScalars
        guard let first = identifier.first, first == "_" || first.properties.isAlphabetic,
              identifier.allSatisfy({ $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }),
              identifier.allSatisfy(\.isASCII) else {
            throw ValidationError("--type-name must be a type name (letters, digits and _, not starting with a digit), not '\(typeName)'")
        }
    }
}

struct PlanTypeScriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "typescript",
        abstract: "Write the plan as a typed TypeScript event catalog for a web app (one dependency-free module).",
        discussion: """
        Each planned event's properties become an interface under the plan's own
        names (required ones required, optional ones `?`, nullable ones `| null`,
        integer and number `number`, timestamp `Date`, an enum the union of its
        literals, object and array JSON values); AnalyticsEvent is the union of
        the events, with one constructor each (AnalyticsEvent.movieTapped({...})),
        and trackMessage() gives the Segment-spec message. Screens, identify's
        traits, a tracker interface and a recording tracker for tests come with
        them. tsc --strict refuses a misspelt event, a missing required property
        or a wrong type; it cannot tell 1.5 from an integer, which the pipeline's
        plan stage still refuses. The header carries the plan's fingerprint,
        which --check compares.

        Examples:
          sluice plan typescript --pipeline pipelines/plan.yaml --output web/src/AnalyticsEvent.ts
          sluice plan typescript --pipeline pipelines/plan.yaml --check web/src/AnalyticsEvent.ts

        Exit codes: as `sluice plan swift`.
        """
    )

    @OptionGroup var file: CatalogFileOptions

    @Option(name: .customLong("type-name"),
            help: ArgumentHelp("The events' union type; the other types are named after it (default: AnalyticsEvent).", valueName: "name"))
    var typeName: String = "AnalyticsEvent"

    func validate() throws {
        try PlanSwiftCommand.validateTypeName(typeName)
    }

    func run() throws {
        var request = file.request()
        request.language = .typescript
        request.typeName = typeName
        try PlanSwiftCommand.generate(request)
    }
}

struct PlanKotlinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kotlin",
        abstract: "Write the plan as a typed Kotlin event catalog for an Android app (one dependency-free file).",
        discussion: """
        The plan stage's events become data classes of the sealed class
        AnalyticsEvent (an event without properties an object), their
        properties typed from the plan (integer Long, number Double, boolean
        Boolean, string String, timestamp java.util.Date, enum an enum class,
        object and array Map and List; required ones without a default),
        screens those of AnalyticsScreen, identify's traits the data class
        AnalyticsTraits; each has name, properties and segmentMessage (and
        segmentJson, JSON text written by the file itself). A tracker interface
        and a recording tracker for tests come with them. Kotlin 1.3 or later,
        no library beyond the JDK's. The header carries the plan's fingerprint,
        which --check compares.

        Examples:
          sluice plan kotlin --pipeline pipelines/plan.yaml --package com.example.analytics --output app/src/main/java/AnalyticsEvent.kt
          sluice plan kotlin --pipeline pipelines/plan.yaml --check app/src/main/java/AnalyticsEvent.kt

        Exit codes: as `sluice plan swift`.
        """
    )

    @OptionGroup var file: CatalogFileOptions

    @Option(name: .customLong("package"), help: ArgumentHelp("The file's Kotlin package (default: none).", valueName: "name"))
    var packageName: String?

    @Option(name: .customLong("type-name"),
            help: ArgumentHelp("The events' sealed class; the other types are named after it (default: AnalyticsEvent).", valueName: "name"))
    var typeName: String = "AnalyticsEvent"

    func validate() throws {
        try PlanSwiftCommand.validateTypeName(typeName)
        if let packageName {
            let parts = packageName.split(separator: ".", omittingEmptySubsequences: false)
            guard !parts.isEmpty, parts.allSatisfy({ part in
                guard let first = part.first, first.isASCII, first.isLetter || first == "_" else { return false }
                return part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            }) else {
                throw ValidationError("--package must be a Kotlin package name such as com.example.analytics, not '\(packageName)'")
            }
        }
    }

    func run() throws {
        var request = file.request()
        request.language = .kotlin
        request.typeName = typeName
        request.packageName = packageName
        try PlanSwiftCommand.generate(request)
    }
}

struct PlanInferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "infer",
        abstract: "Write a draft tracking plan from logs: every event and screen seen, with its properties' types.",
        discussion: """
        Reads NDJSON events (files, directories, gzip, or stdin) and writes a
        pipeline file whose plan stage lists every event and screen seen and
        identify's traits, each property with the narrowest type every value
        seen fits (integer before number, timestamp before string), nullable when
        null was seen, an enum when a string property takes at most --enum-max
        distinct values over at least --enum-min-events occurrences, required
        when every occurrence had it; counts as comments. Under it, the same
        events pass the plan stage. A property whose values ever hold personal
        data (an email, a phone number, an IP address, a card, an IBAN) is never
        an enum, so no such value is written into the plan. Memory is bounded:
        distinct values are counted only up to --enum-max.

        Examples:
          sluice plan infer /var/log/app/2026-11-20/ > plan.yaml
          zcat day.ndjson.gz | sluice plan infer --enum-max 20 > plan.yaml

        Exit codes: 0 written, 65 a gzip input is corrupt (the lines before the
        damage were read), 66 an input cannot be opened, 73 the output cannot be
        written, 74 a read error.
        """
    )

    @Option(help: ArgumentHelp("Write the plan here (default: stdout).", valueName: "path"))
    var output: String?

    @Option(name: .customLong("enum-max"), help: ArgumentHelp("At most this many distinct values make a string an enum (default: 10).", valueName: "n"))
    var enumMax = 10

    @Option(name: .customLong("enum-min-events"),
            help: ArgumentHelp("A string property becomes an enum only when seen at least this often (default: 20).", valueName: "n"))
    var enumMinEvents = 20

    @Argument(help: ArgumentHelp("NDJSON inputs (plain or gzip), or directories of them; none or - is stdin.", valueName: "input"),
              completion: .file())
    var inputs: [String] = []

    func validate() throws {
        if enumMax < 0 || enumMax > 1000 { throw ValidationError("--enum-max must be 0 to 1000, not \(enumMax)") }
        if enumMinEvents < 1 { throw ValidationError("--enum-min-events must be positive, not \(enumMinEvents)") }
    }

    func run() throws {
        var options = PlanInference.Options()
        options.enumMax = enumMax
        options.enumMinEvents = enumMinEvents
        let console = StderrConsole()
        let status = CatalogProgram.infer(inputs: inputs, output: output, options: options,
                                          logger: .sluiceStderr(console: console, quiet: false)) { text in
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        if status != 0 { throw ExitCode(status) }
    }
}
