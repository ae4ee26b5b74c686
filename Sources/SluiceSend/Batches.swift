/// How a file's records become requests.
enum Batches {
    /// `range` cut into requests of at most `maxRecords` records and `maxBytes`
    /// bytes, in order (a record larger than `maxBytes` alone: the provider
    /// answers 413 and it is refused).
    static func cut(_ range: Range<Int>, of file: SendFile, api: any ProviderAPI) -> [Range<Int>] {
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
}
