#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceJSON

/// A destination written to stdout as plain NDJSON (`--stdout NAME` or
/// `path: "-"`), and what its reader never got.
///
/// A reader may close the pipe early (`| head`). The events whose records
/// were not (or only partly) written then did not go there: this sink is
/// told where each pending event's records end, so it can say which were
/// lost (`takeLoss`), and the fan-out moves them out of the counts. Once the
/// pipe is closed nothing more is written, and every later event is lost likewise.
final class StdoutSink: OutputSink {
    /// What stdout's reader never got because it closed the pipe first.
    struct Loss: Equatable {
        /// Events whose records were not (or only partly) written.
        var events = 0
        var records = 0
        /// Of those events, the ones no other destination took: lines that went nowhere.
        var lines = 0
    }

    /// An event in the pending buffer: where its records end, how many, and
    /// whether another destination took the event too.
    private struct Mark {
        var end: Int
        var records: Int
        var serial: Int
        var alone = true
    }

    /// Set when stdout's reader went away.
    @exclusivity(unchecked) private(set) var closed = false
    /// Bytes stdout's reader was given.
    @exclusivity(unchecked) private var bytesWritten = 0
    @exclusivity(unchecked) private var marks: [Mark] = []
    @exclusivity(unchecked) private var serial = 0
    /// The last event, when it was lost and counted as going nowhere (so `markLastEventShared` can correct that).
    @exclusivity(unchecked) private var lastLostAloneSerial: Int?
    @exclusivity(unchecked) private var loss = Loss()

    init() {}

    var tracksEvents: Bool { true }

    func eventAppended(end: Int, records: Int) {
        serial += 1
        marks.append(Mark(end: end, records: records, serial: serial))
    }

    /// The event last appended was taken by another destination too: if
    /// stdout's reader never gets it, the line still went somewhere.
    func markLastEventShared() {
        if let last = marks.indices.last, marks[last].serial == serial {
            marks[last].alone = false
        } else if lastLostAloneSerial == serial {
            loss.lines -= 1
            lastLostAloneSerial = nil
        }
    }

    /// What stdout's reader missed since the last call.
    func takeLoss() -> Loss {
        defer { loss = Loss() }
        return loss
    }

    func write(_ buffer: inout ByteBuffer, records: Int, key: String) throws {
        defer { buffer.removeAll() }
        if closed {
            loseEvents(from: 0)
            return
        }
        let result = FileSystem.writeAll(STDOUT_FILENO, buffer.bytes)
        bytesWritten += result.written
        switch result.errno {
        case 0: break
        case EPIPE: closed = true
        default: throw OutputError.writeFailed(path: "<stdout>", errno: result.errno)
        }
        loseEvents(from: result.written)
    }

    var report: CompressionWorker.Report {
        CompressionWorker.Report(fileCount: 0, uncompressedBytes: bytesWritten, compressedBytes: 0, finishedRecords: nil)
    }

    /// Counts the events of the pending buffer from byte `written` on as lost (the reader closed the pipe).
    private func loseEvents(from written: Int) {
        for mark in marks {
            // An event whose records were written in part is lost too: the reader stopped before its end.
            if mark.end > written {
                loss.events += 1
                loss.records += mark.records
                if mark.alone {
                    loss.lines += 1
                    if mark.serial == serial { lastLostAloneSerial = mark.serial }
                }
            }
        }
        marks.removeAll(keepingCapacity: true)
    }
}
