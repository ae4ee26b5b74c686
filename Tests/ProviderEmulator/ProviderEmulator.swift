import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SluiceTestSupport

/// A provider's import API on loopback, as its documentation describes it, for
/// `sluice send`'s tests: the request shape and auth it checks, the limits it
/// answers 413 to, per-record 400s, and what a test scripts on top (429 with
/// `Retry-After`, 503s, slow answers). It keeps every record it imported.
///
/// Mixpanel `/import` (https://developer.mixpanel.com/reference/import-events):
/// `POST /import?strict=1`, HTTP basic auth with the project secret as the user
/// (or `user:secret` and `project_id`), `Content-Type: application/x-ndjson`,
/// `Content-Encoding: gzip`, at most 2000 records and 2 MB uncompressed (413
/// beyond), each record `{"event","properties":{"time","distinct_id","$insert_id"}}`;
/// strict mode answers 400 `{"failed_records":[{index,$insert_id,field,message}],
/// "num_records_imported":N}` and imports the rest.
///
/// Amplitude HTTP V2 (https://amplitude.com/docs/apis/analytics/http-v2):
/// `POST /2/httpapi`, `{"api_key","events":[…]}` (400 "Invalid API key" for
/// another key), at most 2000 events and 1 MB (413), each event with
/// `event_type`, `user_id` or `device_id`, and `insert_id`; a 400 names the
/// refused events (`events_with_invalid_fields`) and imports nothing.
///
/// Segment `/v1/batch` (segment.com/docs/connections/sources/catalog/libraries/server/http-api):
/// basic auth with the write key as the user, `{"batch":[…]}`, at most 2500
/// messages and 500 KB (400 beyond), each message with a `messageId`.
///
/// GA4 Measurement Protocol (developers.google.com/analytics/devguides/collection/protocol/ga4):
/// `POST /mp/collect?api_secret=…&measurement_id=…` (or `firebase_app_id`), one
/// request body `{…,"events":[…]}` of at most 25 events and 130 kB; always 204
/// (a wrong secret's events are dropped without a word); `/debug/mp/collect`
/// answers `validationMessages` (an event name that does not start with a letter).
///
/// Adjust S2S (dev.adjust.com/en/api/s2s-api/events): `POST /event`, form
/// parameters with `s2s=1`, `app_token`, `event_token`, `Authorization: Bearer TOKEN`.
///
/// Mixpanel `/engage` and `/groups` (docs.mixpanel.com/reference/profile-batch-update,
/// /reference/group-batch-update, /reference/user-profile-limits): a form `POST`
/// of `data` (a JSON list of at most 2000 updates, not gzip) and `verbose=1`;
/// each update with `$token` (the secret here
/// is the project token) and `$distinct_id` (groups: `$group_key`, `$group_id`)
/// and one operation; a bad update makes it answer 200 `{"status":0,"error":…}`
/// and apply none of the batch.
///
/// Amplitude `/groupidentify` and `/usermap` (amplitude.com/docs/apis/analytics/group-identify,
/// /user-mapping): form parameters `api_key` and `identification` (at most 1024
/// groups and 1024 group properties) or `mapping` (at most 2000), 1 MB (413
/// beyond); a wrong key is a 400 `invalid_api_key`, a record without its fields a 400.
///
/// Sendable: `state` (set up in `init`, before any client knows the port) and
/// `isShutDown` are then read and written only under `lock`, which `answer` holds
/// around the provider's checks; the rest are `let`s set in `init`.
public final class ProviderEmulator: @unchecked Sendable {
    public enum Provider: Sendable {
        case mixpanel, amplitude, segment, ga4, adjust
        /// The endpoints of the side outputs `mixpanel.profiles`, `mixpanel.groups`, `amplitude.groups`, `amplitude.user_mappings`.
        case mixpanelProfiles, mixpanelGroups, amplitudeGroups, amplitudeUserMappings

        var path: String {
            switch self {
            case .mixpanel: return "/import"
            case .amplitude: return "/2/httpapi"
            case .segment: return "/v1/batch"
            case .ga4: return "/mp/collect"
            case .adjust: return "/event"
            case .mixpanelProfiles: return "/engage"
            case .mixpanelGroups: return "/groups"
            case .amplitudeGroups: return "/groupidentify"
            case .amplitudeUserMappings: return "/usermap"
            }
        }
    }

