import NIOCore
import NIOHTTP1

/// The emulator, held weakly by its connections' handlers.
///
/// Sendable: `emulator` is set once, at the end of `ProviderEmulator.init`, before
/// any client knows the port, so before a request is read; the event loop only
/// reads it after (a weak load is safe while the emulator is being freed).
final class WeakEmulator: @unchecked Sendable {
    weak var emulator: ProviderEmulator?
}

/// One connection's requests: head and body gathered, then answered (after a delay when scripted).
///
/// Sendable: `head` and `body` are touched only on its channel's event loop, which
/// makes every `channelRead` call and runs `respond` (at once, or scheduled on
/// `context.eventLoop`); `emulator` is a `let`.
final class RequestHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let emulator: WeakEmulator
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(emulator: WeakEmulator) { self.emulator = emulator }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head, let emulator = emulator.emulator else { return }
            emulator.received()
            let answer = emulator.answer(head: head, body: body)
            let keepAlive = head.isKeepAlive
            let respond = { [self] in
                var headers = HTTPHeaders(answer.headers)
                headers.add(name: "Content-Length", value: "\(answer.body.utf8.count)")
                if !keepAlive { headers.add(name: "Connection", value: "close") }
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version,
                                                                     status: HTTPResponseStatus(statusCode: answer.status),
                                                                     headers: headers))), promise: nil)
                if answer.drip > 0 {
                    context.flush()
                    drip(Array(answer.body.utf8)[...], every: answer.drip, context: context, keepAlive: keepAlive)
                    return
                }
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
                finish(context: context, keepAlive: keepAlive)
            }
            if answer.delay > 0 {
                context.eventLoop.scheduleTask(in: .milliseconds(Int64(answer.delay))) { respond() }
            } else {
                respond()
            }
        }
    }

    private func finish(context: ChannelHandlerContext, keepAlive: Bool) {
        // Through the weak box: a strong reference held by a delayed answer could make the event
        // loop's thread the emulator's last owner, whose deinit waits for that loop to shut down.
        emulator.emulator?.answered()
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }

    /// The body one byte at a time, `every` ms apart, then the end; stops when the client goes.
    private func drip(_ rest: ArraySlice<UInt8>, every: Int, context: ChannelHandlerContext, keepAlive: Bool) {
        guard let byte = rest.first else { return finish(context: context, keepAlive: keepAlive) }
        guard context.channel.isActive else { emulator.emulator?.answered(); return }
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: [byte])))), promise: nil)
        context.eventLoop.scheduleTask(in: .milliseconds(Int64(every))) { [self] in
            drip(rest.dropFirst(), every: every, context: context, keepAlive: keepAlive)
        }
    }
}
