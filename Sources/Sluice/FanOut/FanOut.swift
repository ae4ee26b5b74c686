import SluiceJSON

/// Hands each event that came through the stages to every destination that
/// takes it, in the pipeline's order, and keeps each destination's counts.
///
/// For each destination: its routing rules (`events:`, the event's
/// `integrations`), a stage's withholding (consent), its `rename:`, then the
/// adapter's own skip rule, and its encoding into its output. The event is
/// borrowed, not copied, on the way to every destination; the fields one
/// adapter reads of it are kept in an `EncodingContext` for the next one (a
/// renamed copy has bytes of its own, and so a context of its own).
///
/// Each event gets one `Fate` for the run's balance, however many
/// destinations took it: emitted if any did, else rejected with the first
/// refusal, else dropped (withheld by a stage, or routed nowhere). Every
/// refusal is a reject record naming its destination, even when another
/// destination took the event.
///
/// Identify, group and alias messages a destination encodes as profiles
/// (its `profileTypes`) go through `offerProfile`: their records may go to the
/// destination's side outputs as well (see `SideOutputs.swift`). A
/// destination's profile types are types it does not take as events, so an
/// event it takes is never tested for them.
///
/// Stdout is the one output a reader can close early: what it never got
/// leaves the counts again (see `absorbStdoutLoss`).
final class FanOut {
    /// What became of one event at the fan-out, for the run's balance.
    enum Fate: Equatable {
        case emitted
        case rejected(RejectReason)
        case dropped(DropReason)
    }

    /// What one destination made of an event.
    private enum Offer {
        case notTaken, delivered
        case refused(Rejection)
    }

    /// One per destination, in the pipeline's order (an event's `withheld` marks them by index).
    @exclusivity(unchecked) private var lanes: [DestinationLane]
    /// The records a profile message makes for a destination's events' file set, before they are handed to it.
    @exclusivity(unchecked) private var profileRecords = ByteBuffer(capacity: 1024)
    private let stdout: StdoutSink?
    private let stdoutIndex: Int?
    private let rejects: RejectWriter
    /// What the destinations read of the event being fanned out (one for it, one for a renamed copy).
    @exclusivity(unchecked) private var encoding = EncodingContext()
    @exclusivity(unchecked) private var renamedEncoding = EncodingContext()
    /// The monotonic clock when the event being fanned out was taken up (files' `max_age`).
    @exclusivity(unchecked) private var clock: UInt64 = 0

    /// - Parameters:
    ///   - outputs: one output per destination, at the same index.
    ///   - rejects: where destinations' refusals are written.
    init(destinations settings: [DestinationSettings], outputs: some FanOutOutputs, rejects: RejectWriter) {
        lanes = settings.indices.map {
            DestinationLane(settings: settings[$0], output: outputs.destinations[$0], sides: outputs.sides[$0])
        }
        stdout = outputs.stdout
        stdoutIndex = outputs.stdoutIndex
        self.rejects = rejects
        if let stdoutIndex { lanes[stdoutIndex].counts.toStdout = true }
    }

    /// The destinations' device memories, by destination name, for `--state`.
    var deviceMemories: [NamedDeviceMemory] {
        lanes.compactMap { lane in
            lane.destination.deviceMemory.map {
                NamedDeviceMemory(name: lane.counts.name, signature: $0.signature, memory: $0.memory)
            }
        }
    }

    /// Offers the event to every destination; returns what became of it.
    func deliver(_ event: Event) throws -> Fate {
        // Destinations read fields by node index: hand them a document whose
        // bytes already hold every stage's edits (stages usually leave none).
        if event.document.isModified {
            var materialized = event
            materialized.document = event.document.materialized()
            return try fanOut(materialized)
        }
        return try fanOut(event)
    }

