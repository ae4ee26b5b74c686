import SluiceJSON

/// A destination's `rename:`: the event as that destination sees it, under its new name.
///
/// The new name is written into the bytes (`event` of a track, `name` of a
/// screen or page), like every other change a destination sees, so every
/// rule of the destination (its name rules, Adjust's tokens) reads the new
/// name. The copy gets bytes of its own; the original goes on unchanged to
/// the other destinations.
extension Event {
    private static let eventPath = JSONPath("event")
    private static let namePath = JSONPath("name")

    /// This event with `name` as its name, in its fields and in its bytes.
    func renamed(to name: String) -> Event {
        var copy = self
        copy.name = Array(name.utf8)
        switch type {
        case .track: copy.document.set(Event.eventPath, string: name)
        case .screen, .page: copy.document.set(Event.namePath, string: name)
        default: break
        }
        copy.document = copy.document.materialized()
        return copy
    }
}
