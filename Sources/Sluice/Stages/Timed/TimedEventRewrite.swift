#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceJSON

/// How the timed stage changes the events it lets out: the completed pair,
/// an abandoned start, an orphan stop, and events rebuilt from stored bytes.
///
/// A changed event leaves here re-parsed from its canonical text, with no
/// pending edits: readers that look fields up by node index (later stages,
/// `EventFields` in the destinations) then see `timed: "completed"` and
/// `duration_ms`, not the original `stop`, and the edits are applied once, not
/// once per destination.
enum TimedEventRewrite {
    static let propertiesPath = JSONPath("properties")
    static let startedAtPath = JSONPath("started_at")
    static let abandonReasonPath = JSONPath("abandon_reason")
    static let sessionPath = JSONPath("context.session")
    static let startedSessionPath = JSONPath("started_session")
    private static let durationKey = Array("duration_ms".utf8)
    private static let eventKey = Array("event".utf8)

    /// One event from a start and its stop: the stop's fields; `properties` is
    /// the stop's members, then the start's members the stop lacks (the stop
    /// wins on conflict), then `duration_ms`; top-level `started_at` is the
    /// start's `timestamp` text; the marker becomes `completed`.
    ///
    /// - Parameters:
    ///   - startTimestamp: the start's `timestamp` value, raw JSON (empty if absent).
    ///   - startProperties: the start's `properties` value, raw JSON (empty when absent).
    ///   - startSession: the start's `context.session`, raw JSON (empty when absent): when
    ///     it is another session than the stop's, it becomes `started_session`, so a
    ///     provider that writes the start on its own (GA4 `timed: split`) files it in
    ///     the session it happened in, not in one that began after it.
    ///   - startWithheld: the start's consent mark; the pair is withheld from every
    ///     destination the start or the stop was (the stricter of the two).
    static func completed(stop: Event, startTime: EventTime, startTimestamp: ArraySlice<UInt8>,
                          startProperties: ArraySlice<UInt8>, startSession: ArraySlice<UInt8> = [],
                          startWithheld: WithheldDestinations?, marker: JSONPath) -> Event {
        var stop = applyingEdits(stop)
        let duration = max(0, stop.time.microseconds - startTime.microseconds) / 1000
        var merged: [UInt8] = [UInt8(ascii: "{")]
        merged.reserveCapacity(64 + startProperties.count)
        var stopObject: Int?
        if let node = stop.document.member("properties"), stop.document.kind(node) == .object {
            stopObject = node
            for (key, value) in stop.document.members(of: node) where !isDurationKey(stop.document, key) {
                if merged.count > 1 { merged.append(UInt8(ascii: ",")) }
                stop.document.write(node: key, to: &merged)
                merged.append(UInt8(ascii: ":"))
                stop.document.write(node: value, to: &merged)
            }
        }
        if !startProperties.isEmpty, let start = try? JSONDocument.parse(Array(startProperties)) {
            for (key, value) in start.members(of: 0) where !isDurationKey(start, key) {
                if let stopObject,
                   start.withString(key, { stop.document.member($0, of: stopObject) != nil }) == true { continue }
                if merged.count > 1 { merged.append(UInt8(ascii: ",")) }
                start.write(node: key, to: &merged)
                merged.append(UInt8(ascii: ":"))
                start.write(node: value, to: &merged)
            }
        }
        if merged.count > 1 { merged.append(UInt8(ascii: ",")) }
        JSONString.appendQuoted(durationKey, to: &merged)
        merged.append(UInt8(ascii: ":"))
        merged.append(contentsOf: String(duration).utf8)
        merged.append(UInt8(ascii: "}"))
        stop.document.set(propertiesPath, json: merged)
        if startTimestamp.isEmpty {
            // An earlier stage removed the start's timestamp: say when it started all the same.
            stop.document.set(startedAtPath, string: startTime.iso8601)
        } else {
            stop.document.set(startedAtPath, json: Array(startTimestamp))
        }
        if !startSession.isEmpty, !sameSession(startSession, stop.document) {
            stop.document.set(startedSessionPath, json: Array(startSession))
        }
        stop.document.set(marker, string: "completed")
        stop.withheld = WithheldDestinations.union(stop.withheld, startWithheld)
        return applyingEdits(stop)
    }

