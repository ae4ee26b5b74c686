// Unsafe code: the compressed body is handed to the one inflater
// (`GzipInflater.refill`) by copying a slice of the array into the
// inflater's buffer (`withUnsafeBytes`, `copyMemory`), each copy the size of
// what is left or of the buffer, whichever is smaller.

import Sluice

/// A `Content-Encoding: gzip` request body, inflated by the project's one
/// inflater with a hard cap on what it may produce: a body that would inflate
/// past `limit` (a gzip bomb, or a batch over 500 KB once inflated) is refused
/// as soon as the output passes the cap, never held whole in memory.
package enum GzipBody {
    package static func inflate(_ data: [UInt8], limit: Int) throws(IngestRefusal) -> [UInt8] {
        let inflater = GzipInflater(inputBytes: 64 * 1024)
        var out: [UInt8] = []
        var offset = 0
        var sawMember = false
        while true {
            let (step, bytes) = inflater.inflate()
            if out.count + bytes.count > limit {
                throw .badRequest("the gzip body inflates to more than \(limit) bytes; a batch may have at most \(IngestLimits.batchBytes)")
            }
            out.append(contentsOf: bytes)
            switch step.status {
            case .progress:
                continue
            case .memberEnd:
                sawMember = true
                inflater.nextMember()
                if inflater.pendingInput == 0 && offset == data.count { return out }
            case .stalled:
                guard inflater.pendingInput == 0, offset < data.count else {
                    throw .badRequest(sawMember || offset > 0 ? "the gzip body is cut short" : "the body is empty, not gzip")
                }
                offset += inflater.refill { buffer in
                    let n = min(buffer.count, data.count - offset)
                    data.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
                    return n
                }
            case let .failed(message):
                throw .badRequest("the body is not valid gzip (Content-Encoding: gzip): \(message)")
            }
        }
    }
}
