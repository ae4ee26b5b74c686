import SluiceJSON

/// The `context` fields GA4 documents a param for (see `MappedContext`):
/// `context.page.url` → `page_location`, `.referrer` → `page_referrer`, `.title` →
/// `page_title`, with their longer value limits ([limits] support.google.com/analytics/answer/9267744:
/// "page_title parameter is limited to 300 characters", "page_referrer ... 420",
/// "page_location ... 1,000"; [mp-send] the web stream's page params, as gtag.js and
/// Segment's GA4 destination send them). On a `page` message, `context.page.title`
/// is its `page_title` (the document's title), else its name as before.
///
/// The others have no Measurement Protocol param: campaign data goes to GA4 in its
/// own `campaign_details` event, which Sluice does not make up; `locale`, `screen`
/// and `network` are collected by the Firebase SDK and gtag.js themselves.
extension GA4Destination {
    @inline(__always) static var pageParams: MappedContext.Mask {
        MappedContext.Field.pageURL.bit | MappedContext.Field.pageReferrer.bit | MappedContext.Field.pageTitle.bit
    }

    mutating func appendContextParams<Out: ByteSink>(_ fields: EventFields, _ params: inout JSONObjectEncoder, _ out: inout Out) {
        let context = fields.mapped
        if context.invalid & GA4Destination.pageParams != 0 { counts.add("context_value_invalid") }
        guard context.present & GA4Destination.pageParams != 0 else { return }
        appendContextParam("page_location", 1000, context.node(.pageURL), fields.document, &params, &out)
        appendContextParam("page_referrer", 420, context.node(.pageReferrer), fields.document, &params, &out)
        appendContextParam("page_title", 300, context.node(.pageTitle), fields.document, &params, &out)
    }

    private mutating func appendContextParam<Out: ByteSink>(_ name: StaticString, _ limit: Int, _ node: Int?, _ document: JSONDocument,
                                                            _ params: inout JSONObjectEncoder, _ out: inout Out) {
        guard let node else { return }
        params.key(name, &out)
        markLastKey(name.utf8CodeUnitCount, out)
        if TextLimit.appendString(document, node, maxScalars: limit, to: &out) { counts.add("param_value_cut") }
    }
}
