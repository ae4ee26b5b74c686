import SluiceJSON

extension JSONObjectWriter {
    /// A nested group of counters as an object: its counters, then its groups.
    mutating func group(_ group: CounterGroup) {
        var inner = JSONObjectWriter()
        for counter in group.counters { inner.field(counter.name, counter.value) }
        for nested in group.groups { inner.group(nested) }
        raw(group.name, inner.text)
    }
}
