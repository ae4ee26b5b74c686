import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Sluice

/// Sends one batch until the provider has answered for every record of it:
///
/// - 2xx: acknowledged.
/// - 400: the records it names (Mixpanel strict mode's `failed_records`) are
///   refused with its reason, the rest acknowledged as sent; a 400 that names
///   none refuses the whole batch with the provider's message. Never retried.
/// - 401, 403 (or an answer the API reads as refusing the credentials, whatever its
///   status): the credentials are refused: sending stops (exit 77), this batch unacknowledged.
/// - 413: the batch is split in two and each half sent; a single record is refused.
/// - 429 naming records (`ProviderAPI.throttledRecords`: Amplitude's daily
///   quotas and throttled events): the refused ones to the send-rejects, the
///   rest sent again at once, the throttled ones after the `RetryPolicy`'s wait.
/// - 408, 429, 5xx, a timeout, a connection error: tried again after the
///   `RetryPolicy`'s wait, until `--max-retry-time` (exit 75).
/// - any other status: sending stops (exit 69), the batch unacknowledged.
struct BatchDelivery: Sendable {
    let client: HTTPClient
    let queue: DestinationQueue
    let api: any ProviderAPI
    let url: String
    let policy: RetryPolicy
    let requestTimeout: Duration
    let limiter: RateLimiter
    let stop: StopSignal

    /// True when every record of `range` was acknowledged.
    func deliver(_ batch: DestinationQueue.Batch) async -> Bool {
        // Records the provider would drop if sent now (GA4's 72 hours) go to the send-rejects, not the request.
        let outdated = api.outdatedRecords(batch.file.bytes(batch.range), count: batch.range.count, nowMs: WallClock.milliseconds())
        guard !outdated.isEmpty else { return await deliver(batch.file, batch.range, gzipped: batch.gzipped) }
        let refused = outdated.map { (index: $0.index + batch.range.lowerBound, reason: $0.reason) }
        guard await queue.refuse(batch.file, status: 0, refused) else { return false }
        for rest in RangeSet.complement(of: refused.map { $0.index..<($0.index + 1) }, in: batch.range) {
            guard await deliver(batch.file, rest, gzipped: nil) else { return false }
        }
        return true
    }

    /// - Parameter since: the first attempt at these records (a part of a batch sent again keeps its batch's deadline).
    private func deliver(_ file: SendFile, _ range: Range<Int>, gzipped: [UInt8]?, since: ContinuousClock.Instant? = nil,
                         attempt startingAttempt: Int = 0) async -> Bool {
        let firstAttempt = since ?? ContinuousClock.now
        var attempt = startingAttempt
        while true {
            if stop.isStopping { return false }
            let slot = await limiter.slot()
            if slot > .now { try? await Task.sleep(until: slot, clock: .continuous) }
            let (headers, body) = api.request(records: file.bytes(range), count: range.count, gzipped: gzipped)
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.body = .bytes(NIOCore.ByteBuffer(bytes: body))
            let started = ContinuousClock.now
            var retryAfter: Duration?
            var why: String
            do {
                let response: Answer
                switch try await exchange(request) {
                case .answered(let answered): response = answered
                case .timedOut: throw RequestCutOff.timedOut
                case .cutOffByStop:
                    // Past --shutdown-timeout after a stop: the batch stays unacknowledged, a rerun sends it.
                    await queue.recordRequest(bytes: body.count, seconds: started.duration(to: .now).seconds)
                    return false
                }
                let answer = response.body
                await queue.recordRequest(bytes: body.count, seconds: started.duration(to: .now).seconds)
                let code = response.status
                switch code {
                case _ where api.refusesCredentials(status: code, body: answer), 401, 403:
                    await queue.fail(.unauthorized("\(queue.name): the provider refused the credentials (HTTP \(code): "
                        + ProviderAnswer.summary(answer) + "); nothing more was sent and nothing unacknowledged was marked sent"))
                    return false
                case 200..<300:
                    let refused = api.refusedInAnswer(answer, count: range.count).map { ($0.index + range.lowerBound, $0.reason) }
                    return await queue.acknowledge(file, range, status: code, refused: refused)
                case _ where code == 400 || api.refusingStatuses.contains(code):
                    guard let named = api.refusedRecords(in: answer, count: range.count) else {
                        return await queue.acknowledge(file, range, status: code,
                                                       refused: range.map { ($0, "\(code): " + ProviderAnswer.summary(answer)) })
                    }
                    let refused = named.map { (index: $0.index + range.lowerBound, reason: $0.reason) }
                    if api.acceptsPartially { return await queue.acknowledge(file, range, status: code, refused: refused) }
                    // Nothing of the batch was taken: the refused records are done with, the rest is sent again.
                    guard await queue.refuse(file, status: code, refused) else { return false }
                    var complete = true
                    for rest in RangeSet.complement(of: refused.map { $0.index..<($0.index + 1) }, in: range) {
                        complete = await deliver(file, rest, gzipped: nil) && complete
                        if !complete { return false }
                    }
                    return complete
                case 413:
                    if range.count == 1 {
                        return await queue.acknowledge(file, range, status: code,
                                                       refused: [(range.lowerBound, "413: the record alone is too large for a request")])
                    }
                    let middle = range.lowerBound + range.count / 2
                    let first = await deliver(file, range.lowerBound..<middle, gzipped: nil)
                    guard first else { return false }
                    return await deliver(file, middle..<range.upperBound, gzipped: nil)
                case 429 where api.throttledRecords(in: answer, records: file.bytes(range), count: range.count) != nil:
                    let named = api.throttledRecords(in: answer, records: file.bytes(range), count: range.count)!
                    return await deliverRest(file, range, named, status: code, since: firstAttempt, attempt: attempt,
                                             retryAfter: RetryPolicy.parseRetryAfter(response.retryAfter))
                case 408, 429, 500..<600:
                    retryAfter = RetryPolicy.parseRetryAfter(response.retryAfter)
                    why = "HTTP \(code)"
                default:
                    await queue.fail(.unavailable("\(queue.name): the provider answered HTTP \(code) to \(file.path) records "
                        + "\(range.lowerBound)..<\(range.upperBound): " + ProviderAnswer.summary(answer)))
                    return false
                }
            } catch {
                await queue.recordRequest(bytes: body.count, seconds: started.duration(to: .now).seconds)
                why = BatchDelivery.describe(error)
            }
            let wait = policy.delay(attempt: attempt, retryAfter: retryAfter)
            if firstAttempt.duration(to: .now) + wait > policy.maxRetryTime {
                await queue.fail(.tryAgain("\(queue.name): gave up on \(file.path) records \(range.lowerBound)..<\(range.upperBound) "
                    + "after \(attempt + 1) attempts within --max-retry-time (last: \(why)); a rerun sends them"))
                return false
            }
            await queue.recordRetry()
            attempt += 1
            // Waiting is not being in flight: a stop ends the wait, the batch stays unacknowledged.
            guard await stop.sleep(wait) else { return false }
        }
    }

