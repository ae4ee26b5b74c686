// Unsafe code: the memory is an anonymous mmap(2) region handed out as a raw
// pointer, so only the pages written take memory and madvise(2) can give them
// back; an array cannot do either. The mapping lives as long as this object
// (munmap in deinit); its users hold it and stay below `capacity`.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory for an input's buffers, mapped straight from the system: only
/// the pages written take memory, and `release(keeping:)` gives back the
/// pages written past a point (memory freed to malloc stays with the process
/// for its next allocations). Reserving a buffer's largest size costs
/// address space only, so a buffer never moves or grows.
final class PageMemory {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    private let mappedBytes: Int
    /// Bytes from `base` that may have been written since the last release.
    @exclusivity(unchecked) private(set) var touched = 0

    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    static func roundedUp(_ bytes: Int) -> Int { (bytes + pageSize - 1) / pageSize * pageSize }

    init(capacity: Int) {
        self.capacity = capacity
        mappedBytes = max(PageMemory.pageSize, PageMemory.roundedUp(capacity))
        guard let mapped = mmap(nil, mappedBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
              mapped != MAP_FAILED else {
            fatalError("out of address space mapping \(mappedBytes) bytes for an input buffer")
        }
        #if os(Linux)
        // Page by page, so what is resident is what was written (a huge page would make 4 KiB take 2 MiB).
        _ = madvise(mapped, mappedBytes, MADV_NOHUGEPAGE)
        #endif
        base = mapped
    }

    deinit {
        munmap(base, mappedBytes)
    }

    /// Notes that bytes up to `end` were written.
    @inline(__always)
    func wrote(upTo end: Int) {
        if end > touched { touched = end }
    }

    /// Gives back the pages past the first `keep` bytes (rounded up to a
    /// page) that were written; they read as zeros when used again.
    func release(keeping keep: Int) {
        let from = PageMemory.roundedUp(keep)
        let to = PageMemory.roundedUp(touched)
        guard to > from else { return }
        _ = madvise(base + from, to - from, MADV_DONTNEED)
        touched = from
    }
}
