/// How a run ends once its feed has no more lines: event time moved to
/// `--watermark-end`, the stages drained (or what they hold carried to the
/// `--state`), the outputs finished, the state written; and the accounting
/// the run reports.
extension PipelineRunner {
    /// Ends the run after its last line. `inputFailure`: the first input error, if any.
    func end(state: StateFile?, inputFailure: InputError?) throws {
        let pendingOut = (feed as? ExactOrderFeed)?.pending ?? []
        // `--watermark-end` holds for an input read to its end, not one a stop cut short.
        if let end = options.watermarkEnd, !stopReading { try advanceStages(to: end) }
        if state != nil && !options.finalRun {
            // What the stages hold goes to the state, not out as `end_of_input`.
            summary.carried = stages.reduce(0) { $0 + (($1 as? any StatefulStage)?.heldLines ?? 0) } + pendingOut.count
        } else {
            try finishStages()
        }
        try finishOutputs()
        // Written only once every output file is complete, and put in place by
        // `commitState` once the stats are written too: a run that dies or fails
        // before leaves the previous state, and rerunning its inputs repeats
        // outputs rather than losing the lines the state carries. Rejected lines
        // and a corrupt gzip are data problems and the state is written; an input
        // that could not be read is a failed run, and the state is left as it was.
        if let inputFailure, !inputFailure.isDataProblem, let statePath = options.statePath {
            logger.error("--state \(statePath) is left as it was, because an input could not be read: run the same inputs again from it")
        } else if let state {
            let saving = Monotonic.nanoseconds()
            summary.state.savedBytes = try state.write(stages: stages, memories: fanOut.deviceMemories, pendingLines: pendingOut,
                                                        sourceNames: rejects.sourceNames, latestTime: rejects.latestTime)
            summary.state.saveSeconds = Double(Monotonic.nanoseconds() - saving) / 1e9
            stateFile = state
        }
    }

    /// How many held lines a stage lets out per step at the end of input.
    static let finishStep = 4096

    /// Lets out what every stage holds, in pipeline order (what one lets out
    /// goes through the later ones first); a stage keeping event time a step at a time.
    private func finishStages() throws {
        for index in stages.indices {
            var done = false
            while !done {
                var output = StageOutput()
                let stepped = stages.mutate(index, as: (any EventTimeStage).self) {
                    done = $0.finish(into: &output, limit: Self.finishStep)
                }
                if !stepped {
                    stages[index].finish(into: &output)
                    done = true
                }
                try settle(&output, stage: index)
            }
        }
    }

    /// `--watermark-end`: event time reaches `end` in every stage, in pipeline
    /// order (what one lets out goes through the later ones before the next
    /// moves on), as if an event at `end` had just been read. A stage already
    /// past `end` stays where it is: the end is the later of `end` and the input's own.
    private func advanceStages(to end: EventTime) throws {
        if rejects.latestTime.milliseconds > end.milliseconds {
            // (Within the same millisecond it is not worth a word: an epoch-ms TIME from a maximum cut to ms.)
            logger.warning("--watermark-end \(end) is earlier than the input's latest event time \(rejects.latestTime): the input's own end holds")
        }
        if end > rejects.latestTime { rejects.latestTime = end }
        for index in stages.indices {
            var output = StageOutput()
            stages.mutate(index, as: (any EventTimeStage).self) { $0.advance(to: end, into: &output) }
            try settle(&output, stage: index)
        }
    }

    /// Finishes every output (only the first call does anything) and settles what stdout's reader missed.
    func finishOutputs() throws {
        defer {
            outputsFinished = true
            if outputs.stdoutClosed { summary.stdoutClosedEarly = true }
            summary.dropStdoutLoss(fanOut.absorbStdoutLoss())
        }
        try outputs.finish()
    }

    /// The temporary file of the state `run` wrote, waiting for `commitState`, if any.
    var pendingStatePath: String? { stateFile?.pendingPath }

    /// Whether `run` wrote a `--state` that waits for `commitState` or `discardState`.
    public var holdsUnsavedState: Bool { stateFile?.isPending ?? false }

    /// Puts the state `run` wrote in place of the `--state` file: the caller
    /// calls it once the run's stats are written, so a run that fails before
    /// (or is never committed) leaves the previous state for a retry.
    public func commitState() throws(StateError) {
        try stateFile?.commit()
    }

    /// Drops the state `run` wrote: the `--state` file stays as the run found it.
    public func discardState() {
        stateFile?.discard()
    }

    /// The accounting so far (complete once `run` has returned): lines held
    /// by a stage show as `inFlight`.
    public func snapshot() -> RunSummary {
        var result = summary
        result.destinations = fanOut.destinationCounts(outputs: outputs, finished: outputsFinished)
        let rejectsReport = outputs.rejectsReport
        result.rejectFiles = rejectsReport.fileCount
        if outputsFinished, let inFiles = rejectsReport.finishedRecords {
            result.rejectRecordsNotDelivered = max(0, rejects.records - inFiles)
        }
        (result.files, result.filesNotListed) = outputs.finishedFiles
        result.stages = stages.map { ($0.name, $0.counters) }
        result.stageGroups = stages.map(\.counterGroups)
        result.filesRoot = options.writeRoot
        if let feed {
            let reached = feed.inputs.filter(\.reached)
            result.linesIn = reached.reduce(0) { $0 + $1.nonBlankLines }
            result.blankLines = reached.reduce(0) { $0 + $1.blankLines }
            result.inputs = reached.map(\.counts)
            result.reorder = (feed as? EventTimeMerge)?.counts
            if let exact = feed as? ExactOrderFeed {
                result.order = exact.counts
            } else {
                result.order = RunSummary.OrderCounts(mode: feed is EventTimeMerge ? .window : .asRead, inputs: feed.inputs.count,
                                                      budgetBytes: configuration.input.reorderBufferBytes)
            }
        }
        if started > 0 { result.elapsedSeconds = Double(Monotonic.nanoseconds() - started) / 1e9 }
        return result
    }
}
