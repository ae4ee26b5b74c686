import SluiceJSON

extension RedactionWalk {
    /// The literal paths the walk is limited to, flattened: every key's bytes
    /// back to back, where each key ends in them, and where each path's keys
    /// end among those.
    ///
    /// One object, so that an event's walk retains one reference, not three arrays.
    final class ScopeKeys: Sendable {
        let bytes: [UInt8]
        let ends: [Int]
        let pathEnds: [Int]

        init(_ paths: [JSONPath]) {
            var bytes: [UInt8] = [], ends: [Int] = [], pathEnds: [Int] = []
            for path in paths {
                for component in path.components {
                    bytes += component
                    ends.append(bytes.count)
                }
                pathEnds.append(ends.count)
            }
            self.bytes = bytes
            self.ends = ends
            self.pathEnds = pathEnds
        }
    }
}
