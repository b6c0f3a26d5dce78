import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// The chat prompt's line reader: libedit's readline interface (line editing, history),
/// loaded with `dlopen` when the prompt first opens, so no other command loads it at start-up.
/// Without libedit (libedit2 not installed), or with standard output not a terminal, it prints
/// the prompt and reads a plain line (the terminal's own line editing).
///
/// History is kept in `$XDG_STATE_HOME/vault/history` (else `~/.local/state/vault/history`),
/// never inside a vault; one entry per message sent, a multi-line one as one entry.
///
/// libedit reads its keys through `KeyInput` (`rl_getc_function`), never from the terminal
/// itself, for two things its readline interface has no way to do:
/// - a signal while a line is typed (Ctrl-C) ends the read (`Reading.interrupted`) instead of
///   the process: the prompt reads inside `Termination.deferring`, so the signal is only
///   recorded, and `KeyInput` waits in `poll` on the terminal and on
///   `Termination.wakeUpDescriptor`. libedit's own signal handling is off (`rl_catch_signals`:
///   it re-sends the signal to the whole process group), and libedit restores the terminal as
///   its read returns.
/// - bracketed paste: while a line is read the terminal is asked to mark pastes (`ESC[?2004h`,
///   switched off again as the read returns, whatever ends it), and `KeyInput` takes a paste
///   (`ESC[200~` … `ESC[201~`) whole. Its line breaks become the prompt's own continuation
///   (a `\` at the end of each line), so the paste is one message, sent when Enter is pressed,
///   with its line breaks; tabs and other control characters in it are inserted as text.
final class LineEditor {
    /// What one read gave.
    enum Reading: Equatable {
        /// A line typed (or pasted), without its line end.
        case line(String)
        /// The end of input: Ctrl-D on an empty line, or the terminal closed.
        case end
        /// A signal arrived while the line was typed (Ctrl-C, SIGTERM, SIGHUP): the line is
        /// dropped; `Termination` says which.
        case interrupted
    }

    private typealias ReadLine = @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    private typealias TakesPath = @convention(c) (UnsafePointer<CChar>?) -> Int32
    private typealias TakesInt = @convention(c) (Int32) -> Void
    typealias GetCharacter = @convention(c) (UnsafeMutablePointer<FILE>?) -> Int32