    /// The message in `line` with its marker value (the bytes at `markerValue`)
    /// replaced by `value` (`abandoned`, `orphan_stop`) and, for an abandoned
    /// start, `abandon_reason` added as its last member: spliced as text and
    /// parsed once. `line` is one JSON object that parsed before; `withheld` is
    /// the consent mark the message had when it came in.
    static func marked(line: ArraySlice<UInt8>, markerValue: Range<Int>, _ value: String, abandonReason: String? = nil,
                       origin: Origin, time: EventTime, withheld: WithheldDestinations?, marker: JSONPath) -> Event {
        if abandonReason != nil && mayHaveAbandonReason(line) {
            // The message may have an `abandon_reason` of its own: a second one would make the
            // line a duplicate-key line, which does not parse. Replace it by its node.
            var original = event(from: line, origin: origin, time: time, withheld: withheld)
            if original.document.member("abandon_reason") != nil {
                original.document.set(marker, string: value)
                original.document.set(abandonReasonPath, string: abandonReason!)
                return applyingEdits(original)
            }
        }
        var close = line.endIndex - 1
        while close > line.startIndex && line[close] != UInt8(ascii: "}") { close -= 1 }
        var text: [UInt8] = []
        text.reserveCapacity(line.count + 48)
        text.append(contentsOf: line[line.startIndex..<markerValue.lowerBound])
        JSONString.appendQuoted(value, to: &text)
        text.append(contentsOf: line[markerValue.upperBound..<close])
        if let abandonReason {
            text.append(contentsOf: #","abandon_reason":"#.utf8)
            JSONString.appendQuoted(abandonReason, to: &text)
        }
        text.append(UInt8(ascii: "}"))
        return event(from: text[...], origin: origin, time: time, withheld: withheld)
    }

    private static let abandonReasonKey = Array("abandon_reason".utf8)

    /// Whether `line` holds `abandon_reason`, or an escape that could spell it
    /// (with memchr and memcmp, `ByteSpans`: the generic `firstRange(of:)` cost 13% of the
    /// reading thread in a run that abandons 5% of its events).
    private static func mayHaveAbandonReason(_ line: ArraySlice<UInt8>) -> Bool {
        let bytes = line.span
        return ByteSpans.firstIndex(of: UInt8(ascii: "\\"), in: bytes) != nil || ByteSpans.contains(bytes, abandonReasonKey)
    }

    /// Rebuilds a track event from the line bytes the stage kept, with the time, origin and consent mark it had.
    static func event(from line: ArraySlice<UInt8>, origin: Origin, time: EventTime, withheld: WithheldDestinations?) -> Event {
        guard let document = try? JSONDocument.parse(Array(line)) else {
            preconditionFailure("a timed event's stored line no longer parses")
        }
        var event = Event(document: document, origin: origin, type: .track, time: time, name: name(of: document))
        event.withheld = withheld
        return event
    }

    /// The event with its edits written into its bytes and parsed again, so its
    /// bytes and index show them; everything else about it (its consent mark) is
    /// kept. Unchanged events are returned as they are.
    static func applyingEdits(_ event: Event) -> Event {
        guard event.document.isModified, let document = try? JSONDocument.parse(event.document.canonicalJSON) else {
            return event
        }
        var event = event
        event.document = document
        return event
    }

    private static func name(of document: JSONDocument) -> [UInt8] {
        guard let node = document.member(eventKey) else { return [] }
        return document.withString(node) { Array($0) } ?? []
    }

    /// Whether a start's `context.session` text names the session the stop is in (same `id`).
    private static func sameSession(_ startSession: ArraySlice<UInt8>, _ stop: JSONDocument) -> Bool {
        guard let start = try? JSONDocument.parse(Array(startSession)), let startID = start.member("id"),
              let stopID = stop.find(sessionIDPath) else { return false }
        return start.rawBytes(startID).elementsEqual(stop.rawBytes(stopID))
    }
    private static let sessionIDPath = JSONPath("context.session.id")

    private static func isDurationKey(_ document: JSONDocument, _ key: Int) -> Bool {
        document.stringEquals(key, durationKey)
    }
}
