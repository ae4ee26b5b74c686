import Sluice

/// How a file's records become requests.
enum Batches {
    /// `range` cut into requests of at most `maxRecords` records and `maxBytes`
    /// bytes, in order (a record larger than `maxBytes` alone: the provider
    /// answers 413 and it is refused).
    static func cut(_ range: Range<Int>, of file: SendFile, api: any ProviderAPI) -> [Range<Int>] {
        if api.formEncoded { return cutEncoded(range, of: file, api: api) }
        var result: [Range<Int>] = []
        var first = range.lowerBound
        while first < range.upperBound {
            var end = first + 1
            while end < range.upperBound, end - first < api.maxRecords,
                  file.starts[end + 1] - file.starts[first] <= api.maxBytes {
                end += 1
            }
            result.append(first..<end)
            first = end
        }
        return result
    }

    /// The same, each record counted as the request body holds it (and three bytes for the `%2C` between two).
    private static func cutEncoded(_ range: Range<Int>, of file: SendFile, api: any ProviderAPI) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var first = range.lowerBound
        var bytes = 0
        for index in range {
            let size = FormEncoding.encodedCount(file.record(index)) + 3  // `%2C`, the comma between two records
            if index > first && (index - first == api.maxRecords || bytes + size > api.maxBytes) {
                result.append(first..<index)
                first = index
                bytes = 0
            }
            bytes += size
        }
        if first < range.upperBound { result.append(first..<range.upperBound) }
        return result
    }
}
