/// How the matches of one string's detectors share its bytes: an earlier
/// detector keeps the bytes it claimed, and a later one still gets the bytes
/// only it matched (dropping the whole later match left them as they were: a
/// pattern over `ID 42 jane@x.com` lost `ID 42 ` to the email).
///
/// Each detector's matches arrive in text order and are settled against the
/// claimed ones in one merge of two sorted lists, so a string with 100,000
/// matches costs a few passes over them, not a pass over the earlier matches
/// for each new one (quadratic: minutes for 1 MiB of `a::1 `).
struct MatchClaims {
    /// One detector's matches, waiting to be settled.
    private var pending: [PIIMatch] = []
    /// The parts of `pending` no claimed match covers.
    private var pieces: [PIIMatch] = []
    private var merged: [PIIMatch] = []
    /// Matches read while settling, over every call (the linear bound is tested on it).
    private(set) var steps = 0

    /// Takes one match of the detector being run (ordered by start after the previous ones, as detectors report them).
    mutating func offer(_ match: PIIMatch) {
        pending.append(match)
    }

    /// Adds the offered matches, less what `matches[first...]` (sorted, none
    /// overlapping) claims, to those; they stay sorted and apart.
    @inline(__always)
    mutating func settle(into matches: inout [PIIMatch], from first: Int) {
        // Most detectors find nothing in most strings: no call then.
        if !pending.isEmpty { settlePending(into: &matches, from: first) }
    }

    private mutating func settlePending(into matches: inout [PIIMatch], from first: Int) {
        defer { pending.removeAll(keepingCapacity: true) }
        if !MatchClaims.isSorted(pending) { pending.sort { $0.start < $1.start } }
        pieces.removeAll(keepingCapacity: true)
        steps += pending.count + matches.count - first
        var claimed = first
        var covered = 0  // bytes before this are claimed or already given to an earlier offer
        for match in pending {
            var start = Swift.max(match.start, covered)
            while start < match.end {
                while claimed < matches.count && matches[claimed].end <= start { claimed += 1 }
                guard claimed < matches.count, matches[claimed].start < match.end else {
                    pieces.append(PIIMatch(start: start, end: match.end, detector: match.detector))
                    break
                }
                if matches[claimed].start > start {
                    pieces.append(PIIMatch(start: start, end: matches[claimed].start, detector: match.detector))
                }
                start = matches[claimed].end
            }
            covered = Swift.max(covered, match.end)
        }
        guard !pieces.isEmpty else { return }
        if first == matches.count {
            matches.append(contentsOf: pieces)
            return
        }
        merged.removeAll(keepingCapacity: true)
        var old = first, new = 0
        steps += matches.count - first + pieces.count
        while old < matches.count || new < pieces.count {
            if new == pieces.count || (old < matches.count && matches[old].start < pieces[new].start) {
                merged.append(matches[old])
                old += 1
            } else {
                merged.append(pieces[new])
                new += 1
            }
        }
        matches.removeSubrange(first...)
        matches.append(contentsOf: merged)
    }

    private static func isSorted(_ list: [PIIMatch]) -> Bool {
        var index = 1
        while index < list.count {
            if list[index].start < list[index - 1].start { return false }
            index += 1
        }
        return true
    }
}
