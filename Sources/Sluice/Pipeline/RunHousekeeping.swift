import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a run stops reading before its inputs end.
enum ReadingStop: Equatable {
    /// Stdout's reader went away: nothing more of any input is read.
    case stdoutClosed
    /// A stop was requested (SIGTERM, SIGINT): every later read stops at
    /// once, and what was read already is still processed.
    case requested
}

/// What the runner does between reads of input, on its own thread, when a
/// read pauses for it (`ReadPacing`): before a line buffer is refilled, hand
/// the outputs' pending records on; before a read(2), serve requests (stop,
/// rotate, stats), call reporters that are due, and for an input that can
/// block, wait in poll(2) on the input and the control's wake-up pipe
/// together, so a signal never waits for the next line.
extension PipelineRunner {
    /// Reading must stop (stdout closed, or a stop was requested).
    var stopReading: Bool { readingStop != nil }
    /// A stop was requested: every later read stops at once.
    var stopping: Bool { readingStop == .requested }

    /// What a read that paused needs (`pacing.due`), before the runner asks for the next line again.
    func housekeep() throws {
        switch pacing.due {
        case .refill: try handOver()
        case let .read(fd, mayBlock): try awaitReadable(fd: fd, mayBlock: mayBlock)
        }
    }

    /// Hands every output's pending records on (before each refill); stops
    /// reading once stdout's reader went away.
    func handOver() throws {
        try outputs.handOver()
        if outputs.stdoutClosed && readingStop == nil {
            readingStop = .stdoutClosed
            summary.stdoutClosedEarly = true
        }
        summary.dropStdoutLoss(fanOut.absorbStdoutLoss())
    }

    /// Serves what is due before a read(2) of `fd`; for one that may block,
    /// returns once it is worth reading (data, end of input or an error to
    /// report). After a stop request it returns at once: the read then stops.
    private func awaitReadable(fd: Int32, mayBlock: Bool) throws {
        while true {
            try serveRequests()
            if stopping { return }
            let now = Monotonic.nanoseconds()
            runDueReporters(now: now)
            if !mayBlock { return }
            var descriptors = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: control.wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, reporters.pollTimeout(now: now))
            if ready > 0 && descriptors[0].revents != 0 {
                // Data (or end of input, or an error read(2) will report). A
                // stop that came with it still wins: nothing more is read.
                try serveRequests()
                return
            }
        }
    }

    /// Serves what other threads asked for since the last read.
    private func serveRequests() throws {
        let requests = control.take()
        if requests.stop != nil { readingStop = .requested }
        if requests.rotations > 0 {
            try handOver()
            try outputs.rotateAll()
            logger.info("rotating: the current files are closed and renamed; new records go to new files")
        }
        if requests.statsReports > 0 {
            logger.info("stats so far: \(snapshot().json)")
        }
    }

    private func runDueReporters(now: UInt64) {
        reporters.runDue(now: now, logger: logger) { snapshot() }
    }
}

/// The run's reporters and when each is next due (monotonic nanoseconds).
struct ReporterSchedule {
    private let reporters: [any RunReporter]
    private var due: [UInt64] = []
    /// Reporters whose failure was logged already (once each: a run may last days).
    private var warned: Set<Int> = []

    init(_ reporters: [any RunReporter]) {
        self.reporters = reporters
    }

    /// The run began at `now`: each reporter is first due an interval later.
    mutating func start(at now: UInt64) {
        due = reporters.map { now + Self.interval(of: $0) }
    }

    private static func interval(of reporter: any RunReporter) -> UInt64 {
        UInt64(max(reporter.interval.nanoseconds, 1_000_000))
    }

    /// How long poll(2) may wait (milliseconds) before the next reporter is due; -1: no reporter.
    func pollTimeout(now: UInt64) -> Int32 {
        guard let next = due.min() else { return -1 }
        return next <= now ? 0 : Int32(min((next - now) / 1_000_000 + 1, UInt64(Int32.max)))
    }

    /// Tells the reporters that are due the stats (made once, by `summary`); a failure is logged once per reporter.
    mutating func runDue(now: UInt64, logger: Logger, summary makeSummary: () -> RunSummary) {
        guard !reporters.isEmpty else { return }
        var summary: RunSummary?
        for index in reporters.indices where now >= due[index] {
            let reporter = reporters[index]
            due[index] = now + Self.interval(of: reporter)
            if summary == nil { summary = makeSummary() }
            do {
                try reporter.report(summary!)
            } catch {
                if warned.insert(index).inserted { logger.warning("\(error)") }
            }
        }
    }
}
