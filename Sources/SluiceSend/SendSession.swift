import AsyncHTTPClient
import Dispatch
import Foundation
import Logging
import Sluice
#if canImport(Glibc)
import Glibc
#endif

/// The sending itself: one HTTP client, per destination a queue with its
/// ledger and `concurrency` senders; signals, `--watch`, progress, and the
/// reports at the end.
struct SendSession: Sendable {
    let options: SendRun.Options
    let targets: [SendRun.Target]
    /// The progress line's; messages go through `logger`.
    let console: StderrConsole
    /// Scrubs the secrets out of every message (`RedactingLogHandler`).
    let logger: Logger
    /// The secrets, for what is written to files (`--stats`).
    let redactor: Redactor

    func run() async -> Int32 {
        let stop = StopSignal(shutdownTimeout: options.shutdownTimeout)
        var queues: [DestinationQueue] = []
        for target in targets {
            do {
                let ledger = try SendLedger(directory: options.root + "/.sluice-send", destination: target.name) { path, identity in
                    var info = stat()
                    return stat(options.root + "/" + path, &info) == 0 && SendFile.identity(info) == identity
                }
                queues.append(DestinationQueue(name: target.name, dest: target.dest, root: options.root, template: target.template,
                                               api: target.api, afterSend: target.settings.afterSend, ledger: ledger,
                                               checkOnly: options.validate, redactor: redactor))
            } catch {
                logger.error("destination '\(target.name)': \(error)")
                return error.exitCode
            }
        }
        let signals = installSignals(stop, queues)
        defer { signals.forEach { $0.cancel() } }
        let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                configuration: HTTPClient.Configuration(redirectConfiguration: .disallow,
                                                                        timeout: .init(connect: .seconds(10))))
        let showProgress = !options.quiet && (options.progress ?? console.isTerminal)
        let progress = showProgress ? Task { [queues] in await reportProgress(queues, stop: stop) } : nil
        let started = ContinuousClock.now
        // A destination's `max_requests_per_second` holds for all its requests, its side outputs' included.
        var limiters: [String: RateLimiter] = [:]
        for target in targets where limiters[target.dest] == nil {
            limiters[target.dest] = RateLimiter(perSecond: target.settings.maxRequestsPerSecond)
        }
        await withTaskGroup(of: Void.self) { group in
            for (target, queue) in zip(targets, queues) {
                let limiter = limiters[target.dest]!
                group.addTask { await send(target, queue, limiter: limiter, client: client, stop: stop) }
            }
        }
        progress?.cancel()
        _ = await progress?.value
        console.clearStatus()
        try? await client.shutdown()
        return await report(queues, stop: stop, elapsed: started.duration(to: .now))
    }

    /// One file set: its senders take batches until none is left (with `--watch`, until a signal);
    /// `concurrency` of them for a destination's events, one for a side output (`Target.inOrder`).
    private func send(_ target: SendRun.Target, _ queue: DestinationQueue, limiter: RateLimiter, client: HTTPClient,
                      stop: StopSignal) async {
        let delivery = BatchDelivery(client: client, queue: queue, api: target.api, url: target.url, policy: options.retry,
                                     requestTimeout: options.requestTimeout, limiter: limiter, stop: stop)
        while true {
            await queue.scan()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<(target.inOrder ? 1 : target.settings.concurrency) {
                    group.addTask {
                        while let batch = await queue.next(stopping: stop.isStopping) {
                            _ = await delivery.deliver(batch)
                            await queue.finished(batch)
                        }
                    }
                }
            }
            guard options.watch, await queue.failure == nil else { return }
            guard await stop.sleep(options.watchInterval) else { return }
        }
    }

    /// SIGTERM and SIGINT stop sending (requests in flight finish); SIGUSR1 prints the counts so far, as `--stats` would;
    /// SIGHUP (logrotate's postrotate, aimed at `run` beside it) has nothing to reopen and is ignored.
    private func installSignals(_ stop: StopSignal, _ queues: [DestinationQueue]) -> [DispatchSourceSignal] {
        var sources: [DispatchSourceSignal] = []
        for (number, reason) in [(SIGTERM, RunControl.StopReason.terminate), (SIGINT, .interrupt)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.stop(reason) }
            source.resume()
            sources.append(source)
        }
        signal(SIGHUP, SIG_IGN)
        signal(SIGUSR1, SIG_IGN)
        let usr1 = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
        usr1.setEventHandler { [self] in
            Task {
                var all: [(String, SendStats)] = []
                for queue in queues { all.append((queue.name, await queue.stats)) }
                let json = SendStats.statsJSON(all, exitCode: ExitStatus.ok, error: nil).trimmingCharacters(in: .newlines)
                logger.info("stats so far: \(json)")
            }
        }
        usr1.resume()
        sources.append(usr1)
        return sources
    }

    /// A status line every half second: records and bytes sent, rate, and the time left by the files' bytes.
    private func reportProgress(_ queues: [DestinationQueue], stop: StopSignal) async {
        let started = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            var sent = 0, bytes = 0, fileBytes = 0, fileBytesDone = 0
            for queue in queues {
                let stats = await queue.stats
                sent += stats.sent + stats.refused
                bytes += stats.bytes
                fileBytes += stats.fileBytes
                fileBytesDone += stats.fileBytesDone
            }
            let seconds = max(started.duration(to: .now).seconds, 0.001)
            let rate = Double(sent) / seconds
            let fraction = fileBytes == 0 ? 0 : Double(fileBytesDone) / Double(fileBytes)
            let eta = fraction > 0 ? seconds * (1 - fraction) / fraction : nil
            let bar = String(repeating: "#", count: Int(fraction * 20)) + String(repeating: ".", count: 20 - Int(fraction * 20))
            console.showStatus("sluice send [\(bar)] \(sent) records, \(bytes / 1024) KiB sent, \(Int(rate)) records/s"
                + (eta.map { ", ETA \(Int($0.rounded()))s" } ?? ""))
        }
    }

    /// The summary, `--stats` and `--metrics`, and the exit code: a failure's, else the signal's, else 0.
    private func report(_ queues: [DestinationQueue], stop: StopSignal, elapsed: Duration) async -> Int32 {
        var all: [(String, SendStats)] = []
        var failures: [SendFailure] = []
        for queue in queues {
            let stats = await queue.stats
            all.append((queue.name, stats))
            if let failure = await queue.failure { failures.append(failure) }
            if !options.quiet {
                // A check is not a send: its records were validated, and nothing was marked sent.
                let done = options.validate ? "records validated (nothing marked sent)" : "records sent"
                let summary = "send \(queue.name): \(stats.sent) \(done), \(stats.refused) refused, "
                    + "\(stats.alreadyAcknowledged) sent before, \(stats.unsent) unsent; \(stats.filesDone) files done; "
                    + "\(stats.requests) requests (\(stats.retried) retried), \(stats.bytes) bytes, "
                    + String(format: "%.1f", elapsed.seconds) + "s"
                logger.info("\(summary)")
            }
        }
        for failure in failures { logger.error("\(failure)") }
        // The most specific failure wins: credentials, then a refusal, data, I/O, then "try again".
        let order: [Int32] = [ExitStatus.noPermission, ExitStatus.unavailable, ExitStatus.dataError, ExitStatus.ioError,
                              ExitStatus.config, ExitStatus.tryAgain]
        var code = failures.map(\.exitCode).min { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! } ?? stop.signalCode ?? ExitStatus.ok
        let error = failures.first.map { redactor.scrub($0.description) }
        if let path = options.statsPath {
            do { try AtomicFile.write(redactor.scrub(SendStats.statsJSON(all, exitCode: code, error: error)), to: path) } catch {
                logger.error("\(error)")
                if code == ExitStatus.ok { code = ExitStatus.cannotCreate }
            }
        }
        if let path = options.metricsPath {
            do { try AtomicFile.write(SendStats.prometheus(all), to: path) } catch {
                logger.error("\(error)")
                if code == ExitStatus.ok { code = ExitStatus.cannotCreate }
            }
        }
        return code
    }
}