    /// libedit's `rl_prep_terminal`, for its `rl_pre_input_hook` (a C callback, found here).
    nonisolated(unsafe) private static var prepareTerminal: TakesInt?
    private var readline: ReadLine?
    /// libedit's `rl_forced_update_display`: draws the prompt and the line typed so far again.
    private var forcedUpdate: (@convention(c) () -> Int32)?
    private var addHistory: TakesPath?
    private var writeHistory: TakesPath?
    let historyPath: String?
    private let input = KeyInput(descriptor: 0)

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        historyPath = LineEditor.historyPath(environment)
        KeyInput.current = input
        // Both ends on the terminal: libedit draws the line where it is typed.
        guard Terminal.stdoutIsTerminal, let library = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL) else { return }
        func symbol<T>(_ name: String, _ type: T.Type) -> T? {
            dlsym(library, name).map { unsafeBitCast($0, to: type) }
        }
        guard let readline = symbol("readline", ReadLine.self),
            let catchSignals = dlsym(library, "rl_catch_signals"),
            let getCharacter = dlsym(library, "rl_getc_function")
        else { return }
        // libedit turns what is typed into characters and back with the C library's multibyte
        // functions: in the "C" locale every program starts in, Hangul would be dropped. Text is
        // UTF-8 everywhere in vault, so UTF-8 it is, in the person's locale when theirs is.
        if setlocale(LC_CTYPE, "") == nil || String(cString: nl_langinfo(nl_item(CODESET))) != "UTF-8" {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
        // Both are read as libedit starts (`rl_initialize`, from `using_history` below).
        catchSignals.assumingMemoryBound(to: Int32.self).pointee = 0
        getCharacter.assumingMemoryBound(to: GetCharacter?.self).pointee = { _ in KeyInput.current?.next() ?? -1 }
        // The terminal is made ready for editing before the prompt is drawn, not after, as
        // libedit would: keys typed as the prompt appears (Ctrl-D) are then read as keys, not
        // taken by the terminal's line discipline (where Ctrl-D would become a NUL byte).
        if let prepare = symbol("rl_prep_terminal", TakesInt.self), let hook = dlsym(library, "rl_pre_input_hook") {
            LineEditor.prepareTerminal = prepare
            hook.assumingMemoryBound(to: (@convention(c) () -> Int32)?.self).pointee = {
                LineEditor.prepareTerminal?(1)
                return 0
            }
        }
        self.readline = readline
        forcedUpdate = symbol("rl_forced_update_display", (@convention(c) () -> Int32).self)
        addHistory = symbol("add_history", TakesPath.self)
        writeHistory = symbol("write_history", TakesPath.self)
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

    /// Bracketed paste on, and off again.
    static let pasteOn = "\u{1B}[?2004h"
    static let pasteOff = "\u{1B}[?2004l"

    /// One line typed after `prompt`. Call it inside `Termination.deferring`, so a signal ends
    /// the read rather than the process.
    func line(_ prompt: String) -> Reading {
        input.startLine()
        guard let readline else { return plainLine(prompt) }
        Terminal.write(LineEditor.pasteOn, to: 1)
        defer { Terminal.write(LineEditor.pasteOff, to: 1) }
        fflush(nil)
        guard let typed = readline(prompt) else { return input.interrupted ? .interrupted : .end }
        defer { free(typed) }
        return .line(String(cString: typed))
    }

    /// Something to show while a line is typed (`ready`, when `descriptor` is readable: messages
    /// that came in): shown above the line, which is drawn again below it as it was.
    func whileTyping(_ descriptor: Int32, _ show: @escaping () -> String) {
        input.extra = (descriptor, { [weak self] in
            let text = show()
            guard !text.isEmpty else { return }
            // The line being typed is cleared, the text written, and the line drawn again.
            Terminal.write("\r\u{1B}[2K" + text, to: 1)
            if let update = self?.forcedUpdate { _ = update() } else if let prompt = self?.plainPrompt {
                Terminal.stream(prompt)
            }
        })
    }

    /// The prompt of a plain read, drawn again after text shown while a line is typed.
    private var plainPrompt: String?

    /// A line without libedit: the terminal's own editing (canonical mode) delivers it whole.
    private func plainLine(_ prompt: String) -> Reading {
        plainPrompt = prompt
        Terminal.stream(prompt)
        var bytes: [UInt8] = []
        while let byte = input.nextByte() {
            if byte == UInt8(ascii: "\n") { return .line(String(decoding: bytes, as: UTF8.self)) }
            bytes.append(byte)
        }
        if input.interrupted { return .interrupted }
        return bytes.isEmpty ? .end : .line(String(decoding: bytes, as: UTF8.self))
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

/// The keys libedit reads (`rl_getc_function`): characters from the terminal, one Unicode
/// scalar at a time, with a bracketed paste taken whole and handed on as typed text, and a
/// recorded signal ending the read (`LineEditor`).
///
/// It runs on the thread that reads the line, inside libedit, called from C: `current` is how
/// the callback finds it.
final class KeyInput {
    /// The one in use: set by `LineEditor`, read by the C callback on the same thread.
    nonisolated(unsafe) static var current: KeyInput?

    /// ESC, the start of a paste after it, and its end.
    static let escape: UInt32 = 0x1B
    static let pasteStart = Array("[200~".unicodeScalars.map(\.value))
    static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    private let descriptor: Int32
    /// Bytes read from the terminal and not handed on yet.
    private var buffer: [UInt8] = []
    private var position = 0
    /// Characters to hand on before reading more: what followed an ESC that was not a paste,
    /// and a paste's text.
    private var queued: [UInt32] = []
    private var queuedPosition = 0
    /// Whether a signal ended this line's read.
    private(set) var interrupted = false
    /// A descriptor also waited on, and what to do when it is readable (`LineEditor.whileTyping`).
    var extra: (descriptor: Int32, ready: () -> Void)?

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// A new line: a signal that ended the last one is dealt with; a paste's rest goes on.
    func startLine() {
        interrupted = false
    }

    /// The next character for libedit (a Unicode scalar's value), -1 at the end of input or
    /// when a signal arrived (then `interrupted`).
    func next() -> Int32 {
        if let queuedCharacter = dequeue() { return Int32(bitPattern: queuedCharacter) }
        guard let scalar = nextScalar() else { return -1 }
        guard scalar == KeyInput.escape else { return Int32(bitPattern: scalar) }
        // An escape sequence: a paste's start, or a key (an arrow) libedit reads on.
        var seen: [UInt32] = []
        for expected in KeyInput.pasteStart {
            guard let following = nextScalar() else { return -1 }
            seen.append(following)
            if following != expected {
                enqueue(seen)
                return Int32(bitPattern: scalar)
            }
        }
        guard let paste = readPaste() else { return -1 }
        enqueue(KeyInput.typing(paste))
        return dequeue().map { Int32(bitPattern: $0) } ?? next()
    }

    /// The keys that type `paste` at the prompt: each line break as `\` and Enter (the prompt's
    /// continuation), each other control character after Ctrl-V (libedit's quoted insert), so
    /// that a tab is text, not completion. Line breaks at the end are left out: Enter sends.
    static func typing(_ paste: String) -> [UInt32] {
        var text = paste.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        while text.hasSuffix("\n") { text.removeLast() }
        var keys: [UInt32] = []
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: keys += [UInt32(UInt8(ascii: "\\")), 0x0A]
            case 0..<0x20, 0x7F: keys += [0x16, scalar.value]
            default: keys.append(scalar.value)
            }
        }
        return keys
    }

    /// A paste's text up to its end marker; nil when a signal or the end of input came first.
    private func readPaste() -> String? {
        var bytes: [UInt8] = []
        let end = KeyInput.pasteEnd
        while true {
            guard let byte = nextByte() else { return nil }
            bytes.append(byte)
            if byte == end[end.count - 1], bytes.count >= end.count, Array(bytes.suffix(end.count)) == end {
                return String(decoding: bytes.dropLast(end.count), as: UTF8.self)
            }
        }
    }

    private func enqueue(_ characters: [UInt32]) {
        queued = Array(queued[queuedPosition...]) + characters
        queuedPosition = 0
    }

    private func dequeue() -> UInt32? {
        guard queuedPosition < queued.count else { return nil }
        defer { queuedPosition += 1 }
        return queued[queuedPosition]
    }

    /// The next Unicode scalar from the terminal (U+FFFD for bytes that are not UTF-8).
    private func nextScalar() -> UInt32? {
        guard let first = nextByte() else { return nil }
        let length: Int
        switch first {
        case 0..<0x80: return UInt32(first)
        case 0xC2..<0xE0: length = 2
        case 0xE0..<0xF0: length = 3
        case 0xF0..<0xF5: length = 4
        default: return 0xFFFD
        }
        var bytes = [first]
        while bytes.count < length {
            guard let byte = nextByte() else { return nil }
            guard byte & 0xC0 == 0x80 else {
                // Not a continuation: it starts the next character.
                position -= 1
                return 0xFFFD
            }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self).unicodeScalars.first?.value ?? 0xFFFD
    }

    /// The next byte from the terminal; nil at the end of input, or when a signal was recorded
    /// (then `interrupted`, and the rest of what was typed and queued is dropped).
    func nextByte() -> UInt8? {
        if interrupted { return nil }
        if position < buffer.count {
            defer { position += 1 }
            return buffer[position]
        }
        while true {
            if Termination.requested { return interrupt() }
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            if let wake = Termination.wakeUpDescriptor() {
                fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
            }
            let wakes = fds.count
            if let extra { fds.append(pollfd(fd: extra.descriptor, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if wakes > 1 && fds[1].revents != 0 { return interrupt() }
            if let extra, fds.count > wakes, fds[wakes].revents != 0 {
                extra.ready()
                continue
            }
            guard fds[0].revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return nil }
            buffer = Array(chunk[0..<count])
            position = 1
            return buffer[0]
        }
    }

    private func interrupt() -> UInt8? {
        interrupted = true
        buffer = []
        position = 0
        queued = []
        queuedPosition = 0
        return nil
    }
}
