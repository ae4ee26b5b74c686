// Unsafe code: path components are looked up through `withUnsafeBytes`, as
// `member` takes raw key bytes; the pointer is used only during the look-up.

/// Changes made to a `JSONDocument` by stages, kept beside the original bytes.
///
/// Few events get more than a handful of edits, so plain arrays with linear
/// look-ups beat hashing here. The writer consults them only when non-empty.
///
/// Most events are never edited, yet every event is copied and destroyed as it
/// moves through the stages and the fan-out: the three lists live in one box
/// made at the first edit (copied on write), so an unedited document carries
/// one empty reference instead of three arrays to retain and release.
@usableFromInline
struct JSONEdits: Sendable {
    /// The three lists, in one box.
    ///
    /// Sendable: they are changed only through `unique()`, which copies the box
    /// first unless this `JSONEdits` holds the only reference, so a box another
    /// copy (on any thread) can see is never written.
    @usableFromInline
    final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) @usableFromInline var replaced: [(node: Int32, json: [UInt8])] = []
        @exclusivity(unchecked) @usableFromInline var removed: [Int32] = []
        @exclusivity(unchecked) @usableFromInline var added: [(object: Int32, key: [UInt8], json: [UInt8])] = []

        init() {}

        init(copying other: Storage) {
            replaced = other.replaced
            removed = other.removed
            added = other.added
        }
    }

    @usableFromInline var storage: Storage?

    /// The box to change, made (or copied, when shared) first.
    @usableFromInline mutating func unique() -> Storage {
        if isKnownUniquelyReferenced(&storage) { return storage! }
        let made = storage.map(Storage.init(copying:)) ?? Storage()
        storage = made
        return made
    }

    /// Values replaced by new raw JSON text, by tape index.
    var replaced: [(node: Int32, json: [UInt8])] {
        get { storage?.replaced ?? [] }
        _modify { yield &unique().replaced }
    }

    /// Members removed, by the tape index of their key.
    var removed: [Int32] {
        get { storage?.removed ?? [] }
        _modify { yield &unique().removed }
    }

    /// Members appended to an object (tape index), with an unescaped key and raw JSON value.
    @usableFromInline var added: [(object: Int32, key: [UInt8], json: [UInt8])] {
        get { storage?.added ?? [] }
        _modify { yield &unique().added }
    }

    /// Inlined everywhere: every member look-up and `isModified` asks first.
    @inlinable var isEmpty: Bool {
        @inline(__always) get {
            guard let storage else { return true }
            return storage.replaced.isEmpty && storage.removed.isEmpty && storage.added.isEmpty
        }
    }

    @inlinable func isRemoved(_ keyIndex: Int) -> Bool {
        guard let storage, !storage.removed.isEmpty else { return false }
        return storage.removed.contains(Int32(keyIndex))
    }

    @inlinable func replacement(for node: Int) -> [UInt8]? {
        guard let storage, !storage.replaced.isEmpty else { return nil }
        for entry in storage.replaced.reversed() where entry.node == Int32(node) {
            return entry.json
        }
        return nil
    }

    @inlinable func hasAdditions(_ object: Int) -> Bool {
        guard let storage, !storage.added.isEmpty else { return false }
        return storage.added.contains { $0.object == Int32(object) }
    }
}

extension JSONDocument {
    /// Sets the value at `path` to `json` (raw JSON text), creating missing
    /// objects along the way. Returns false when a path component runs into a
    /// value that is not an object.
    @discardableResult
    public mutating func set(_ path: JSONPath, json: [UInt8]) -> Bool {
        var node = 0
        var depth = 0
        while depth < path.components.count {
            let component = path.components[depth]
            guard tape[node].kind == .object, edits.replacement(for: node) == nil else { return false }
            guard let next = component.withUnsafeBytes({ member($0, of: node) }) else { break }
            node = next
            depth += 1
        }
        if depth == path.components.count {
            edits.replaced.append((Int32(node), json))
            return true
        }
        // Wrap the value in objects for the components that do not exist yet.
        var value = json
        for component in path.components[(depth + 1)...].reversed() {
            var wrapped: [UInt8] = [UInt8(ascii: "{")]
            JSONString.appendQuoted(component, to: &wrapped)
            wrapped.append(UInt8(ascii: ":"))
            wrapped.append(contentsOf: value)
            wrapped.append(UInt8(ascii: "}"))
            value = wrapped
        }
        let key = path.components[depth]
        if let existing = edits.added.firstIndex(where: { $0.object == Int32(node) && $0.key == key }) {
            edits.added[existing].json = value
        } else {
            edits.added.append((Int32(node), key, value))
        }
        return true
    }

    /// Sets a string value at `path`.
    @discardableResult
    public mutating func set(_ path: JSONPath, string: String) -> Bool {
        var json: [UInt8] = []
        JSONString.appendQuoted(Array(string.utf8), to: &json)
        return set(path, json: json)
    }

    /// Sets an integer value at `path`.
    @discardableResult
    public mutating func set(_ path: JSONPath, integer: Int64) -> Bool {
        set(path, json: Array(String(integer).utf8))
    }

    /// Removes the member at `path`; returns whether it existed.
    @discardableResult
    public mutating func remove(_ path: JSONPath) -> Bool {
        guard let last = path.components.last else { return false }
        var parent = 0
        for component in path.components.dropLast() {
            guard let next = component.withUnsafeBytes({ member($0, of: parent) }) else { return false }
            parent = next
        }
        if let added = edits.added.firstIndex(where: { $0.object == Int32(parent) && $0.key == last }) {
            edits.added.remove(at: added)
            return true
        }
        guard let value = last.withUnsafeBytes({ member($0, of: parent) }) else { return false }
        edits.removed.append(Int32(value - 1))
        return true
    }

    /// Removes the member whose key is at tape index `keyIndex` (from `members(of:)`):
    /// by position, so keys with dots or escapes need no path.
    public mutating func removeMember(keyIndex: Int) {
        guard !edits.isRemoved(keyIndex) else { return }
        edits.removed.append(Int32(keyIndex))
    }
}

extension JSONDocument {
    /// The members edits added to the object at `object` (`set` on a new key), in the order they were made.
    public func addedMembers(of object: Int) -> [(key: [UInt8], json: [UInt8])] {
        edits.added.filter { $0.object == Int32(object) }.map { ($0.key, $0.json) }
    }
}
