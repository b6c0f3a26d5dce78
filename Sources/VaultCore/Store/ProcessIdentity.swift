import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A process as the kernel knows it: its id and the moment it started (clock ticks after the
/// machine booted, from `/proc/<pid>/stat`).
///
/// A record a vault process leaves (a git lock it holds, the paths it has not committed yet)
/// names it by both, so a later vault can prove the record's process is gone: no process has
/// that id now, or the one that has it started at another moment (ids are reused).
///
///     let me = ProcessIdentity.current            // pid 4242, started at tick 981230
///     ProcessIdentity(tag: me.tag)?.isRunning     // true while this process lives
package struct ProcessIdentity: Sendable, Hashable {
    package var pid: Int32
    /// Clock ticks after boot when the process started; 0 where `/proc` cannot tell.
    package var start: UInt64

    package init(pid: Int32, start: UInt64) {
        self.pid = pid
        self.start = start
    }

    /// This process.
    package static let current: ProcessIdentity = {
        let pid = getpid()
        return ProcessIdentity(pid: pid, start: startTime(of: pid) ?? 0)
    }()

    /// `<pid>-<start>`, for file names.
    package var tag: String { "\(pid)-\(start)" }

    /// The identity a `tag` names.
    package init?(tag: some StringProtocol) {
        let parts = tag.split(separator: "-")
        guard parts.count == 2, let pid = Int32(parts[0]), pid > 0, let start = UInt64(parts[1]) else { return nil }
        self.init(pid: pid, start: start)
    }

    /// Whether this process is still running (a zombie, dead but not yet waited for, is not).
    /// Without `/proc` (start 0), any process with the id counts as running: nothing is proven.
    package var isRunning: Bool {
        guard start != 0 else { return kill(pid, 0) == 0 || errno == EPERM }
        return ProcessIdentity.startTime(of: pid) == start
    }

    /// Field 22 of `/proc/<pid>/stat` (the start time), nil when there is no such process or it
    /// is a zombie.
    static func startTime(of pid: Int32) -> UInt64? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        // "pid (name) state ppid …": the name may hold spaces and parentheses; fields follow the last ')'.
        let text = buffer[0..<n]
        guard let close = text.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = text[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19, let state = fields[0].first, state != UInt8(ascii: "Z"), state != UInt8(ascii: "X")
        else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }
}

/// Points where a test can have the process killed (`VAULT_CRASH_AT=<name>`, given by the front
/// end: `ProcessSettings.crashPoint`): the process ends there through the front end's `die`
/// (the command line's sends itself SIGKILL), exactly as a kill at that moment would leave
/// things. Tests only.
package enum CrashPoint {
    /// Whether the front end chose the point `name`.
    static func isChosen(_ name: String) -> Bool { ProcessHooks.settings.crashPoint == name }

    /// Ends the process when the front end chose this point.
    package static func reach(_ name: String) {
        guard isChosen(name) else { return }
        die()
    }

    /// Ends the process as the front end said (`ProcessHooks.install`'s `die`).
    static func die() -> Never { ProcessHooks.die() }
}
