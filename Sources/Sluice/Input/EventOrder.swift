// Unsafe code: the `timed` and `action` keys are looked up through
// `withUnsafeBytes` over static arrays, as `JSONDocument.member` takes raw key
// bytes (no String per event on the reading thread), and texts are compared
// with memcmp over the common length of two raw buffers; the pointers are used
// only during the call.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceJSON

/// The order exact-order runs give the stages their events in, which depends
/// only on the events themselves, never on which file a line was in or where:
///
/// 1. event time (`timestamp`, to the microsecond);
/// 2. the message's place in a device's life at that instant (`rank`):
///    a session start, then a timer's start, then any other message, then a
///    timer's stop, then a sign-out;
/// 3. `messageId` (its text, byte by byte; a message without one first);
/// 4. the line's bytes.
///
/// Lines that are the same to the byte are the same message, whatever their
/// order. Lines rejected at input (not JSON, no timestamp) have no event
/// time: they are not ordered, and go to the rejects as they are read.
enum EventOrder {
    /// Where a message stands among those of the same instant.
    static func rank(_ event: Event) -> Int {
        switch event.type {
        case .session:
            return isSessionStart(event) ? 0 : 2
        case .track:
            if event.name == signedOut { return 4 }
            switch timedMarker(event) {
            case .start: return 1
            case .stop: return 3
            case nil: return 2
            }
        default:
            return 2
        }
    }

    /// Whether `a` goes before `b` (a strict order: false for equal lines).
    @inline(__always)
    static func precedes(_ a: borrowing Event, _ b: borrowing Event) -> Bool {
        let (ta, tb) = (a.time.microseconds, b.time.microseconds)
        if ta != tb { return ta < tb }
        return compareTies(a, b) < 0
    }

    /// -1, 0 or 1 as `a` goes before, with, or after `b`, for two events of the same time.
    @inline(never)
    static func compareTies(_ a: borrowing Event, _ b: borrowing Event) -> Int {
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        let ida = MessageIdentity.member(a.document, MessageIdentity.messageID)
        let idb = MessageIdentity.member(b.document, MessageIdentity.messageID)
        switch (ida, idb) {
        case (nil, .some): return -1
        case (.some, nil): return 1
        case let (.some(x), .some(y)):
            let order = MessageIdentity.withText(a.document, x) { tx in
                MessageIdentity.withText(b.document, y) { ty in lexicographic(tx, ty) }
            }
            if order != 0 { return order }
        case (nil, nil): break
        }
        return a.document.withRawBytes(0) { la in b.document.withRawBytes(0) { lb in lexicographic(la, lb) } }
    }

    /// Byte-wise comparison, a shorter prefix first (`memcmp` over the common length).
    static func lexicographic(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let x = a.baseAddress, let y = b.baseAddress {
            let order = memcmp(x, y, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// Whether `text` is `word` (a static array's bytes).
    @inline(__always)
    private static func equals(_ text: UnsafeRawBufferPointer, _ word: [UInt8]) -> Bool {
        text.count == word.count && word.withUnsafeBytes { lexicographic(text, $0) == 0 }
    }

    private enum Timed { case start, stop }

    private static let signedOut = Array("signed_out".utf8)
    private static let timedKey = Array("timed".utf8)
    private static let actionKey = Array("action".utf8)
    private static let start = Array("start".utf8)
    private static let stop = Array("stop".utf8)

    /// The input format's `timed` field (docs/input-format.md): `start` or `stop`.
    private static func timedMarker(_ event: borrowing Event) -> Timed? {
        guard let node = timedKey.withUnsafeBytes({ event.document.member($0) }) else { return nil }
        return event.document.withString(node) { text -> Timed? in
            if equals(text, start) { return .start }
            if equals(text, stop) { return .stop }
            return nil
        } ?? nil
    }

    private static func isSessionStart(_ event: borrowing Event) -> Bool {
        guard let node = actionKey.withUnsafeBytes({ event.document.member($0) }) else { return false }
        return event.document.withString(node) { equals($0, start) } ?? false
    }
}
