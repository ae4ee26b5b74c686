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
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
                // Through the weak box: a strong reference held by a delayed answer could make the event
                // loop's thread the emulator's last owner, whose deinit waits for that loop to shut down.
                self.emulator.emulator?.answered()
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                    if !keepAlive { context.close(promise: nil) }
                }
            }
            if answer.delay > 0 {
                context.eventLoop.scheduleTask(in: .milliseconds(Int64(answer.delay))) { respond() }
            } else {
                respond()
            }
        }
    }
}
