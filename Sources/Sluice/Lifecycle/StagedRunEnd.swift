import Logging

/// What `sluice serve` does around the moves of a staged epoch: `prepare`
/// writes and fsyncs its commit record (the staged files, relative to the
/// staging directory, and the state's temporary file) before the first move,
/// so that from then on the epoch is rolled forward, never back; `abandon`
/// removes that record when the moves were undone (a name taken, a failed
/// rename) and the epoch is to be done again from its journal.
package struct StagedCommitHooks {
    package var prepare: (_ files: [String], _ stateTemporary: String?) throws -> Void
    package var abandon: () -> Void

    package init(prepare: @escaping ([String], String?) throws -> Void, abandon: @escaping () -> Void) {
        self.prepare = prepare
        self.abandon = abandon
    }
}

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
                       control: RunControl, logger: Logger, commit: StagedCommitHooks? = nil,
                       writeReports: (RunSummary, Int32) -> Int32) -> Int32 {
        var status = status
        // A stop that came after the input ended still stops the files from moving.
        if status == ExitStatus.ok, let stop = control.stopRequested { status = stop.exitStatus }
        guard status == ExitStatus.ok else {
            let state = statePath.map { "; --state \($0) is left as it was" } ?? ""
            runner.discardState()
            logger.info("--staging: nothing was moved into place (exit \(status)); this attempt's files stay under \(staging.directory)\(state)")
            return writeReports(summary, status)
        }
        if let commit {
            return finishCommitted(summary: &summary, staging: staging, runner: runner, logger: logger, commit: commit,
                                   writeReports: writeReports)
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

    /// `sluice serve`'s epoch end: the commit record first (`commit.prepare`),
    /// then the moves and the state; past the record nothing is moved back
    /// (a restart rolls the record forward), so a failure after it is an error
    /// (74) that leaves the record, and reports that cannot be written only say so.
    private static func finishCommitted(summary: inout RunSummary, staging: StagingArea, runner: PipelineRunner, logger: Logger,
                                        commit: StagedCommitHooks, writeReports: (RunSummary, Int32) -> Int32) -> Int32 {
        do {
            try commit.prepare(staging.stagedFiles, runner.pendingStatePath)
        } catch {
            runner.discardState()
            return failed(error, status: ExitStatus.ioError, summary: &summary, logger: logger, writeReports: writeReports)
        }
        let publication: StagingArea.Publication
        do {
            publication = try staging.publish()
        } catch {
            // Nothing moved (publish undoes its own moves): the epoch is done again from the journal.
            commit.abandon()
            runner.discardState()
            return failed(error, status: error.exitStatus, summary: &summary, logger: logger, writeReports: writeReports)
        }
        summary.filesRoot = staging.outDirectory
        if runner.holdsUnsavedState {
            do {
                try runner.commitState()
            } catch {
                return failed(error, status: ExitStatus.ioError, summary: &summary, logger: logger, writeReports: writeReports)
            }
        }
        staging.removeEmptyDirectory()
        let reported = writeReports(summary, ExitStatus.ok)
        if reported != ExitStatus.ok {
            logger.error("the epoch's files are in place and its state saved, but --stats or --metrics could not be written")
        }
        logger.info("epoch committed: \(publication.count) file\(publication.count == 1 ? "" : "s") moved into place under \(staging.outDirectory)")
        return ExitStatus.ok
    }

    private static func failed(_ error: Error, status: Int32, summary: inout RunSummary, logger: Logger,
                               writeReports: (RunSummary, Int32) -> Int32) -> Int32 {
        logger.error("\(error)")
        summary.error = "\(error)"
        return writeReports(summary, status)
    }
}
