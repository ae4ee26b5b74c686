import Sluice

extension SendFailure {
    /// The exit status `sluice send` ends with for this failure (docs/sending.md lists them).
    var exitCode: Int32 {
        switch self {
        case .unauthorized: return ExitStatus.noPermission
        case .tryAgain: return ExitStatus.tryAgain
        case .unavailable: return ExitStatus.unavailable
        case .io: return ExitStatus.ioError
        case .data: return ExitStatus.dataError
        case .configuration: return ExitStatus.config
        }
    }
}
