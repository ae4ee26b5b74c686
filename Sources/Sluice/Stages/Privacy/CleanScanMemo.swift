import SluiceJSON

/// The strings the redaction walk scanned and found nothing in, remembered so
/// that the same string in the same field is not scanned again: a device's
/// model, app instance id and address come back with every event it sends.
///
/// A scan is a function of the string (or a JSON number's text), the field's
/// name (phones and addresses read the name), the mode (all detectors or the
/// email ones, a key, a value or a number) and, for a few runs of digits, the country of the event's
/// `context.locale` (national phone numbers): an entry keeps all of them and
/// is used only when all match, so remembering changes no result. Only clean
/// results are kept (a hit is rare and needs its splice anyway), only for
/// short strings, in a fixed table where a new entry replaces the one in its
/// slot: the memory is bounded (`slotCount` × `slotBytes`, 512 KiB).
struct CleanScanMemo {
    static let slotCount = 4096
    /// A slot: mode, the name's length, the text's length, the name, the text.
    static let slotBytes = 128
    /// The mode of a JSON number read for cards and phones (strings: bit 0 a key, bit 1 the email detectors only).
    static let numberMode: UInt8 = 4
    /// The country is not part of the entry: the scan did not read it.
    static let anyRegion: Int32 = -3

    /// The key bytes by slot.
    private var keys: [UInt8]
    /// The hash of each slot's key with the low bit set; 0 for an empty slot.
    private var tags: [UInt64]
    /// The country each slot's scan read (`PhoneRegion` index, -1 none), or `anyRegion`.
    private var regions: [Int32]

    init() {
        keys = [UInt8](repeating: 0, count: CleanScanMemo.slotCount * CleanScanMemo.slotBytes)
        tags = [UInt64](repeating: 0, count: CleanScanMemo.slotCount)
        regions = [Int32](repeating: CleanScanMemo.anyRegion, count: CleanScanMemo.slotCount)
    }

    /// Where a key is, or would go.
    struct Probe {
        /// -1: the key is too long to keep.
        var slot: Int
        var tag: UInt64
    }

    /// Whether `mode`, `field` and `text` fit one slot.
    @inline(__always)
    static func fits(field: Span<UInt8>, text: Span<UInt8>) -> Bool {
        3 + field.count + text.count <= slotBytes
    }

    /// The slot for the key; `probe.slot` is -1 when it is too long to remember.
    @inline(__always)
    static func probe(mode: UInt8, field: Span<UInt8>, text: Span<UInt8>) -> Probe {
        guard CleanScanMemo.fits(field: field, text: text) else { return Probe(slot: -1, tag: 0) }
        let fieldHash = StableHash.hash(field, seed: StableHash.seedB ^ UInt64(mode))
        let tag = StableHash.hash(text, seed: fieldHash) | 1
        return Probe(slot: Int(truncatingIfNeeded: tag >> 52) & (CleanScanMemo.slotCount - 1), tag: tag)
    }

    /// The country the key's clean scan read (`anyRegion`: it read none), or
    /// nil when the key was not scanned clean; the caller compares it with the
    /// event's, so that the country is read only when an entry needs it.
    /// (Mutating, though it changes nothing: the memo is then read in place,
    /// where a read-only call from the walk's closures would copy its arrays.)
    @inline(__always)
    mutating func cleanRegion(_ probe: Probe, mode: UInt8, field: Span<UInt8>, text: Span<UInt8>) -> Int32? {
        guard probe.slot >= 0, tags[probe.slot] == probe.tag else { return nil }
        let slot = keys.span.extracting(probe.slot * CleanScanMemo.slotBytes..<(probe.slot + 1) * CleanScanMemo.slotBytes)
        guard slot[0] == mode, Int(slot[1]) == field.count, Int(slot[2]) == text.count,
              ByteSpans.equal(slot.extracting(3..<3 + field.count), field),
              ByteSpans.equal(slot.extracting(3 + field.count..<3 + field.count + text.count), text) else { return nil }
        return regions[probe.slot]
    }

    /// Remembers that the key scanned clean; `region`: the country the scan read, or `anyRegion`.
    mutating func remember(_ probe: Probe, mode: UInt8, field: Span<UInt8>, text: Span<UInt8>,
                           region: Int32) {
        guard probe.slot >= 0 else { return }
        let slot = probe.slot * CleanScanMemo.slotBytes
        keys[slot] = mode
        keys[slot + 1] = UInt8(field.count)
        keys[slot + 2] = UInt8(text.count)
        ByteSpans.copy(field, into: &keys, at: slot + 3)
        ByteSpans.copy(text, into: &keys, at: slot + 3 + field.count)
        tags[probe.slot] = probe.tag
        regions[probe.slot] = region
    }
}