    private func fanOut(_ event: Event) throws -> Fate {
        var deliveries = 0
        var stdoutTook = false
        var firstRefusal: Rejection?
        var withheld = false
        let integrations = RoutingRules.integrations(of: event)
        encoding.reset()
        clock = Monotonic.nanoseconds()
        for index in lanes.indices {
            guard lanes[index].routes.accepts(event, integrations: integrations) else { continue }
            if let mark = event.withheld, mark.contains(index) {
                // A stage ruled this destination out for this event (consent): counted here, not sent.
                lanes[index].notTaken.add(mark.reason.rawValue)
                withheld = true
                continue
            }
            // `rename:` comes first, so every rule of the destination (its names, Adjust's tokens) sees the new name.
            let result: Offer
            if let name = lanes[index].rename.isEmpty ? nil : lanes[index].rename[event.name] {
                renamedEncoding.reset()
                result = try offer(event.renamed(to: name), to: index, context: &renamedEncoding)
            } else {
                result = try offer(event, to: index, context: &encoding)
            }
            switch result {
            case .notTaken: break
            case .delivered:
                deliveries += 1
                if index == stdoutIndex { stdoutTook = true }
            case let .refused(rejection): if firstRefusal == nil { firstRefusal = rejection }
            }
        }
        if stdoutTook && deliveries > 1 { stdout?.markLastEventShared() }
        if deliveries > 0 { return .emitted }
        if let firstRefusal { return .rejected(firstRefusal.reason) }
        if withheld, let mark = event.withheld { return .dropped(mark.reason) }
        return .dropped(.unrouted)
    }

    /// Encodes the event for the destination at `index` and counts what it made of it.
    private func offer(_ event: Event, to index: Int, context: inout EncodingContext) throws -> Offer {
        if let reason = lanes[index].destination.skipReasonInPlace(for: event) {
            // A destination's profile types are ones it does not take as events: asked
            // only here, so an event the destination takes is not tested for them.
            if lanes[index].profileTypes.contains(event.type) { return try offerProfile(event, to: index, context: &context) }
            lanes[index].notTaken.add(reason)
            return .notTaken
        }
        var outcome = EncodeOutcome.records(0)
        let output = lanes[index].lent
        let written = try output.append(time: event.time, now: clock) { buffer in
            outcome = lanes[index].destination.encode(event, context: &context, into: &buffer)
            if case let .records(count) = outcome { return count }
            return 0
        }
        switch outcome {
        case .records:
            guard written > 0 else { return .notTaken }
            lanes[index].counts.events += 1
            lanes[index].counts.records += written
            return .delivered
        case let .refused(rejection):
            // The line itself is counted once, by the caller's `Fate`.
            lanes[index].counts.refused[rejection.reason.rawValue, default: 0] += 1
            try rejects.write(line: event.document.bytes, origin: event.origin, stage: "destination",
                              destination: lanes[index].counts.name, rejection: rejection)
            return .refused(rejection)
        }
    }

    /// An identify, group or alias message for a destination that encodes it
    /// as profiles: its records for the events' file set are appended like an
    /// event's, those for the side outputs only once the message is taken.
    private func offerProfile(_ event: Event, to index: Int, context: inout EncodingContext) throws -> Offer {
        // The lane's side records, out of it while its adapter writes them (two accesses to a lane at once).
        var records = SideRecords(count: 0)
        swap(&records, &lanes[index].sideRecords)
        defer { swap(&records, &lanes[index].sideRecords) }
        records.reset()
        profileRecords.removeAll()
        // Encoded apart, then handed to the output only when there are records for it: most
        // such messages make none there (GA4 remembers, Mixpanel's profiles go to side outputs).
        let outcome = lanes[index].destination.encodeProfile(event, context: &context, into: &profileRecords, side: &records)
        var written = 0
        if case let .records(count) = outcome, count > 0 {
            written = try lanes[index].lent.append(time: event.time, now: clock, records: profileRecords, count: count)
        }
        switch outcome {
        case .records:
            guard written + records.total > 0 else {
                lanes[index].notTaken.add("nothing_to_send")
                return .notTaken
            }
            let sides = lanes[index].sides, kinds = lanes[index].sideKinds
            for side in sides.indices where records.counts[side] > 0 {
                let count = try sides[side].append(time: event.time, now: clock, records: records.buffers[side],
                                                   count: records.counts[side], weight: records.weights[side],
                                                   limit: kinds[side].perFileLimit?.max)
                lanes[index].counts.outputs[side].records += count
            }
            lanes[index].counts.events += 1
            lanes[index].counts.records += written
            return .delivered
        case .remembered:
            lanes[index].counts.events += 1
            return .delivered
        case let .notTaken(reason):
            lanes[index].notTaken.add(reason)
            return .notTaken
        case let .refused(rejection):
            lanes[index].counts.refused[rejection.reason.rawValue, default: 0] += 1
            try rejects.write(line: event.document.bytes, origin: event.origin, stage: "destination",
                              destination: lanes[index].counts.name, rejection: rejection)
            return .refused(rejection)
        }
    }

