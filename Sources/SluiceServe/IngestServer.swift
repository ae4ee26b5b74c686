import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Sluice
import SluiceJSON

/// What every connection's handler shares: the normalizer, the journal, and
/// whether the server still takes messages (false once a stop came).
package final class IngestServer: Sendable {
    package let normalizer: MessageNormalizer
    package let journal: Journal
    /// The seconds a 503 asks a client to wait (`Retry-After`).
    package let retryAfterSeconds: Int
    package let metrics = ServeMetrics()
    /// How long a request may take to arrive whole (head and body), and a
    /// kept-alive connection may sit idle, before it is answered 408 and closed.
    package let requestTimeout: TimeAmount
    /// Connections open at once; one more is answered 503 and closed.
    package let maxConnections: Int
    /// Request body bytes held at once across connections (as received, and
    /// the lines they became until the journal has them); a request whose
    /// body would go over is answered 429.
    package let maxBodyMemory: Int
    private let acceptingBox = NIOLockedValueBox(true)
    private let connections = NIOLockedValueBox(0)
    private let bodyMemory = NIOLockedValueBox(0)

    package init(normalizer: MessageNormalizer, journal: Journal, retryAfterSeconds: Int = 5,
                 requestTimeout: TimeAmount = .seconds(30), maxConnections: Int = 1024, maxBodyMemory: Int = 64 << 20) {
        self.normalizer = normalizer
        self.journal = journal
        self.retryAfterSeconds = retryAfterSeconds
        self.requestTimeout = requestTimeout
        self.maxConnections = maxConnections
        self.maxBodyMemory = maxBodyMemory
    }

    /// Takes `bytes` more of the body memory; false (nothing taken) when that would pass `maxBodyMemory`.
    func reserveBody(_ bytes: Int) -> Bool {
        bodyMemory.withLockedValue { held in
            guard held + bytes <= maxBodyMemory else { return false }
            held += bytes
            return true
        }
    }

    func releaseBody(_ bytes: Int) { bodyMemory.withLockedValue { $0 -= bytes } }

    /// Counts `bytes` held without the cap: what an admitted body became.
    func holdBody(_ bytes: Int) { bodyMemory.withLockedValue { $0 += bytes } }

    package var bodyMemoryBytes: Int { bodyMemory.withLockedValue { $0 } }

    /// Counts a new connection in; false (not counted) when `maxConnections` are open.
    func admit() -> Bool {
        connections.withLockedValue { open in
            guard open < maxConnections else { return false }
            open += 1
            return true
        }
    }

    func release() { connections.withLockedValue { $0 -= 1 } }

    package var openConnections: Int { connections.withLockedValue { $0 } }

    package var accepting: Bool { acceptingBox.withLockedValue { $0 } }

    /// From now on every POST is answered 503 and `/ready` 503.
    package func stopAccepting() { acceptingBox.withLockedValue { $0 = false } }

    /// `/ready`: accepting, and the journal's backlog under its limit.
    package var ready: Bool { accepting && !journal.isBacklogged }
}

/// The listening socket, on SwiftNIO's HTTP/1.1 server (keep-alive, pipelined
/// requests answered in order), under TLS when given a `ServeTLS`. Connections
/// are spread over two event loop threads: gunzip and normalization go on
/// while the other thread is off its core (an epoch and the deflate pool share the cores).
package final class IngestListener {
    private let group: MultiThreadedEventLoopGroup
    private let channel: Channel
    /// The address bound, with the port the system gave for port 0.
    package let host: String
    package let port: Int

    package init(host: String, port: Int, server: IngestServer, tls: NIOSSLContext? = nil) throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: 256)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                        try channel.pipeline.syncOperations.addHandler(ConnectionGuard(server: server))
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(IngestHandler(server: server))
                    }
                }
                .bind(host: host, port: port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.host = host
        self.port = channel.localAddress?.port ?? port
    }

    /// Closes the listening socket and every connection.
    package func shutdown() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// `--tls-cert` and `--tls-key`: a PEM certificate chain (the server's
