// Unsafe code: one `withUnsafeBufferPointer`, to decode a pending line from the
// state with `Event.decode`, which takes lines as buffers; the array outlives
// the call and the decoded event keeps its own copy.

/// How a run is put together before its first line: the stages told about
/// the destinations, the `--state` restored, and the inputs made into a feed
/// in the order asked for.
extension PipelineRunner {
    /// Tells the stages that withhold events from destinations what the destinations are,
    /// and has the stages that find personal data make what scrubs rejected lines
    /// (unless `rejects: {raw: keep}`).
    static func prepare(_ stages: inout [any Stage],
                        for configuration: PipelineConfiguration) -> [(stage: Int, scrubber: any RejectScrubber)] {
        let descriptors = configuration.destinations.enumerated().map { index, settings in
            DestinationDescriptor(index: index, name: settings.name, type: settings.type.name,
                                  consentCategory: settings.consentCategory)
        }
        var rejectScrubbers: [(stage: Int, scrubber: any RejectScrubber)] = []
        for index in stages.indices {
            stages.mutate(index, as: (any DestinationWithholdingStage).self) { $0.prepare(destinations: descriptors) }
            if !configuration.rejects.keepRaw {
                stages.mutate(index, as: (any PersonalDataStage).self) { rejectScrubbers.append((index, $0.makeRejectScrubber())) }
            }
        }
        return rejectScrubbers
    }

    /// Starts the clock and the reporters, resolves the inputs' paths and
    /// restores the `--state`; returns the paths, the state file and the lines
    /// an exact-order run left pending in it. On failure the outputs are finished.
    func begin(inputs arguments: [String], contents: [UInt8]?) throws -> (paths: [String], state: StateFile?, pendingIn: [Event]) {
        started = Monotonic.nanoseconds()
        reporters.start(at: started)
        do {
            let paths = try contents == nil ? InputList.resolve(arguments) : arguments
            summary.inputBytesTotal = contents.map(\.count) ?? InputSize.total(of: paths)
            guard let statePath = options.statePath else { return (paths, nil, []) }
            let (state, pendingIn) = try restoreState(from: statePath)
            return (paths, state, pendingIn)
        } catch {
            _ = try? finishOutputs()
            throw error
        }
    }

    /// Locks the state file and restores the stages from it (a missing file is a first run);
    /// returns it and the lines an exact-order run left pending in it.
    private func restoreState(from path: String) throws(StateError) -> (StateFile, [Event]) {
        summary.usesState = true
        let state = try StateFile(path: path)
        let loading = Monotonic.nanoseconds()
        var pending: [Event] = []
        if let header = try state.load(into: &stages, memories: fanOut.deviceMemories, sourceBase: Int32(rejects.sourceNames.count)) {
            for pendingLine in header.pending {
                let origin = pendingLine.origin
                let decoded = pendingLine.line.withUnsafeBufferPointer { Event.decode($0, origin: origin, scratch: parseScratch) }
                guard case .success(let event) = decoded else {
                    throw .corrupt(path: path, detail: "a pending line (from line \(origin.line) of an earlier input) is not an event")
                }
                pending.append(event)
            }
            rejects.sourceNames += header.sources
            rejects.latestTime = header.latestTime
            summary.carriedIn = header.carriedLines + pending.count
            summary.state.loadedBytes = header.fileBytes
            summary.state.restoredDevices = header.restoredDevices
            summary.state.loadSeconds = Double(Monotonic.nanoseconds() - loading) / 1e9
        }
        return (state, pending)
    }

    /// The inputs in exact order (`ExactOrderFeed`, `InputOrder.resolve`); else one
    /// input, or `--concat`: the inputs one after another, as given; else several
    /// merged in event time over the window (by default the largest `lateness` of
    /// the stages, 5m without).
    func makeFeed(paths: [String], contents: [UInt8]?, pendingIn: [Event]) -> any InputFeed {
        let order = options.concatenateInputs ? .window : InputOrder.resolve(options.order, paths: paths, inMemory: contents != nil)
        let merged = paths.count >= 2 && !options.concatenateInputs
        // Merged inputs are all open at once (exact order's window merge too): their buffers share one budget.
        let reading = InputReading(maxLineBytes: configuration.input.maxLineBytes, pacing: pacing, scratch: parseScratch,
                                   buffers: merged ? .forOpenInputs(paths.count) : .single)
        let base = Int32(rejects.sourceNames.count)
        let inputs = paths.enumerated().map { index, path in
            contents.map { InputLines(bytes: $0, named: path, source: base + Int32(index), reading: reading) }
                ?? InputLines(path: path, source: base + Int32(index), reading: reading)
        }
        rejects.sourceNames += inputs.map(\.name)
        let window = options.reorderWindow
            ?? stages.compactMap { ($0 as? any EventTimeStage)?.toleratedLateness }.max() ?? Self.defaultReorderWindow
        if order == .exact {
            // What is read after the inputs (sorted runs, in-order starts read again) pauses
            // for the housekeeping too, but is read to its end whatever the stop.
            var again = reading
            again.stoppable = false
            again.buffers = .forOpenInputs(16)
            let root = options.temporaryDirectory ?? (options.memoryOutputs == nil ? options.outDirectory : GzipMemberHold.temporaryDirectory)
            SpillDirectory.removeAbandoned(under: root)
            return ExactOrderFeed(
                inputs, rereadable: paths.map { contents != nil || InputOrder.isRegularFile($0) }, carriedIn: pendingIn,
                budgetBytes: configuration.input.reorderBufferBytes, spill: SpillDirectory(root: root),
                carryFrom: options.statePath != nil && !options.finalRun ? window : nil, mergeReading: again,
                reopen: { index in
                    contents.map { InputLines(bytes: $0, named: paths[index], source: base + Int32(index), reading: again) }
                        ?? InputLines(path: paths[index], source: base + Int32(index), reading: again)
                })
        }
        if !merged {
            return ConcatenatedInputs(inputs, pacing: pacing)
        }
        return EventTimeMerge(inputs, window: window, bufferBytes: configuration.input.reorderBufferBytes)
    }

    /// The reorder window without `--reorder-window` when no stage declares a lateness.
    static let defaultReorderWindow = Duration.seconds(5 * 60)

    func warnIfTheReorderBufferWasFull(_ merge: EventTimeMerge) {
        let early = merge.counts.letOutFull
        guard early > 0 else { return }
        let room = configuration.input.reorderBufferBytes
        logger.warning("the reorder buffer was full (input.reorder_buffer: \(room) bytes): \(early) lines went on before their turn; give it more room, or a shorter --reorder-window")
    }
}
