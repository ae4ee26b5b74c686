#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every output of a run: one per destination, at the destination's index,
/// and the rejects'. Made from the pipeline and the run's options, handed
/// over together, rotated together, finished once.
///
/// Which kind each output is gets decided here, once: memory for all when
/// the options carry `MemoryOutputs` (`sluice test`; no directory is
/// touched), stdout for the one destination named by `--stdout` or with
/// `path: "-"`, files for the rest and for the rejects (never stdout). At most
/// one output writes to stdout, or the records of two would be mixed.
final class OutputSet {
    /// One per destination, in the pipeline's order.
    let destinations: [DestinationOutput]
    /// Per destination, one per side output of its type (`SideOutputKind`), in the type's order.
    let sides: [[DestinationOutput]]
    let rejects: DestinationOutput
    /// The sink of the destination that writes to stdout, if any, and the destination's index.
    let stdout: StdoutSink?
    let stdoutIndex: Int?
    /// Renames the finished files of every file output, off their compression threads.
    private let finisher: FileFinisher
    /// Deflates the blocks of every file output (nil when nothing writes files).
    private let pool: CompressionPool?
    /// What each output wrote, kept once `finish` has ended the outputs (their workers are gone then).
    private var finalReports: [CompressionWorker.Report]?
    private var finalSideReports: [[CompressionWorker.Report]] = []
    private var finalRejectsReport = CompressionWorker.Report()

    /// Checks `--stdout` against the pipeline, creates the output directory and starts a compression thread per file output.
    /// - Parameter openParts: records the `.part` files not yet renamed.
    init(configuration: PipelineConfiguration, options: RunOptions, openParts: OpenPartFiles) throws {
        let finisher = FileFinisher()
        self.finisher = finisher
        let settings = configuration.destinations
        if let name = options.stdoutDestination, !settings.contains(where: { $0.name == name }) {
            throw UsageError("--stdout \(name): no destination of that name; the pipeline has " +
                settings.map(\.name).joined(separator: ", "))
        }
        if let name = options.stdoutDestination,
           let other = settings.first(where: { $0.target == .stdout && $0.name != name }) {
            throw UsageError("--stdout \(name): destination '\(other.name)' already writes to stdout (its path is \"-\"); "
                + "only one destination can write to stdout, or their records would be mixed")
        }
        if let memory = options.memoryOutputs {
            destinations = settings.map {
                DestinationOutput(name: $0.name, sink: MemorySink(name: $0.name, memory: memory), rotation: $0.rotation)
            }
            sides = settings.map { settings in
                settings.sideOutputs.map { side in
                    let name = SideOutputKind.outputName(destination: settings.name, kind: side.kind.name)
                    return DestinationOutput(name: settings.name, sink: MemorySink(name: name, memory: memory), rotation: side.rotation)
                }
            }
            rejects = DestinationOutput(name: "rejects", sink: MemorySink(name: "rejects", memory: memory),
                                        rotation: configuration.rejects.rotation)
            stdout = nil
            stdoutIndex = nil
            pool = nil
            return
        }
        if options.stagingDirectory != nil, let absolute = configuration.fileOutputs.first(where: \.template.isAbsolute) {
            throw UsageError("--staging covers the files under --out, and \(absolute.field) \"\(absolute.template)\" is absolute: "
                + "make it relative to --out, or run without --staging")
        }
        let root = options.writeRoot
        try FileSystem.makeDirectories(root)
        if access(root, W_OK) != 0 { throw OutputError.cannotCreate(path: root, errno: errno) }
        let shard = options.shard ?? .unsharded
        let takenRoot = options.seqSkipsNamesUnderOut && options.stagingDirectory != nil ? options.outDirectory : nil
        let pool = CompressionPool(threads: options.compressionThreads ?? CompressionPool.defaultThreadCount)
        self.pool = pool
        // The file outputs share one budget for their buffers.
        let budget = OutputBudget(fileOutputs: configuration.fileOutputs.count, compressionThreads: pool.threadCount,
                                  totalBytes: options.outputBufferBytes ?? OutputBudget.totalBytes)
        func files(_ template: PathTemplate, _ name: String, output: String? = nil, level: Int, members: GzipMembers = .blocks,
                   rotation: RotationPolicy) -> FileSink {
            FileSink(template: template.filling(shard: shard), worker: CompressionWorker(
                name: name, output: output, root: root, takenRoot: takenRoot, level: level, maxAge: rotation.maxAge,
                flushInterval: options.flushInterval, finisher: finisher, openParts: openParts, pool: pool,
                queueDepth: budget.queueDepth, blockSize: members.blockSize(blocks: budget.blockSize),
                blocksInFlight: budget.blocksInFlight))
        }
        var outputs: [DestinationOutput] = []
        var stdout: StdoutSink?
        var stdoutIndex: Int?
        for settings in settings {
            let sink: any OutputSink
            if case let .files(template) = settings.target, settings.name != options.stdoutDestination {
                sink = files(template, settings.name, level: settings.gzipLevel, members: settings.gzipMembers,
                              rotation: settings.rotation)
            } else {
                stdout = StdoutSink()
                stdoutIndex = outputs.count
                sink = stdout!
            }
            outputs.append(DestinationOutput(name: settings.name, sink: sink, rotation: settings.rotation))
        }
        destinations = outputs
        // Side outputs write files, also when their destination's events go to stdout.
        sides = settings.map { settings in
            settings.sideOutputs.map { side in
                DestinationOutput(name: settings.name, sink: files(side.template, settings.name, output: side.kind.name,
                                                                   level: side.gzipLevel, members: side.gzipMembers, rotation: side.rotation),
                                  rotation: side.rotation)
            }
        }
        self.stdout = stdout
        self.stdoutIndex = stdoutIndex
        let rejects = configuration.rejects
        self.rejects = DestinationOutput(name: "rejects", sink: files(rejects.template, "rejects", level: rejects.gzipLevel,
                                                                        rotation: rejects.rotation),
                                         rotation: rejects.rotation)
    }

