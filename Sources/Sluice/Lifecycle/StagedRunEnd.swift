import Logging

/// The end of a run with `--staging`, in the order that keeps an attempt
/// all or nothing: an attempt that does not end with exit 0 leaves nothing
/// under `--out` and the `--state` file as it was, so running it again is
/// exact; one that does leaves every file in place and the state saved.
///
/// 1. A run that failed, was stopped (SIGTERM, SIGINT) or rejected lines with
///    `--strict` moves nothing: its files stay under the staging directory,
///    and the state the run wrote beside its file is thrown away.
/// 2. (`run` has written the state beside its file, not over it yet.)
/// 3. The files move into place (`StagingArea.publish`: nothing moves when a
///    name is taken; a failed move undoes the others).
/// 4. `--stats` and `--metrics` are written; if they cannot be, the files
///    move back and the state is thrown away (exit 73).
/// 5. The state is put over its file; if that fails, the files move back (exit 74).
/// 6. The staging directory, empty now, is removed.
enum StagedRunEnd {
    /// - Parameter statePath: `--state`, named when it is left as it was.
    static func finish(status: Int32, summary: inout RunSummary, staging: StagingArea, runner: PipelineRunner, statePath: String?,
                       control: RunControl, logger: Logger, writeReports: (RunSummary, Int32) -> Int32) -> Int32 {
        var status = status
        // A stop that came after the input ended still stops the files from moving.
        if status == ExitStatus.ok, let stop = control.stopRequested { status = stop.exitStatus }
        guard status == ExitStatus.ok else {
            let state = statePath.map { "; --state \($0) is left as it was" } ?? ""
            runner.discardState()
            logger.info("--staging: nothing was moved into place (exit \(status)); this attempt's files stay under \(staging.directory)\(state)")
            return writeReports(summary, status)
        }
        let publication: StagingArea.Publication
        let moving = Monotonic.nanoseconds()
        do {
            publication = try staging.publish()
        } catch {
            runner.discardState()
            return failed(error, status: error.exitStatus, summary: &summary, logger: logger, writeReports: writeReports)
        }
        let milliseconds = Double(Monotonic.nanoseconds() - moving) / 1e6
        summary.filesRoot = staging.outDirectory
        let reported = writeReports(summary, ExitStatus.ok)
        if reported != ExitStatus.ok {
            staging.rollBack(publication)
            runner.discardState()
            logger.error("--staging: the files were moved back under \(staging.directory), as the reports could not be written")
            summary.filesRoot = staging.directory
            return reported
        }
        if runner.holdsUnsavedState {
            do {
                try runner.commitState()
            } catch {
                staging.rollBack(publication)
                summary.filesRoot = staging.directory
                logger.error("--staging: the files were moved back under \(staging.directory), as the state could not be saved")
                return failed(error, status: ExitStatus.forStateError(error), summary: &summary, logger: logger,
                              writeReports: writeReports)
            }
        }
        staging.removeEmptyDirectory()
        let files = "\(publication.count) file\(publication.count == 1 ? "" : "s")"
        logger.info("--staging: moved \(files) into place under \(staging.outDirectory) in \(format3(milliseconds)) ms")
        return ExitStatus.ok
    }

    private static func failed(_ error: Error, status: Int32, summary: inout RunSummary, logger: Logger,
                               writeReports: (RunSummary, Int32) -> Int32) -> Int32 {
        logger.error("\(error)")
        summary.error = "\(error)"
        return writeReports(summary, status)
    }
}
