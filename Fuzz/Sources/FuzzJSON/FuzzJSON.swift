@testable import Sluice
@testable import SluiceJSON

/// Any bytes as one input line: the parser must accept or refuse them without
/// trapping, and what it accepts must hold together.
///
/// Checked on every accepted document:
/// - the line is valid UTF-8 (strings are checked; outside them only ASCII parses);
/// - every tape node lies inside the line and `next` skips forward within the tape;
/// - every string decodes (escapes, surrogate pairs);
/// - the canonical text parses again to the same canonical text (a fixed point);
/// - `Event.decode` either accepts it or rejects it with a reason, and an
///   accepted event goes through every provider's encoder: an identify, a
///   group or an alias through the profile encoders too, and every record
///   they write (events' file set and side outputs) is one JSON object.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let line = UnsafeBufferPointer(start: data, count: size)
    switch Event.decode(line, origin: Origin(source: 0, line: 1)) {
    case .success(let event):
        check(event.document, line)
        encodeEverywhere(event)
    case .failure(let rejection):
        precondition(!rejection.detail.isEmpty, "a rejection without a detail")
        if let document = try? JSONDocument.parse(line) { check(document, line) }
    }
    return 0
}

private func check(_ document: JSONDocument, _ line: UnsafeBufferPointer<UInt8>) {
    precondition(UTF8Validation.isValid(line), "the parser accepted a line that is not UTF-8")
    let tape = document.tape
    for (index, node) in tape.enumerated() {
        precondition(node.start <= node.end && Int(node.end) <= document.byteCount, "node \(index) lies outside the line")
        precondition(Int(node.next) > index && Int(node.next) <= tape.count, "node \(index) skips to \(node.next)")
        if node.kind == .string {
            _ = document.withString(index) { $0.count }
        }
    }
    let canonical = document.canonicalJSON
    guard let again = try? JSONDocument.parse(canonical) else {
        preconditionFailure("the canonical text does not parse: \(String(decoding: canonical, as: UTF8.self))")
    }
    precondition(again.canonicalJSON == canonical, "the canonical text is not a fixed point")
}

/// Every provider adapter, configured once as `pipelines/providers.yaml` does,
/// with the side outputs each has.
private let destinations: [DestinationSettings] = {
    let yaml = """
        version: 1
        destinations:
          ndjson: {type: ndjson}
          mixpanel: {type: mixpanel}
          amplitude: {type: amplitude}
          ga4: {type: ga4}
          adjust: {type: adjust, app_token: 4w565xzmb54d, tokens: {purchase_completed: f0ob4r, tap: abc123}}
          segment: {type: segment}
        """
    return try! PipelineConfiguration.load(yaml: yaml, file: "fuzz.yaml").destinations
}()

private func encodeEverywhere(_ event: Event) {
    var buffer: [UInt8] = []
    for settings in destinations {
        var destination = settings.destination
        if destination.profileTypes.contains(event.type) {
            var context = EncodingContext()
            var records = ByteBuffer()
            var side = SideRecords(count: settings.sideOutputs.count)
            if case .records = destination.encodeProfile(event, context: &context, into: &records, side: &side) {
                checkRecords(records.array)
                for index in side.buffers.indices { checkRecords(side.buffers[index].array) }
            }
            continue
        }
        if destination.skipReason(for: event) != nil { continue }
        buffer.removeAll(keepingCapacity: true)
        if case .records = destination.encode(event, into: &buffer) { checkRecords(buffer) }
    }
}

/// Each record is one JSON line.
private func checkRecords(_ bytes: [UInt8]) {
    for record in bytes.split(separator: 0x0A) {
        precondition((try? JSONDocument.parse(Array(record))) != nil, "a record is not a JSON object")
    }
}
