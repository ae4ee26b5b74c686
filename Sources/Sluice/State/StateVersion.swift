/// The `--state` file's format versions: the one written, and the oldest still
/// read (`StateFormat` in Pipeline/ lays the file out; its errors name these).
enum StateVersion {
    static let current: UInt32 = 4
    static let oldestReadable: UInt32 = 2
}
