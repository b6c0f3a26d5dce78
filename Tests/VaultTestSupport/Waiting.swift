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

/// Waits until every file and folder under `paths` (walked to any depth) is more than `window`
/// whole seconds old by the system clock: older than a racy window (`ListingCache.racyWindow`,
/// 2 s; `FolderStamps.racyWindow`, 3 s; the index's `racyMargin`, 2 s), so a stamp taken now is
/// trusted. The newest of their modification and change times decides (the change time cannot be
/// set back, so the files cannot be aged instead); the wait ends in the first second past it.
public func waitUntilSettled(_ paths: [String], window: Int, seconds: Double = 15) throws {
    var newest = 0
    var pending = paths
    while let path = pending.popLast() {
        var st = stat()
        guard lstat(path, &st) == 0 else { continue }
        newest = max(newest, st.st_mtim.tv_sec, st.st_ctim.tv_sec)
        if (st.st_mode & S_IFMT) == S_IFDIR, let names = try? FileManager.default.contentsOfDirectory(atPath: path) {
            pending += names.map { path + "/" + $0 }
        }
    }
    let settled = Date(timeIntervalSince1970: Double(newest + window + 1))
    guard settled.timeIntervalSinceNow < seconds else {
        throw WaitTimedOut(description: "\(paths) changed at \(newest), later than \(seconds) s from now")
    }
    // Thread.sleep(until:) may wake a little early; the loop ends only once that second has come.
    while Date() < settled { Thread.sleep(until: settled) }
}

/// Polls `condition` until it holds, for at most `seconds`: for an event a test cannot be told
/// of (a file another process writes, a count that changes when a process gets to it).
public func waitUntil(
    _ what: @autoclosure () -> String, seconds: Double = 10, every interval: Double = 0.01,
    _ condition: () throws -> Bool
) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        guard Date() < deadline else { throw WaitTimedOut(description: "\(what()) did not happen in \(seconds) s") }
        usleep(UInt32(interval * 1_000_000))
    }
}

/// `waitForTheFileSystemClock(past:probeIn:)` for every file and folder under `roots` (walked to
/// any depth), the probe kept in `probeFolder`, which should be outside the vault so that it
/// changes no folder there.
public func waitForTheFileSystemClock(pastEverythingIn roots: [String], probeIn probeFolder: String, seconds: Double = 5) throws {
    var paths = roots
    var pending = roots
    while let folder = pending.popLast() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let path = folder + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            paths.append(path)
            if (st.st_mode & S_IFMT) == S_IFDIR { pending.append(path) }
        }
    }
    try waitForTheFileSystemClock(past: paths, probeIn: probeFolder, seconds: seconds)
}