    /// Each destination's counts so far, with what its output wrote and what its adapter changed.
    /// Once the outputs are `finished` (or failed), a record that is not in a
    /// finished file never will be: it is counted not delivered.
    func destinationCounts(outputs: some FanOutOutputs, finished: Bool) -> [DestinationCounts] {
        var result = lanes.map(\.counts)
        func notDelivered(_ records: Int, _ report: CompressionWorker.Report) -> Int {
            guard finished, let inFiles = report.finishedRecords else { return 0 }
            return max(0, records - inFiles)
        }
        for index in result.indices {
            let report = outputs.report(destination: index)
            result[index].notDelivered = notDelivered(result[index].records, report)
            result[index].files = report.fileCount
            result[index].uncompressedBytes = report.uncompressedBytes
            result[index].compressedBytes = report.compressedBytes
            result[index].changes = lanes[index].destination.changes
            for side in result[index].outputs.indices {
                let report = outputs.report(destination: index, side: side)
                result[index].outputs[side].notDelivered = notDelivered(result[index].outputs[side].records, report)
                result[index].outputs[side].files = report.fileCount
                result[index].outputs[side].uncompressedBytes = report.uncompressedBytes
                result[index].outputs[side].compressedBytes = report.compressedBytes
            }
            for (reason, count) in lanes[index].notTaken.entries { result[index].notTaken[reason, default: 0] += count }
        }
        return result
    }

    /// Events whose records stdout's reader never got (it closed the pipe
    /// first) are not delivered there: they leave the destination's counts
    /// for `not_taken` `stdout_closed`; returns the lines no other destination
    /// took, which the runner moves from `emitted` to `dropped` `stdout_closed`,
    /// so the balance stays exact. Called after every hand-over and at the finish.
    func absorbStdoutLoss() -> Int {
        guard let stdout, let index = stdoutIndex else { return 0 }
        let loss = stdout.takeLoss()
        guard loss.events > 0 else { return 0 }
        lanes[index].counts.events -= loss.events
        lanes[index].counts.records -= loss.records
        lanes[index].counts.notTaken[DropReason.stdoutClosed.rawValue, default: 0] += loss.events
        return loss.lines
    }
}

/// What the fan-out needs of the outputs (`OutputSet` in Pipeline/ has them):
/// each destination's output and side outputs by index, stdout's, and what each wrote.
protocol FanOutOutputs {
    var destinations: [DestinationOutput] { get }
    var sides: [[DestinationOutput]] { get }
    var stdout: StdoutSink? { get }
    var stdoutIndex: Int? { get }
    func report(destination: Int) -> CompressionWorker.Report
    func report(destination: Int, side: Int) -> CompressionWorker.Report
}

/// A destination's device memory as the `--state` file keeps it, by the destination's name.
struct NamedDeviceMemory {
    var name: String
    var signature: String
    var memory: DeviceMemory
}