/// certificate first) and its PEM private key, read once at start.
package enum ServeTLS {
    package static func context(certificate: String, key: String) throws(ServeTLSError) -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw ServeTLSError(message: "--tls-cert \(certificate): not a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else { throw ServeTLSError(message: "--tls-cert \(certificate): no certificate in it") }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw ServeTLSError(message: "--tls-key \(key): not a PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                     privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw ServeTLSError(message: "--tls-cert \(certificate) and --tls-key \(key) do not make a TLS server (\(error))")
        }
    }
}

package struct ServeTLSError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

/// An answer written as bytes under the HTTP handlers, then the connection
/// closed: for a connection there is no request to answer through them.
struct RawAnswer {
    var status: Int
    var reason: String
    var body: String
    var retryAfter: Int?

    var bytes: String {
        var text = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        if let retryAfter { text += "Retry-After: \(retryAfter)\r\n" }
        return text + "Connection: close\r\n\r\n" + body
    }
}

/// First in each connection's pipeline, on its bytes: counts the connection
/// in (one over `--max-connections` is answered 503 and closed, read no
/// further), and writes a `RawAnswer` the handler above asks for.
final class ConnectionGuard: ChannelDuplexHandler {
    typealias InboundIn = NIOCore.ByteBuffer
    typealias InboundOut = NIOCore.ByteBuffer
    typealias OutboundIn = NIOCore.ByteBuffer
    typealias OutboundOut = NIOCore.ByteBuffer

    private let server: IngestServer
    private var admitted = false

    init(server: IngestServer) {
        self.server = server
    }

