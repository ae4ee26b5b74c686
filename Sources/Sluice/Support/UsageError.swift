/// A problem with how the command was called (exit 64).
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
