import SluiceJSON

/// The `context` fields of Segment's common spec (segment-docs
/// src/connections/spec/common.md, "Context") that providers map beyond the
/// device ones `EventFields` reads: `campaign` (the UTM parameters), `page`,
/// `screen`, `network` and `locale`. Found in the same pass over `context`
/// (and kept in the same memo); each provider writes those its own docs name:
///
/// | field | Mixpanel | Amplitude | GA4 |
/// | --- | --- | --- | --- |
/// | `campaign.source`, `.medium`, `.name`, `.term`, `.content` | `utm_source`, `utm_medium`, `utm_campaign`, `utm_term`, `utm_content` | the same, as `user_properties` | – |
/// | `page.url`, `.referrer`, `.title` | `$current_url`, `$referrer`, – | – | `page_location`, `page_referrer`, `page_title` |
/// | `screen.width`, `.height` | `$screen_width`, `$screen_height` | – | – |
/// | `network.carrier`, `.wifi`, `.bluetooth` | `$carrier`, `$wifi`, `$bluetooth_enabled` | `carrier`, –, – | – |
/// | `locale` | – | `language` | – |
/// | `location.latitude`, `.longitude`, `.city`, `.country`, `.region` | – | `location_lat`, `location_lng`, `city`, `country`, `region` | – |
/// | `page.initial_referrer`, `.initial_referring_domain` (or `initialReferrer`, `initialReferringDomain`) | `$initial_referrer`, `$initial_referring_domain` | the same without `$`, as `$setOnce` user properties of an identify | – |
/// | `campaign`'s other keys (`keyword`, `utm_keyword`, `gclid`, ...) | `utm_keyword`, `gclid`, ... (`MixpanelContext.swift`) | – | – |
///
/// Nothing is made up: a field the event does not have is not sent, and one of
/// the wrong kind (a `screen.width` that is not a number) is left out and
/// counted `context_value_invalid` by the providers that map it. Empty strings
/// are no value, as for every `context` string.
struct MappedContext: Sendable {
    /// A bit per field.
    typealias Mask = UInt32

    /// How many fields `nodes` has room for (and fewer than `Mask`'s bits).
    static let capacity = 24

    /// At most `capacity`.
    enum Field: Int, CaseIterable {
        case utmSource, utmMedium, utmCampaign, utmTerm, utmContent
        case pageURL, pageReferrer, pageTitle
        case screenWidth, screenHeight
        case carrier, wifi, bluetooth
        case locale
        case latitude, longitude, city, country, region
        case initialReferrer, initialReferringDomain
        /// The `campaign` object itself, when it has keys beside the five UTM ones.
        case campaignOther

        var bit: Mask { 1 << Mask(rawValue) }
    }

    /// Where `context` was when the fields were read: the nodes below are relative to it,
    /// so the same fields in another document with the same `context` text are one
    /// addition away (`ContextMemo`).
    private var base = 0
    /// The fields' node indexes less `base`, 32 bits each (in place, not a SIMD
    /// vector: the class holding them then needs no over-aligned allocation per event).
    private var nodes = InlineArray<24, UInt32>(repeating: 0)
    /// A bit per field the event has (`Field.bit`).
    private(set) var present: Mask = 0
    /// A bit per field the event has with a value of the wrong kind, left out.
    private(set) var invalid: Mask = 0

    init(base: Int = 0) { self.base = base }

    static func mask(_ fields: Field...) -> Mask { fields.reduce(0) { $0 | $1.bit } }
    @inline(__always) static var campaign: Mask {
        Field.utmSource.bit | Field.utmMedium.bit | Field.utmCampaign.bit | Field.utmTerm.bit | Field.utmContent.bit
    }
    /// The UTM parameters' own names, which Mixpanel and Amplitude both use.
    static let utmNames: [(name: StaticString, field: Field)] = [
        ("utm_source", .utmSource), ("utm_medium", .utmMedium), ("utm_campaign", .utmCampaign), ("utm_term", .utmTerm),
        ("utm_content", .utmContent),
    ]

    @inline(__always)
    func node(_ field: Field) -> Int? {
        guard present & field.bit != 0 else { return nil }
        let offset = nodes[field.rawValue]
        return base &+ Int(offset)
    }

    /// The same fields in a document whose `context` starts `shift` nodes later (`ContextMemo`).
    @inline(__always)
    func moved(by shift: Int) -> MappedContext {
        var moved = self
        moved.base &+= shift
        return moved
    }

    /// What a value must be for its field.
    private enum Kind { case string, number, boolean, object }