    /// What the emulator answers to the next requests, before its own checks.
    public enum Scripted: Sendable {
        /// This status (429, 503, …), with `Retry-After` when given; nothing imported.
        case status(Int, retryAfter: String? = nil)
        /// Answers normally, after this long.
        case delay(milliseconds: Int)
        /// Answers normally, but sends the body one byte at a time, this long apart (a server that drips).
        case drip(milliseconds: Int)
        /// This status and body, as a provider documents them (`body` may use `{SECRET}`); nothing imported.
        case answer(Int, body: String)
    }

    /// A record the emulator imported, with the request it came in.
    public struct Imported: Sendable {
        public var line: String
        public var insertID: String
        public var request: Int
    }

    public let port: Int
    public let provider: Provider
    private let group: MultiThreadedEventLoopGroup
    private let channel: Channel
    private let lock = NSLock()
    var state = State()

    struct State {
        var secret: String
        var maxRecords = 2000
        var maxBytes = 2_000_000
        var script: [Scripted] = []
        var delayEvery: Int = 0
        var inFlight = 0
        var maxInFlight = 0
        var arrivals: [UInt64] = []
        var imported: [Imported] = []
        var requests = 0
        var statuses: [Int] = []
        var authorizations: [String] = []
        /// Refusals quote the secret.
        var quoteSecret = false
        /// Amplitude: devices over the daily quota (their events get a 429 naming them, always).
        var overQuotaDevices: Set<String> = []
        /// Amplitude: devices whose events are throttled (a 429 naming them) this many more times.
        var throttledDevices: [String: Int] = [:]
        init(secret: String = "") { self.secret = secret }
    }

