/// Which shard of a sharded run this process is: `sluice run --shard ID`, or
/// the environment variable `SLUICE_SHARD`. The name is what `{shard}`
/// becomes in every output path, so N processes that share one `--out` write
/// names that never collide.
///
/// A shard is named like a destination: 1–64 characters of `A-Z`, `a-z`,
/// `0-9`, `_` and `-`, not starting with `-`. A number is a name like any
/// other, used as given (`7` and `07` are different shards); `sluice shard-of`
/// numbers shards `0` to `N-1`.
public struct ShardID: Sendable, Equatable, CustomStringConvertible {
    public let name: String

    /// What `{shard}` becomes when the run has no `--shard`: the whole stream is one shard.
    public static let unsharded = ShardID(checked: "all")
    /// The environment variable read when `--shard` is not given.
    public static let environmentVariable = "SLUICE_SHARD"

    public init(_ name: String) throws(UsageError) {
        guard PathSafeName.isValid(name), !name.hasPrefix("-") else {
            throw UsageError("'\(name)' is not a shard name: 1-\(PathSafeName.maxLength) characters of A-Z, a-z, 0-9, _ and - "
                + "(not starting with -), such as 7 or eu-3")
        }
        self.name = name
    }

    private init(checked name: String) { self.name = name }

    /// The run's shard: `--shard` when given, else `SLUICE_SHARD` when set and
    /// not empty, else nil (not sharded). A bad name names where it came from.
    public static func resolve(option: String?, environment: (String) -> String?) throws(UsageError) -> ShardID? {
        if let option {
            do { return try ShardID(option) } catch { throw UsageError("--shard \(error.description)") }
        }
        guard let text = environment(environmentVariable), !text.isEmpty else { return nil }
        do { return try ShardID(text) } catch { throw UsageError("\(environmentVariable)=\(text): \(error.description)") }
    }

    public var description: String { name }
}