    /// After a 429 that named records: the refused ones to the send-rejects, the
    /// ones it did not name sent again now, the throttled ones after the wait.
    private func deliverRest(_ file: SendFile, _ range: Range<Int>, _ named: ThrottledRecords, status: Int,
                             since: ContinuousClock.Instant, attempt: Int, retryAfter: Duration?) async -> Bool {
        let refused = named.refused.sorted { $0.key < $1.key }.map { (index: $0.key + range.lowerBound, reason: $0.value) }
        if !refused.isEmpty {
            guard await queue.refuse(file, status: status, refused) else { return false }
        }
        let throttled = named.throttled.sorted().map { $0 + range.lowerBound }
        let held = RangeSet.merged((refused.map(\.index) + throttled).sorted().map { $0..<($0 + 1) })
        for rest in RangeSet.complement(of: held, in: range) {
            guard await deliver(file, rest, gzipped: nil, since: since, attempt: attempt) else { return false }
        }
        guard !throttled.isEmpty else { return true }
        let wait = policy.delay(attempt: attempt, retryAfter: retryAfter)
        if since.duration(to: .now) + wait > policy.maxRetryTime {
            await queue.fail(.tryAgain("\(queue.name): gave up on \(throttled.count) throttled records of \(file.path) "
                + "after \(attempt + 1) attempts within --max-retry-time (last: HTTP 429); a rerun sends them"))
            return false
        }
        await queue.recordRetry()
        guard await stop.sleep(wait) else { return false }
        for part in RangeSet.merged(throttled.map { $0..<($0 + 1) }) {
            guard await deliver(file, part, gzipped: nil, since: since, attempt: attempt + 1) else { return false }
        }
        return true
    }

    /// A provider's answer, read to its end.
    struct Answer: Sendable {
        var status: Int
        var retryAfter: String?
        var body: [UInt8]
    }

    enum Exchange: Sendable {
        case answered(Answer)
        /// `--request-timeout` ran out before the answer's last byte.
        case timedOut
        /// A stop came and `--shutdown-timeout` ran out with the request still in flight.
        case cutOffByStop
    }

    enum RequestCutOff: Error { case timedOut }

    /// One request and its whole answer, cut off at `requestTimeout` (from connecting to the answer's
    /// last byte: a server that drips its answer cannot hold a sender), or once a stop's shutdown
    /// timeout runs out. Cutting off cancels the request's task, which closes its connection.
    private func exchange(_ request: HTTPClientRequest) async throws -> Exchange {
        let (client, timeout, stop) = (self.client, requestTimeout, self.stop)
        return try await withThrowingTaskGroup(of: Exchange.self) { group in
            group.addTask {
                let response = try await client.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
                let body = Array(buffer: try await response.body.collect(upTo: 8 << 20))
                return .answered(Answer(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
                                        body: body))
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return .timedOut
            }
            group.addTask {
                await stop.shutdownTimeoutPassed()
                try Task.checkCancellation()
                return .cutOffByStop
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// A transport error in a few words (never a request's headers).
    static func describe(_ error: any Error) -> String {
        if error is RequestCutOff { return "timeout" }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout: return "timeout"
            case .remoteConnectionClosed: return "connection closed"
            default: return "connection error (\(error.shortDescription))"
            }
        }
        return "connection error (\(String(describing: type(of: error))))"
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}

extension HTTPClientError {
    /// The case's name only.
    var shortDescription: String { String(describing: self).split(separator: "(").first.map(String.init) ?? "error" }
}
