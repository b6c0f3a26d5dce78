import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A wait for an event that did not come in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var description: String
}

/// Waits until the file system's clock, as it stamps files, has moved past the change times of
/// `paths`: a change made afterwards gets a time none of them has.
///
/// File times come from a clock coarser than the system's (a kernel tick, a few milliseconds on
/// ext4), so the tick is seen where it happens: a probe file in `folder` (on the same file
/// system) is touched until its change time is later than theirs.
public func waitForTheFileSystemClock(past paths: [String], probeIn folder: String, seconds: Double = 5) throws {
    func changeTime(_ path: String) -> (Int, Int)? {
        var st = stat()
        return stat(path, &st) == 0 ? (st.st_ctim.tv_sec, st.st_ctim.tv_nsec) : nil
    }
    guard let newest = paths.compactMap(changeTime).max(by: <) else { return }
    let probe = folder + "/.file-system-clock"
    let fd = open(probe, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw WaitTimedOut(description: "cannot make \(probe): errno \(errno)") }
    close(fd)
    defer { unlink(probe) }
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        // Touching sets the change time to the file system's clock now.
        guard utimensat(AT_FDCWD, probe, nil, 0) == 0 else {
            throw WaitTimedOut(description: "cannot touch \(probe): errno \(errno)")
        }
        if let now = changeTime(probe), now > newest { return }
        guard Date() < deadline else {
            throw WaitTimedOut(description: "the file system's clock did not move past \(newest) in \(seconds) s")
        }
        sched_yield()
    }
}

/// Waits until the system clock is in a later whole second than `date`: a time written with
/// whole seconds (`2026-11-21T09:30:07+09:00`) then differs from one written at `date`.
public func waitForTheNextSecond(after date: Date) {
    let next = Date(timeIntervalSince1970: (date.timeIntervalSince1970 + 1).rounded(.down))
    // Thread.sleep(until:) may wake a little early; the loop ends only once the second is past.
    while Date() < next { Thread.sleep(until: next) }
}
