/// A batch's records (NDJSON lines) as the JSON array inside a provider's
/// envelope (`{"batch":[…]}`, `{"api_key":…,"events":[…]}`): the lines joined
/// by commas, each record's bytes as `sluice run` wrote them.
enum JSONEnvelope {
    static func wrap(_ records: ArraySlice<UInt8>, prefix: String, suffix: String) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(records.count + prefix.utf8.count + suffix.utf8.count)
        body += Array(prefix.utf8)
        var first = true
        var start = records.startIndex
        while start < records.endIndex {
            let end = records[start...].firstIndex(of: 0x0A) ?? records.endIndex
            if end > start {
                if !first { body.append(UInt8(ascii: ",")) }
                body += records[start..<end]
                first = false
            }
            start = end + 1
        }
        body += Array(suffix.utf8)
        return body
    }
}