    /// Starts on 127.0.0.1, on a free port; `secret` is the project secret it accepts.
    public init(_ provider: Provider = .mixpanel, secret: String, maxRecords: Int? = nil, maxBytes: Int? = nil) throws {
        self.provider = provider
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        state = State(secret: secret)
        switch provider {
        case .mixpanel: (state.maxRecords, state.maxBytes) = (2000, 2_000_000)
        case .amplitude: (state.maxRecords, state.maxBytes) = (2000, 1_000_000)
        case .segment: (state.maxRecords, state.maxBytes) = (2500, 500_000)
        case .ga4: (state.maxRecords, state.maxBytes) = (25, 130_000)
        case .adjust: (state.maxRecords, state.maxBytes) = (1, 65_536)
        case .mixpanelProfiles, .mixpanelGroups: (state.maxRecords, state.maxBytes) = (2000, 2_000_000)
        case .amplitudeGroups: (state.maxRecords, state.maxBytes) = (1024, 1_000_000)
        case .amplitudeUserMappings: (state.maxRecords, state.maxBytes) = (2000, 1_000_000)
        }
        if let maxRecords { state.maxRecords = maxRecords }
        if let maxBytes { state.maxBytes = maxBytes }
        let box = WeakEmulator()
        channel = try ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(RequestHandler(emulator: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
        box.emulator = self
    }

    deinit { shutdown() }

    private var isShutDown = false

    public func shutdown() {
        let first: Bool = lock.withLock { defer { isShutDown = true }; return !isShutDown }
        guard first else { return }
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    /// `http://127.0.0.1:PORT/import` (the provider's path), for `--endpoint NAME=URL`.
    public var url: String { "http://127.0.0.1:\(port)" + provider.path }

    /// Queues answers for the next requests, in order.
    public func script(_ answers: [Scripted]) { lock.withLock { state.script += answers } }

    /// Refusals (Mixpanel's 400) quote the secret the request carried, as some providers' answers do.
    public func quoteSecretInRefusals() { lock.withLock { state.quoteSecret = true } }

    /// Amplitude: these devices are over their daily quota; every request with one of their events
    /// gets a 429 with `exceeded_daily_quota_devices` (nothing of it ingested).
    public func overDailyQuota(devices: Set<String>) { lock.withLock { state.overQuotaDevices.formUnion(devices) } }

    /// Amplitude: the next `times` requests with an event of these devices get a 429 whose
    /// `throttled_events` names those events (nothing of it ingested).
    public func throttle(devices: Set<String>, times: Int) {
        lock.withLock { for device in devices { state.throttledDevices[device] = times } }
    }

    /// Every request answers after `milliseconds` (slow provider), until set to 0.
    public func delayEveryRequest(milliseconds: Int) { lock.withLock { state.delayEvery = milliseconds } }

    public var imported: [Imported] { lock.withLock { state.imported } }
    public var requests: Int { lock.withLock { state.requests } }
    /// The most requests it held unanswered at once.
    public var maxInFlight: Int { lock.withLock { state.maxInFlight } }

    /// When each request arrived (monotonic nanoseconds, `DispatchTime`), in order.
    public var arrivals: [UInt64] { lock.withLock { state.arrivals } }

    func received() {
        lock.withLock {
            state.arrivals.append(DispatchTime.now().uptimeNanoseconds)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
        }
    }

    func answered() { lock.withLock { state.inFlight -= 1 } }
    public var statuses: [Int] { lock.withLock { state.statuses } }
    /// The `Authorization` headers it was sent (to check what a request carried).
    public var authorizations: [String] { lock.withLock { state.authorizations } }

    /// Answers one request: status, headers and body, and how long to wait first.
    /// An answer: its status, headers and body, sent after `delay` ms, the body one byte every `drip` ms when not 0.
    typealias Answer = (status: Int, headers: [(String, String)], body: String, delay: Int, drip: Int)

    func answer(head: HTTPRequestHead, body: [UInt8]) -> Answer {
        lock.withLock {
            state.requests += 1
            let number = state.requests
            var delay = state.delayEvery
            var drip = 0
            let authorization = head.headers.first(name: "Authorization") ?? ""
            state.authorizations.append(authorization)
            let reply: Reply = { status, text, headers in
                self.state.statuses.append(status)
                return (status, headers + [("Content-Type", "application/json")], text, delay, drip)
            }
            if !state.script.isEmpty {
                switch state.script.removeFirst() {
                case let .status(status, retryAfter):
                    return reply(status, "{\"error\":\"scripted \(status)\",\"status\":0}", retryAfter.map { [("Retry-After", $0)] } ?? [])
                case let .delay(milliseconds):
                    delay = milliseconds
                case let .drip(milliseconds):
                    drip = milliseconds
                case let .answer(status, text):
                    return reply(status, text.replacingOccurrences(of: "{SECRET}", with: state.secret), [])
                }
            }
            switch provider {
            case .mixpanel: return mixpanel(head, body, authorization, number, reply)
            case .amplitude: return amplitude(head, body, number, reply)
            case .segment: return segment(head, body, authorization, number, reply)
            case .ga4: return ga4(head, body, number, reply)
            case .adjust: return adjust(head, body, authorization, number, reply)
            case .mixpanelProfiles, .mixpanelGroups: return mixpanelProfiles(head, body, number, reply)
            case .amplitudeGroups, .amplitudeUserMappings: return amplitudeForm(head, body, number, reply)
            }
        }
    }

    typealias Reply = (Int, String, [(String, String)]) -> Answer

    private func mixpanel(_ head: HTTPRequestHead, _ body: [UInt8], _ authorization: String, _ number: Int,
                          _ reply: Reply) -> Answer {
        guard head.method == .POST, head.uri.hasPrefix("/import?"), head.uri.contains("strict=1") else {
            return reply(404, "{\"error\":\"POST /import?strict=1 expected, got \(head.method) \(head.uri)\"}", [])
        }
        let expected = "Basic " + Data((state.secret + ":").utf8).base64EncodedString()
        guard authorization == expected else {
            return reply(401, "{\"error\":\"Invalid credentials\",\"status\":0}", [])
        }
        // Only the body's first gzip member, as Python's `zlib.decompress(body, 31)` and
        // many servers' decoders read it: records in a second member would be lost silently.
        guard head.headers.first(name: "Content-Encoding") == "gzip",
              head.headers.first(name: "Content-Type") == "application/x-ndjson",
              let text = TestGzip.firstMember(body)?.data else {
            return reply(400, "{\"error\":\"gzip application/x-ndjson body expected\",\"status\":0}", [])
        }
        let lines = text.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        if lines.count > state.maxRecords || text.count > state.maxBytes {
            return reply(413, "{\"error\":\"request exceeds \(state.maxRecords) records or \(state.maxBytes) bytes\",\"status\":0}", [])
        }
        var failed: [String] = []
        var imported = 0
        for (index, line) in lines.enumerated() {
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            let properties = object?["properties"] as? [String: Any]
            let insertID = properties?["$insert_id"] as? String ?? ""
            let event = object?["event"] as? String
            let field: String?
            if event == nil { field = "event" } else if properties?["time"] == nil { field = "properties.time" } else if insertID.isEmpty {
                field = "properties.$insert_id"
            } else if properties?["emulator_refuse"] != nil { field = "properties.emulator_refuse" } else { field = nil }
            if let field {
                let quoted = state.quoteSecret ? " (project secret \(state.secret))" : ""
                failed.append("{\"index\":\(index),\"$insert_id\":\"\(insertID)\",\"field\":\"\(field)\",\"message\":\"'\(field)' is invalid\(quoted)\"}")
            } else {
                state.imported.append(Imported(line: line, insertID: insertID, request: number))
                imported += 1
            }
        }
        if failed.isEmpty { return reply(200, "{\"code\":200,\"num_records_imported\":\(imported),\"status\":\"OK\"}", []) }
        return reply(400, "{\"code\":400,\"error\":\"some data points in the request failed validation\",\"failed_records\":["
            + failed.joined(separator: ",") + "],\"num_records_imported\":\(imported),\"status\":\"Bad Request\"}", [])
    }

    private func amplitude(_ head: HTTPRequestHead, _ body: [UInt8], _ number: Int,
                           _ reply: Reply) -> Answer {
        guard head.method == .POST, head.uri == "/2/httpapi",
              let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
              let events = object["events"] as? [[String: Any]] else {
            return reply(400, "{\"code\":400,\"error\":\"Invalid JSON request body\"}", [])
        }
        guard object["api_key"] as? String == state.secret else {
            return reply(400, "{\"code\":400,\"error\":\"Invalid API key: \(object["api_key"] as? String ?? "")\"}", [])
        }
        if events.count > state.maxRecords || body.count > state.maxBytes {
            return reply(413, "{\"code\":413,\"error\":\"Payload too large\"}", [])
        }
        var invalid: [String: [Int]] = [:]
        for (index, event) in events.enumerated() {
            if event["event_type"] == nil { invalid["event_type", default: []].append(index) }
            if event["user_id"] == nil && event["device_id"] == nil { invalid["user_id", default: []].append(index) }
            if event["insert_id"] == nil { invalid["insert_id", default: []].append(index) }
            if (event["event_properties"] as? [String: Any])?["emulator_refuse"] != nil {
                invalid["event_properties", default: []].append(index)
            }
        }
        if !invalid.isEmpty {
            let fields = invalid.map { "\"\($0.key)\":[\($0.value.map(String.init).joined(separator: ","))]" }.joined(separator: ",")
            return reply(400, "{\"code\":400,\"error\":\"Request has invalid fields\",\"events_with_invalid_fields\":{\(fields)}}", [])
        }
        // Over the per-second or the daily limit, as https://amplitude.com/docs/apis/analytics/http-v2 documents the 429.
        var quota: Set<String> = [], throttled: [Int] = [], throttledDevices: Set<String> = []
        for (index, event) in events.enumerated() {
            let device = event["device_id"] as? String ?? ""
            if state.overQuotaDevices.contains(device) {
                quota.insert(device)
            } else if let times = state.throttledDevices[device], times > 0 {
                throttled.append(index)
                throttledDevices.insert(device)
            }
        }
        if !quota.isEmpty || !throttled.isEmpty {
            for device in throttledDevices { state.throttledDevices[device]! -= 1 }
            let ids = { (devices: Set<String>, count: Int) in devices.sorted().map { "\"\($0)\":\(count)" }.joined(separator: ",") }
            return reply(429, "{\"code\":429,\"error\":\"Too many requests for some devices and users\",\"eps_threshold\":30,"
                + "\"throttled_devices\":{\(ids(throttledDevices, 31))},\"throttled_users\":{},"
                + "\"exceeded_daily_quota_devices\":{\(ids(quota, 500_001))},\"exceeded_daily_quota_users\":{},"
                + "\"throttled_events\":[\(throttled.map(String.init).joined(separator: ","))]}", [])
        }
        for event in events {
            state.imported.append(Imported(line: canonical(event), insertID: event["insert_id"] as? String ?? "", request: number))
        }
        return reply(200, "{\"code\":200,\"events_ingested\":\(events.count),\"payload_size_bytes\":\(body.count)}", [])
    }

    private func segment(_ head: HTTPRequestHead, _ body: [UInt8], _ authorization: String, _ number: Int,
                         _ reply: Reply) -> Answer {
        guard head.method == .POST, head.uri == "/v1/batch" else { return reply(404, "{\"error\":\"not found\"}", []) }
        guard authorization == "Basic " + Data((state.secret + ":").utf8).base64EncodedString() else {
            return reply(401, "{\"error\":\"invalid write key\"}", [])
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
              let batch = object["batch"] as? [[String: Any]] else {
            return reply(400, "{\"error\":\"invalid JSON\"}", [])
        }
        if batch.count > state.maxRecords || body.count > state.maxBytes {
            return reply(400, "{\"error\":\"batch too large\"}", [])
        }
        for message in batch {
            state.imported.append(Imported(line: canonical(message), insertID: message["messageId"] as? String ?? "", request: number))
        }
        return reply(200, "{\"success\":true}", [])
    }

    private func ga4(_ head: HTTPRequestHead, _ body: [UInt8], _ number: Int,
                     _ reply: Reply) -> Answer {
        let components = URLComponents(string: head.uri)
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        let debug = components?.path == "/debug/mp/collect"
        guard head.method == .POST, components?.path == "/mp/collect" || debug,
              query["measurement_id"] != nil || query["firebase_app_id"] != nil else {
            return reply(400, "", [])
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        let events = object?["events"] as? [[String: Any]] ?? []
        if debug {
            var messages: [String] = []
            if object == nil || events.isEmpty || events.count > state.maxRecords || body.count > state.maxBytes {
                messages.append("{\"fieldPath\":\"events\",\"description\":\"Request is invalid\",\"validationCode\":\"VALUE_INVALID\"}")
            }
            for event in events where !((event["name"] as? String)?.first?.isLetter ?? false) {
                messages.append("{\"fieldPath\":\"events\",\"description\":\"Event name must start with a letter\",\"validationCode\":\"NAME_INVALID\"}")
            }
            return reply(200, "{\"validationMessages\":[\(messages.joined(separator: ","))]}", [])
        }
        // The collection endpoint answers 2xx to everything; only what is valid is kept.
        if query["api_secret"] == state.secret, object != nil, !events.isEmpty, events.count <= state.maxRecords,
           body.count <= state.maxBytes {
            state.imported.append(Imported(line: canonical(object!), insertID: "", request: number))
        }
        return reply(204, "", [])
    }

    private func adjust(_ head: HTTPRequestHead, _ body: [UInt8], _ authorization: String, _ number: Int,
                        _ reply: Reply) -> Answer {
        guard head.method == .POST, head.uri == "/event" else { return reply(404, "{\"error\":\"Not found\"}", []) }
        guard authorization == "Bearer " + state.secret else { return reply(401, "{\"error\":\"Unauthorized\"}", []) }
        let params = formParameters(body)
        guard head.headers.first(name: "Content-Type") == "application/x-www-form-urlencoded", params["s2s"] == "1",
              let app = params["app_token"], app.count == 12, let token = params["event_token"], token.count == 6 else {
            return reply(400, "{\"error\":\"Event request failed (missing or malformed parameters)\"}", [])
        }
        let line = params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        state.imported.append(Imported(line: line, insertID: "", request: number))
        return reply(200, "{\"status\":\"OK\"}", [])
    }

    /// An `application/x-www-form-urlencoded` body's parameters (the first of a repeated name).
    func formParameters(_ body: [UInt8]) -> [String: String] {
        var components = URLComponents()
        components.percentEncodedQuery = String(decoding: body, as: UTF8.self)
        return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
    }

    func canonical(_ object: [String: Any]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }
}
