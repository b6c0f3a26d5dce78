import Foundation

/// Timings of the steps of a command, on standard error, when the front end turns it on
/// (`ProcessHooks.install`: the command line does for `VAULT_TRACE=1`).
///
///     VAULT_TRACE=1 vault chat 부산 "…"
///     vault trace:   3.1 ms  resolved room
///     vault trace:  12.4 ms  tree written
///
/// For finding where time goes on a large vault; costs nothing when off. Secrets (API keys)
/// are never shown (`Secrets.redact`), even in the request headers a turn traces.
public enum Trace {
    /// Set once by `ProcessHooks.install`, before any other thread starts.
    nonisolated(unsafe) public internal(set) static var enabled = false
    nonisolated(unsafe) static var start = DispatchTime.now().uptimeNanoseconds

    @inline(__always)
    public static func mark(_ what: @autoclosure () -> String) {
        guard enabled else { return }
        let origin = start  // first use sets it, so read it before the clock
        let ms = Double(DispatchTime.now().uptimeNanoseconds &- origin) / 1e6
        let line = String(format: "vault trace: %7.1f ms  %@\n", ms, what())
        FileHandle.standardError.write(Data(Secrets.redact(line).utf8))
    }
}