    private mutating func set(_ field: Field, _ document: JSONDocument, _ value: Int, _ kind: Kind) {
        let ok: Bool
        switch (kind, document.kind(value)) {
        case (.string, .string):
            // An empty string is no value: the field is left out, not sent empty.
            guard document.rawLength(value) > 2 else { return }
            ok = true
        case (.number, .number), (.boolean, .true), (.boolean, .false), (.object, .object): ok = true
        case (_, .null): return
        default: ok = false
        }
        if ok {
            let offset = UInt32(truncatingIfNeeded: value &- base)
            nodes[field.rawValue] = offset
            present |= field.bit
        } else {
            invalid |= field.bit
        }
    }

    /// Reads the members of one of `context`'s objects named in `fields` (key, field, kind); the
    /// first of a field decides (a field may have two spellings). Returns how many members it did not know.
    @discardableResult
    private mutating func read(_ document: JSONDocument, _ object: Int, _ fields: [(StaticString, Field, Kind)]) -> Int {
        var seen: Mask = 0
        var others = 0
        document.forEachMember(of: object) { key, value in
            for (name, field, kind) in fields where document.string(key, is: name) {
                if seen & field.bit == 0 {
                    seen |= field.bit
                    set(field, document, value, kind)
                }
                return
            }
            others += 1
        }
        return others
    }

    /// A member of `context` that `EventFields` does not read itself, by its key: one
    /// of the objects or strings here, or nothing. Out of line, so the loop over
    /// `context` stays as small as before for the events that have none of them.
    /// (The first member of a name decides; JSON with a key twice is rejected on input.)
    @inline(never)
    mutating func readMember(_ document: JSONDocument, _ key: Int, _ value: Int) {
        switch (document.kind(value), document.decodedLength(key)) {
        case (.object, 4): if document.string(key, is: "page") { readPage(document, value) }
        case (.object, 6): if document.string(key, is: "screen") { readScreen(document, value) }
        case (.object, 7): if document.string(key, is: "network") { readNetwork(document, value) }
        case (.object, 8):
            if document.string(key, is: "campaign") { readCampaign(document, value) }
            else if document.string(key, is: "location") { readLocation(document, value) }
        case (.string, 6): if document.string(key, is: "locale") { readLocale(document, value) }
        default: break
        }
    }

    /// `context.campaign`: "the common UTM campaign parameters" (`name` is the campaign);
    /// any other key (analytics.js keeps every `utm_*` of the URL there, `utm_keyword` as
    /// `keyword`) makes the object itself `campaignOther`.
    private mutating func readCampaign(_ document: JSONDocument, _ object: Int) {
        let others = read(document, object, [("source", .utmSource, .string), ("medium", .utmMedium, .string),
                                             ("name", .utmCampaign, .string), ("term", .utmTerm, .string),
                                             ("content", .utmContent, .string)])
        if others > 0 { set(.campaignOther, document, object, .object) }
    }

    /// `context.page` (`path` and `search` are parts of `url`, which providers take whole).
    /// The first-touch referrer is spelled `initial_referrer` or `initialReferrer`
    /// (RudderStack's JavaScript SDK), likewise its domain.
    private mutating func readPage(_ document: JSONDocument, _ object: Int) {
        read(document, object, [("url", .pageURL, .string), ("referrer", .pageReferrer, .string), ("title", .pageTitle, .string),
                                ("initial_referrer", .initialReferrer, .string), ("initialReferrer", .initialReferrer, .string),
                                ("initial_referring_domain", .initialReferringDomain, .string),
                                ("initialReferringDomain", .initialReferringDomain, .string)])
    }

    /// `context.location` ("latitude", "longitude", "city", "country", "region" in the spec).
    private mutating func readLocation(_ document: JSONDocument, _ object: Int) {
        read(document, object, [("latitude", .latitude, .number), ("longitude", .longitude, .number), ("city", .city, .string),
                                ("country", .country, .string), ("region", .region, .string)])
    }

    /// `context.screen` (`density`, a scale factor on iOS, maps to no provider field).
    private mutating func readScreen(_ document: JSONDocument, _ object: Int) {
        read(document, object, [("width", .screenWidth, .number), ("height", .screenHeight, .number)])
    }

    /// `context.network`.
    private mutating func readNetwork(_ document: JSONDocument, _ object: Int) {
        read(document, object, [("carrier", .carrier, .string), ("wifi", .wifi, .boolean), ("bluetooth", .bluetooth, .boolean)])
    }

    /// `context.locale`, a string (`en-US`).
    private mutating func readLocale(_ document: JSONDocument, _ value: Int) {
        set(.locale, document, value, .string)
    }
}
