// Unsafe code: the new line and index are written into a document's storage
// as it is made (`JSONDocument.Storage.make`), every node and byte once.

extension JSONDocument {
    /// A copy of this document with one member appended to the object at
    /// `object`, written into the bytes and indexed on the tape: no pending
    /// edit, so later stages and destinations find it with `member`/`find`, and
    /// the writer copies the line in one piece.
    ///
    /// Only the new member is parsed; the old tape is copied with its offsets
    /// and indexes moved past the insertion. Returns nil (and the caller falls
    /// back to `set`) when the document already has edits, `object` is not an
    /// object, or `json` is not one JSON value.
    public func insertingMember(_ key: [UInt8], json: [UInt8], into object: Int) -> JSONDocument? {
        // The member's text as a one-member object, so that it parses on its own.
        var text: [UInt8] = [UInt8(ascii: "{")]
        JSONString.appendQuoted(key, to: &text)
        text.append(UInt8(ascii: ":"))
        text.append(contentsOf: json)
        text.append(UInt8(ascii: "}"))
        // Exactly one member: its value's subtree runs to the end of the tape.
        guard let parsed = try? JSONDocument.parse(text), parsed.tape.count >= 3,
              Int(parsed.tape[2].next) == parsed.tape.count, !parsed.hasInsignificantWhitespace
        else {
            return nil
        }
        let nodes = parsed.tape.withUnsafeBufferPointer { tape in
            tape[1...].map { node -> JSONNode in
                var node = node
                node.start -= 1
                node.end -= 1
                node.next -= 1
                return node
            }
        }
        return text[1..<(text.count - 1)].withUnsafeBufferPointer { member in
            nodes.withUnsafeBufferPointer { insertingMember(member, nodes: $0, into: object) }
        }
    }

    /// The same with the member built by `builder` (`"key":value`, written
    /// after `key`): nothing is parsed.
    public func insertingMember(_ builder: JSONBuilder, into object: Int) -> JSONDocument? {
        insertingMember(builder.textBytes, nodes: builder.nodes, into: object)
    }

    /// The same with the member already indexed: `member` is `"key":value`
    /// and `nodes` its key's and value's nodes, offsets from the start of
    /// `member` and `next` indexes from the start of `nodes` (as
    /// `JSONBuilder` makes them). Nothing is parsed.
    func insertingMember(_ member: UnsafeBufferPointer<UInt8>, nodes: UnsafeBufferPointer<JSONNode>,
                         into object: Int) -> JSONDocument? {
        guard !isModified, tape[object].kind == .object, !nodes.isEmpty else { return nil }
        let container = tape[object]
        let hasMembers = Int(container.next) > object + 1
        // Inserted bytes: a comma when the object has members, then the member.
        let insertAt = Int(container.end) - 1  // the object's closing brace
        let comma = hasMembers ? 1 : 0
        let byteShift = UInt32(comma + member.count)
        let nodeShift = UInt32(nodes.count)
        let at = Int(container.next)  // tape index where the member's nodes go

        let insertion = UInt32(insertAt)
        let memberOffset = UInt32(insertAt + comma)
        let memberIndex = UInt32(at)
        // Every offset and index below fits 32 bits once the new ones do: wrapping arithmetic.
        guard storage.byteCount + Int(byteShift) < Int(UInt32.max), storage.count + nodes.count < Int(UInt32.max) else { return nil }
        let old = storage
        let made = Storage.make(nodeCount: old.count + nodes.count, byteCount: old.byteCount + Int(byteShift),
                                hasInsignificantWhitespace: hasInsignificantWhitespace) { buffer, bytes in
            old.withBytes { oldBytes in
                // The line: up to the object's closing brace, a comma, the member, the rest.
                bytes.initialize(from: oldBytes.baseAddress!, count: insertAt)
                var written = insertAt
                if hasMembers {
                    bytes[written] = UInt8(ascii: ",")
                    written += 1
                }
                if let base = member.baseAddress { (bytes + written).initialize(from: base, count: member.count) }
                written += member.count
                (bytes + written).initialize(from: oldBytes.baseAddress! + insertAt, count: oldBytes.count - insertAt)
            }
            old.withUnsafeBufferPointer { old in
                // Everything before the insertion stays, copied in one piece; then the object
                // and the containers around it (those spanning its closing brace) grow.
                buffer.initialize(from: old.baseAddress!, count: at)
                for index in 0..<at where old[index].start < insertion && old[index].end > insertion {
                    buffer[index].end &+= byteShift
                    buffer[index].next &+= nodeShift
                }
                for offset in 0..<nodes.count {
                    var node = nodes[offset]
                    node.start &+= memberOffset
                    node.end &+= memberOffset
                    node.next &+= memberIndex
                    (buffer + (at &+ offset)).initialize(to: node)
                }
                let moved = buffer + (at &+ nodes.count)
                for index in at..<old.count {
                    var node = old[index]
                    node.start &+= byteShift
                    node.end &+= byteShift
                    node.next &+= nodeShift
                    (moved + (index &- at)).initialize(to: node)
                }
            }
        }
        return JSONDocument(storage: made)
    }

    /// This document with its pending edits written into the bytes and parsed
    /// again, so readers that look members up on the tape see them. The rare path.
    public func materialized() -> JSONDocument {
        guard isModified, let document = try? JSONDocument.parse(canonicalJSON) else { return self }
        return document
    }
}
