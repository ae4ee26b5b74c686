import SluiceJSON

// Unsafe code: the scope owns three buffers, allocated and written in `init`,
// freed in `deinit`, and read by the walk within their bounds.

extension RedactionWalk {
    /// The literal paths the walk is limited to, flattened: every key's bytes
    /// back to back, where each key ends in them, and where each path's keys
    /// end among those.
    ///
    /// Read through pointers, and reached without a retain (`scope`): an array
    /// or a class read out of the walk, which changes as it goes, is retained
    /// and released on every event.
    ///
    /// Sendable: its three buffers are `let`s, filled in `init` and only read
    /// after (freed in `deinit`).
    final class ScopeKeys: @unchecked Sendable {
        let bytes: UnsafeMutableRawBufferPointer
        let ends: UnsafeMutableBufferPointer<Int>
        let pathEnds: UnsafeMutableBufferPointer<Int>

        init(_ paths: [JSONPath]) {
            var bytes: [UInt8] = [], ends: [Int] = [], pathEnds: [Int] = []
            for path in paths {
                for component in path.components {
                    bytes += component
                    ends.append(bytes.count)
                }
                pathEnds.append(ends.count)
            }
            self.bytes = .allocate(byteCount: bytes.count, alignment: 1)
            self.bytes.copyBytes(from: bytes)
            self.ends = .allocate(capacity: ends.count)
            _ = self.ends.initialize(from: ends)
            self.pathEnds = .allocate(capacity: pathEnds.count)
            _ = self.pathEnds.initialize(from: pathEnds)
        }

        deinit {
            bytes.deallocate()
            ends.deallocate()
            pathEnds.deallocate()
        }
    }
}
