import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The chat prompt's line reader: libedit's readline interface (line editing, history),
/// loaded with `dlopen` when the prompt first opens, so no other command loads it at start-up.
/// Without libedit (libedit2 not installed), or with standard output not a terminal, it prints
/// the prompt and reads a plain line.
///
/// History is kept in `$XDG_STATE_HOME/vault/history` (else `~/.local/state/vault/history`),
/// never inside a vault; one entry per message sent, a multi-line one as one entry.
final class LineEditor {
    private typealias ReadLine = @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    private typealias TakesPath = @convention(c) (UnsafePointer<CChar>?) -> Int32
    private typealias TakesInt = @convention(c) (Int32) -> Void

    private var readline: ReadLine?
    private var addHistory: TakesPath?
    private var writeHistory: TakesPath?
    let historyPath: String?

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        historyPath = LineEditor.historyPath(environment)
        // Both ends on the terminal: libedit draws the line where it is typed.
        guard Terminal.stdoutIsTerminal, let library = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL) else { return }
        func symbol<T>(_ name: String, _ type: T.Type) -> T? {
            dlsym(library, name).map { unsafeBitCast($0, to: type) }
        }
        readline = symbol("readline", ReadLine.self)
        addHistory = symbol("add_history", TakesPath.self)
        writeHistory = symbol("write_history", TakesPath.self)
        guard readline != nil else { return }
        symbol("using_history", (@convention(c) () -> Void).self)?()
        symbol("stifle_history", TakesInt.self)?(1000)
        if let historyPath, let read = symbol("read_history", TakesPath.self) { _ = read(historyPath) }
    }

    /// Where the history is kept: nil when neither `XDG_STATE_HOME` nor `HOME` is set.
    static func historyPath(_ environment: [String: String]) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/vault/history" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.local/state/vault/history"
    }

    /// One line typed after `prompt`, without its line end; nil at the end of input (Ctrl-D).
    func line(_ prompt: String) -> String? {
        guard let readline else {
            Terminal.stream(prompt)
            return readLine()
        }
        fflush(nil)
        guard let typed = readline(prompt) else { return nil }
        defer { free(typed) }
        return String(cString: typed)
    }

    /// Adds an entry to the history and saves the history file (its folder made if missing).
    func remember(_ entry: String) {
        guard let addHistory, !entry.isEmpty else { return }
        _ = addHistory(entry)
        guard let historyPath, let writeHistory else { return }
        let folder = (historyPath as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = writeHistory(historyPath)
    }
}