    func channelActive(context: ChannelHandlerContext) {
        admitted = server.admit()
        if !admitted {
            server.metrics.refusedConnection()
            server.metrics.answered(status: 503, seconds: 0, bytes: 0, messages: 0)
            answer(context, RawAnswer(status: 503, reason: "Service Unavailable",
                                      body: IngestHandler.errorBody(503, "too many connections (--max-connections \(server.maxConnections))"),
                                      retryAfter: server.retryAfterSeconds))
            return
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if admitted {
            admitted = false
            server.release()
            context.fireChannelInactive()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection's bytes go nowhere.
        if admitted { context.fireChannelRead(data) }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let raw = event as? RawAnswer else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        answer(context, raw)
        promise?.succeed(())
    }

    private func answer(_ context: ChannelHandlerContext, _ raw: RawAnswer) {
        var buffer = context.channel.allocator.buffer(capacity: 256)
        buffer.writeString(raw.bytes)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// One connection: each request's head and body collected (the body cut off
/// at 500 KB), then answered: `/health`, `/ready`, or a message endpoint
/// whose lines are journaled before the 200 goes out.
final class IngestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: IngestServer
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    /// The request's body went over the limit: it was answered and the connection is closing.
    private var cutOff = false
    /// When the current request's head arrived, and its body's size as sent.
    private var started: UInt64 = 0
    private var bodyBytes = 0
    /// The body memory this request holds (`IngestServer.reserveBody`), given back once it is answered.
    private var held = 0
    /// 408 and close when it fires: armed while a connection waits for a
    /// request (idle, or a head arriving slowly) and while a body arrives.
    private var timeout: Scheduled<Void>?

    init(server: IngestServer) {
        self.server = server
    }

    func channelActive(context: ChannelHandlerContext) {
        started = Monotonic.nanoseconds()
        armTimeout(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = nil
        releaseHeld()
        context.fireChannelInactive()
    }

    private func releaseHeld() {
        if held > 0 { server.releaseBody(held) }
        held = 0
    }

    /// Holds `bytes` more of the body memory for this request; false when the server is at its cap.
    private func hold(_ bytes: Int) -> Bool {
        guard server.reserveBody(bytes) else { return false }
        held += bytes
        return true
    }

    /// Arms (again) the timer that answers 408 to a request that does not arrive whole in time.
    private func armTimeout(_ context: ChannelHandlerContext) {
        timeout?.cancel()
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: server.requestTimeout) {
            let (handler, context) = bound.value
            handler.timeout = nil
            guard !handler.cutOff, context.channel.isActive else { return }
            handler.cutOff = true
            handler.server.metrics.timedOut()
            handler.server.metrics.answered(status: 408, seconds: Double(Monotonic.nanoseconds() &- handler.started) / 1e9,
                                            bytes: handler.bodyBytes, messages: 0)
            // Answered under the HTTP handlers: there may be no request (a head still arriving) to answer through them.
            context.triggerUserOutboundEvent(RawAnswer(status: 408, reason: "Request Timeout",
                                                       body: Self.errorBody(408, "the request did not arrive whole within the request timeout")),
                                             promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(request):
            head = request
            body = []
            releaseHeld()
            cutOff = false
            started = Monotonic.nanoseconds()
            bodyBytes = 0
            if let length = request.headers.first(name: "content-length").flatMap(Int.init), length > IngestLimits.batchBytes {
                refuse(context, .badRequest("the request body is \(length) bytes; a batch may have at most \(IngestLimits.batchBytes)"))
            }
        case var .body(buffer):
            guard !cutOff else { return }
            if body.count + buffer.readableBytes > IngestLimits.batchBytes {
                refuse(context, .badRequest("the request body is over \(IngestLimits.batchBytes) bytes, the most a batch may have"))
                return
            }
            guard hold(buffer.readableBytes) else {
                server.metrics.refusedForBodyMemory()
                refuse(context, Self.bodyMemoryRefusal(server))
                return
            }
            bodyBytes += buffer.readableBytes
            if let bytes = buffer.readBytes(length: buffer.readableBytes) { body.append(contentsOf: bytes) }
        case .end:
            guard !cutOff, let request = head else { return }
            timeout?.cancel()
            timeout = nil
            head = nil
            let bytes = body
            body = []
            handle(context, request, bytes)
        }
    }

    /// Answers a body that is too large at once and closes the connection (the rest is not read).
    private func refuse(_ context: ChannelHandlerContext, _ refusal: IngestRefusal) {
        cutOff = true
        let version = head?.version ?? .http1_1
        respond(context, version: version, keepAlive: false, status: refusal.status, body: Self.errorBody(refusal.status, refusal.reason),
                retryAfter: refusal.status == 429 ? 1 : nil)
    }

    static func bodyMemoryRefusal(_ server: IngestServer) -> IngestRefusal {
        IngestRefusal(status: 429, reason: "the server holds --max-body-memory (\(server.maxBodyMemory) bytes) of request bodies: try again")
    }

    private func handle(_ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ body: [UInt8]) {
        let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
        let keepAlive = request.isKeepAlive
        func answer(_ status: Int, _ text: String, retryAfter: Bool = false) {
            respond(context, version: request.version, keepAlive: keepAlive, status: status, body: text,
                    retryAfter: retryAfter ? server.retryAfterSeconds : nil)
        }
        switch path {
        case "/health":
            return answer(200, #"{"status":"live"}"#)
        case "/ready":
            return server.ready ? answer(200, #"{"status":"ready"}"#)
                : answer(503, #"{"status":"not ready"}"#, retryAfter: true)
        case "/metrics":
            let text = server.metrics.render(backlogBytes: server.journal.backlogBytes, accepting: server.accepting,
                                             connections: server.openConnections, bodyMemoryBytes: server.bodyMemoryBytes)
            return respond(context, version: request.version, keepAlive: keepAlive, status: 200, body: text,
                           contentType: "text/plain; version=0.0.4")
        default:
            break
        }
        guard let endpoint = IngestEndpoint(path: path) else { return answer(404, Self.errorBody(404, "no such endpoint: \(path)")) }
        guard request.method == .POST else { return answer(405, Self.errorBody(405, "\(path) takes POST")) }
        guard server.accepting else { return answer(503, Self.errorBody(503, "the server is stopping"), retryAfter: true) }
        guard !server.journal.isBacklogged else {
            return answer(503, Self.errorBody(503, "the journal's backlog is full: try again later"), retryAfter: true)
        }
        let lines: [UInt8]
        let count: Int
        do {
            var text = body
            switch request.headers.first(name: "content-encoding")?.lowercased() {
            case nil, "identity": break
            case "gzip": text = try GzipBody.inflate(body, limit: IngestLimits.batchBytes)
            case let other?: throw IngestRefusal.badRequest("Content-Encoding \(other) is not supported (gzip is)")
            }
            let peer = IngestPeer(address: context.channel.remoteAddress?.ipAddress,
                                  forwardedFor: request.headers.first(name: "x-forwarded-for"))
            let user = request.headers.first(name: "authorization").flatMap(WriteKeys.basicUser)
            (lines, count) = try server.normalizer.normalize(body: text, endpoint: endpoint, basicUser: user, peer: peer,
                                                             receivedAt: EventTime(microseconds: Self.nowMicroseconds()))
            // The lines wait in memory for the journal's fsync, in place of the body (the cap admits bodies only).
            releaseHeld()
            server.holdBody(lines.count)
            held = lines.count
        } catch let refusal as IngestRefusal {
            return respond(context, version: request.version, keepAlive: keepAlive, status: refusal.status,
                           body: Self.errorBody(refusal.status, refusal.reason), retryAfter: refusal.status == 429 ? 1 : nil)
        } catch {
            return answer(400, Self.errorBody(400, "\(error)"))
        }
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        let version = request.version
        server.journal.append(lines) { result in
            loop.execute {
                let (handler, context) = bound.value
                switch result {
                case .durable:
                    handler.respond(context, version: version, keepAlive: keepAlive, status: 200, body: #"{"success":true}"#,
                                    messages: count)
                case .backlogged:
                    handler.respond(context, version: version, keepAlive: keepAlive, status: 503,
                                    body: Self.errorBody(503, "the journal's backlog is full: try again later"),
                                    retryAfter: handler.server.retryAfterSeconds)
                case let .failed(message):
                    handler.respond(context, version: version, keepAlive: keepAlive, status: 503,
                                    body: Self.errorBody(503, "not journaled: \(message)"), retryAfter: handler.server.retryAfterSeconds)
                case .closed:
                    handler.respond(context, version: version, keepAlive: keepAlive, status: 503,
                                    body: Self.errorBody(503, "the server is stopping"), retryAfter: handler.server.retryAfterSeconds)
                }
            }
        }
    }

    /// Writes the answer and counts it (`messages`: how many it journaled).
    private func respond(_ context: ChannelHandlerContext, version: HTTPVersion, keepAlive: Bool, status: Int, body: String,
                         retryAfter: Int? = nil, contentType: String = "application/json", messages: Int = 0) {
        let seconds = Double(Monotonic.nanoseconds() &- started) / 1e9
        server.metrics.answered(status: status, seconds: seconds, bytes: bodyBytes, messages: messages)
        releaseHeld()
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        if let retryAfter { headers.add(name: "Retry-After", value: String(retryAfter)) }
        let close = !keepAlive || cutOff
        headers.add(name: "Connection", value: close ? "close" : "keep-alive")
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        var buffer = context.channel.allocator.buffer(capacity: body.utf8.count)
        buffer.writeString(body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        if close {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            armTimeout(context)
        }
    }

    /// `{"success":false,"code":...,"message":...,"error":...}`: `error` as
    /// Segment's API words it, `code` and `message` as the SDKs read an error
    /// (RudderStack's Python SDK takes a JSON answer without them for a network
    /// failure and retries even a 400 or a 401).
    static func errorBody(_ status: Int, _ reason: String) -> String {
        var out: [UInt8] = Array(#"{"success":false,"code":"#.utf8)
        JSONString.appendQuoted(errorCode(status), to: &out)
        for key in [#","message":"#, #","error":"#] {
            out.append(contentsOf: key.utf8)
            JSONString.appendQuoted(reason, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    static func errorCode(_ status: Int) -> String {
        switch status {
        case 400: "bad_request"
        case 401: "unauthorized"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 408: "request_timeout"
        case 429: "too_many_requests"
        case 503: "unavailable"
        default: "error"
        }
    }

    static func nowMicroseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1e6).rounded())
    }
}
