/// Exit statuses of every command (sysexits, and `sluice test`'s 1), as
/// docs/operations.md lists them: the one set `run`, `send`, `test`,
/// `validate`, `recover`, `shard-of` and `stats merge` exit with.
public enum ExitStatus {
    public static let ok: Int32 = 0
    /// `sluice test`: a case failed (the test runners' convention, not a sysexit).
    public static let testFailure: Int32 = 1
    public static let usage: Int32 = 64
    public static let dataError: Int32 = 65
    public static let noInput: Int32 = 66
    /// A provider's API is unavailable (`send`: it kept answering 5xx, or could not be reached).
    public static let unavailable: Int32 = 69
    public static let cannotCreate: Int32 = 73
    public static let ioError: Int32 = 74
    /// Try again later (EX_TEMPFAIL): `send` ran out of retry time.
    public static let tryAgain: Int32 = 75
    /// The drain after a signal did not finish (deadline, second SIGINT): `.part` files are left.
    public static let shutdownIncomplete: Int32 = 75
    /// The `--state` file is locked by another run (EX_TEMPFAIL, as `shutdownIncomplete`: try again later).
    public static let stateInUse: Int32 = 75
    /// A provider refused the credentials (EX_NOPERM).
    public static let noPermission: Int32 = 77
    public static let config: Int32 = 78
}