    deinit {
        // A run that ended before `finish` (an error setting up) still lets the pool's threads go.
        pool?.shutdown()
    }

    /// Whether stdout's reader went away (`| head`).
    var stdoutClosed: Bool { stdout?.closed ?? false }

    /// Hands every output's pending records on (before the reader blocks).
    func handOver() throws {
        for output in destinations { try output.handOver() }
        for outputs in sides { for output in outputs { try output.handOver() } }
        try rejects.handOver()
    }

    /// Closes and renames every file of every destination, its side outputs
    /// and the rejects (SIGHUP); the next records start new files.
    func rotateAll() throws {
        for output in destinations { try output.rotateAll() }
        for outputs in sides { for output in outputs { try output.rotateAll() } }
        try rejects.rotateAll()
    }

    /// Finishes every output, even past one that fails (its files stay
    /// `.part`), then throws the first error. Only the first call does anything.
    func finish() throws {
        guard finalReports == nil else { return }
        var firstError: Error?
        var reports: [CompressionWorker.Report] = []
        func finished(_ output: DestinationOutput) -> CompressionWorker.Report {
            do {
                return try output.finish()
            } catch {
                if firstError == nil { firstError = error }
                return output.report
            }
        }
        for output in destinations { reports.append(finished(output)) }
        finalSideReports = sides.map { $0.map(finished) }
        do {
            finalRejectsReport = try rejects.finish()
        } catch {
            finalRejectsReport = rejects.report
            if firstError == nil { firstError = error }
        }
        finalReports = reports
        finisher.shutdown()
        pool?.shutdown()
        if let firstError { throw firstError }
    }

    /// What the output of the destination at `index` wrote so far (all of it once finished).
    func report(destination index: Int) -> CompressionWorker.Report {
        finalReports?[index] ?? destinations[index].report
    }

    /// What side output `side` of the destination at `index` wrote so far (all of it once finished).
    func report(destination index: Int, side: Int) -> CompressionWorker.Report {
        finalReports == nil ? sides[index][side].report : finalSideReports[index][side]
    }

    /// The files finished so far: each destination's in the pipeline's order
    /// (its events', then each side output's), then the rejects', each output's
    /// by path; and how many more were only counted.
    var finishedFiles: (listed: [FinishedFile], notListed: Int) {
        var listed: [FinishedFile] = []
        var notListed = 0
        for output in zip(destinations, sides).flatMap({ [$0.0] + $0.1 }) + [rejects] {
            let files = output.sink.finishedFiles
            listed += files.listed.sorted { $0.path < $1.path }
            notListed += files.notListed
        }
        return (listed, notListed)
    }

    /// What the rejects output wrote so far (all of it once finished).
    var rejectsReport: CompressionWorker.Report {
        finalReports == nil ? rejects.report : finalRejectsReport
    }
}

extension OutputSet: FanOutOutputs {}
