import ArgumentParser
import Foundation
import Logging
import Sluice

struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Work with the tracking plan of a pipeline's plan stage: generate the app's typed event catalog.",
        subcommands: [PlanSwiftCommand.self]
    )
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

    @Option(help: ArgumentHelp("The pipeline file whose plan stage holds the tracking plan.", valueName: "file"),
            completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String

    @Option(help: ArgumentHelp("Write the Swift file here (default: stdout).", valueName: "path"))
    var output: String?

    @Option(help: ArgumentHelp("Check that this generated file matches the plan (exit 1 if stale); write nothing.", valueName: "file"))
    var check: String?

    @Option(help: ArgumentHelp("The access level of the generated types: public or internal (default: public).", valueName: "level"))
    var access: String = "public"

    @Option(name: .customLong("type-name"),
            help: ArgumentHelp("The events' enum; the other types are named after it (default: AnalyticsEvent).", valueName: "name"))
    var typeName: String = "AnalyticsEvent"

    func validate() throws {
        guard SwiftCatalog.Access(rawValue: access) != nil else {
            throw ValidationError("--access must be public or internal, not '\(access)'")
        }
        let identifier = typeName.unicodeScalars
        guard let first = identifier.first, first == "_" || first.properties.isAlphabetic,
              identifier.allSatisfy({ $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }),
              identifier.allSatisfy(\.isASCII) else {
            throw ValidationError("--type-name must be a Swift type name (letters, digits and _, not starting with a digit), not '\(typeName)'")
        }
        if check != nil && output != nil { throw ValidationError("--check writes nothing: give it without --output") }
    }

    func run() throws {
        var request = CatalogProgram.Request(pipelinePath: pipeline)
        request.outputPath = output
        request.checkPath = check
        request.typeName = typeName
        request.access = SwiftCatalog.Access(rawValue: access)!
        let console = StderrConsole()
        let status = CatalogProgram.swift(request, logger: .sluiceStderr(console: console, quiet: false)) { text in
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        if status != 0 { throw ExitCode(status) }
    }
}
