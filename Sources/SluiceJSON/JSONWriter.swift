// Unsafe code: an unedited value is appended as a slice of the document's raw
// bytes (`withRawBytes`), one copy for the whole value, for every record. The
// slice is the value's `start..<end` from the parser's tape, within the bytes,
// and used only during the call.

extension JSONDocument {
    /// Appends the document as canonical JSON: compact (no insignificant
    /// whitespace), keys in their original order, values byte-identical to the
    /// input unless a stage changed them, added members after the original ones.
    ///
    /// The concrete overloads are the API for other modules: a generic call
    /// from outside this module is not specialized, and pays a witness-table
    /// call for every byte appended.
    public func write(to out: inout [UInt8]) { writeCanonical(to: &out) }
    public func write(to out: inout ByteBuffer) { writeCanonical(to: &out) }
    @inlinable public func write<Out: ByteSink>(to out: inout Out) { write(node: 0, to: &out) }

    private func writeCanonical<Out: ByteSink>(to out: inout Out) { write(node: 0, to: &out) }

    /// Appends the value at `node` as canonical JSON, edits applied.
    @inlinable
    public func write<Out: ByteSink>(node: Int, to out: inout Out) {
        // No edits and no insignificant whitespace: the text as written is canonical.
        if edits.isEmpty && !hasInsignificantWhitespace {
            storage.withRawBytes { out.append(raw: UnsafeRawBufferPointer(rebasing: $0[Int(tape[node].start)..<Int(tape[node].end)])) }
            return
        }
        writeEdited(node: node, to: &out)
    }

    @inlinable
    func writeEdited<Out: ByteSink>(node: Int, to out: inout Out) {
        if let replacement = edits.replacement(for: node) {
            out.append(contentsOf: replacement)
            return
        }
        let current = tape[node]
        switch current.kind {
        case .object:
            out.append(UInt8(ascii: "{"))
            var first = true
            var index = node + 1
            let end = Int(current.next)
            while index < end {
                let valueIndex = index + 1
                let following = Int(tape[valueIndex].next)
                if !edits.isRemoved(index) {
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    appendRaw(index, to: &out)
                    out.append(UInt8(ascii: ":"))
                    writeEdited(node: valueIndex, to: &out)
                }
                index = following
            }
            if edits.hasAdditions(node) {
                for addition in edits.added where addition.object == Int32(node) {
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    JSONString.appendQuoted(addition.key, to: &out)
                    out.append(UInt8(ascii: ":"))
                    out.append(contentsOf: addition.json)
                }
            }
            out.append(UInt8(ascii: "}"))
        case .array:
            out.append(UInt8(ascii: "["))
            var index = node + 1
            let end = Int(current.next)
            var first = true
            while index < end {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeEdited(node: index, to: &out)
                index = Int(tape[index].next)
            }
            out.append(UInt8(ascii: "]"))
        case .string, .number, .true, .false, .null:
            appendRaw(node, to: &out)
        }
    }

    /// The document as canonical JSON text.
    public var canonicalJSON: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(byteCount)
        write(to: &out)
        return out
    }
}
