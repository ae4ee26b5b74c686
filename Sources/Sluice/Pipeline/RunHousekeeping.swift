import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the runner does between reads of input, on its own thread: serve
/// requests (stop, rotate, stats), call reporters that are due, and for an
/// input that can block, wait in poll(2) on the input and the control's
/// wake-up pipe together, so a signal never waits for the next line.
extension PipelineRunner: InputGate {
    func awaitReadable(fd: Int32, mayBlock: Bool) throws {
        while true {
            try serveRequests()
            if stopping { throw InputStopped() }
            let now = Monotonic.nanoseconds()
            runDueReporters(now: now)
            if !mayBlock { return }
            var descriptors = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: control.wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            var timeout: Int32 = -1
            if let due = reportersDue.min() {
                timeout = due <= now ? 0 : Int32(min((due - now) / 1_000_000 + 1, UInt64(Int32.max)))
            }
            let ready = poll(&descriptors, 2, timeout)
            if ready > 0 && descriptors[0].revents != 0 {
                // Data (or end of input, or an error read(2) will report). A
                // stop that came with it still wins: nothing more is read.
                try serveRequests()
                if stopping { throw InputStopped() }
                return
            }
        }
    }

    /// Serves what other threads asked for since the last read.
    private func serveRequests() throws {
        let requests = control.take()
        if requests.stop != nil {
            stopping = true
            stopReading = true
        }
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
        guard !reporters.isEmpty else { return }
        var summary: RunSummary?
        for index in reporters.indices where now >= reportersDue[index] {
            let reporter = reporters[index]
            reportersDue[index] = now + UInt64(max(reporter.interval.nanoseconds, 1_000_000))
            if summary == nil { summary = snapshot() }
            do {
                try reporter.report(summary!)
            } catch {
                if reportersWarned.insert(index).inserted { logger.warning("\(error)") }
            }
        }
    }
}
