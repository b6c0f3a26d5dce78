import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

// Two ways of running the built `vault` that the network tests need: with its standard error
// on a real pseudo-terminal (what a person at a terminal sees), and under
// Tests/Fixtures/peak_rss.py, which reports the most memory the process held.

/// The C library's pseudo-terminal calls (`posix_openpt`, `grantpt`, `unlockpt`, `ptsname`), which
/// Swift's Glibc module does not declare; looked up in the C library itself.
private enum Terminal {
    typealias FD = @convention(c) (Int32) -> Int32
    typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) static let library = dlopen(nil, RTLD_NOW)
    static let openpt = unsafeBitCast(dlsym(library, "posix_openpt"), to: FD.self)
    static let grantpt = unsafeBitCast(dlsym(library, "grantpt"), to: FD.self)
    static let unlockpt = unsafeBitCast(dlsym(library, "unlockpt"), to: FD.self)
    static let ptsname = unsafeBitCast(dlsym(library, "ptsname"), to: Name.self)
}

/// `vault` running with its standard error on a pseudo-terminal (`isatty(2)` is true, as for a
/// person at a terminal) and its standard output on a pipe.
final class VaultOnTerminal: @unchecked Sendable {
    let process: Process
    private let lock = NSLock()
    private var screen = Data()
    private var out = Data()
    private let exited = DispatchSemaphore(value: 0)
    private let readers = DispatchGroup()

    init(_ arguments: [String], vault: ChatVault, environment extra: [String: String] = [:]) throws {
        var environment = vault.environment
        for (k, v) in extra { environment[k] = v }
        process = vaultProcess(arguments, in: vault.path, environment: environment)
        let master = Terminal.openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, Terminal.grantpt(master) == 0, Terminal.unlockpt(master) == 0,
            let name = Terminal.ptsname(master)
        else {
            throw FixtureError("cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let terminal = open(name, O_RDWR | O_NOCTTY)
        guard terminal >= 0 else { throw FixtureError("cannot open \(String(cString: name))") }
        let outPipe = Pipe()
        let input = Pipe()
        process.standardError = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
        process.standardOutput = outPipe
        process.standardInput = input
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
        close(terminal)  // the child has its own copy: the terminal ends when vault exits
        try input.fileHandleForWriting.close()
        readers.enter()
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(master, &buffer, buffer.count)
                if n <= 0 { break }  // EIO once no process holds the terminal any more
                lock.withLock { screen.append(contentsOf: buffer[0..<n]) }
            }
            close(master)
            readers.leave()
        }.start()
        readers.enter()
        Thread { [self] in
            let handle = outPipe.fileHandleForReading
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lock.withLock { out += data }
            }
            readers.leave()
        }.start()
    }

    /// Everything written to the terminal so far (the terminal turns `\n` into `\r\n`).
    var terminalText: String { lock.withLock { String(decoding: screen, as: UTF8.self) } }

    /// Waits until the terminal shows `text`.
    func waitForTerminal(_ text: String, seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !terminalText.contains(text) {
            guard Date() < deadline, process.isRunning else {
                throw FixtureError(
                    "the terminal did not show \(text.debugDescription); it shows \(terminalText.debugDescription)")
            }
            usleep(10_000)  // sleep: poll interval: the terminal showing the text, with a deadline
        }
    }

    /// Waits for the exit (killing vault after `seconds`): the status and standard output.
    func wait(seconds: Double) throws -> (status: Int32, stdout: String) {
        if exited.wait(timeout: .now() + seconds) == .timedOut {
            process.terminate()
            _ = exited.wait(timeout: .now() + 5)
            throw FixtureError("vault did not exit within \(seconds) s; terminal: \(terminalText.debugDescription)")
        }
        process.waitUntilExit()
        guard readers.wait(timeout: .now() + 30) == .success else {
            throw FixtureError("the output of vault did not end")
        }
        return lock.withLock { (process.terminationStatus, String(decoding: out, as: UTF8.self)) }
    }
}

/// Runs the built `vault` to its end under Tests/Fixtures/peak_rss.py: what it printed, and the
/// most memory it held (its peak resident set size, in bytes).
func runVaultMeasuringMemory(
    _ arguments: [String], vault: ChatVault, environment extra: [String: String] = [:]
) throws -> (run: RunResult, peakBytes: Int) {
    var environment = vault.environment
    for (k, v) in extra { environment[k] = v }
    let process = vaultProcess(arguments, in: vault.path, environment: environment)
    let report = TemporaryDirectory("peak-rss")
    let file = report.path + "/peak"
    process.arguments =
        [Project.root + "/Tests/Fixtures/peak_rss.py", file, Project.vaultExecutable] + (process.arguments ?? [])
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    let result = try run(process)
    let text = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    guard let kib = Int(text) else { throw FixtureError("peak_rss.py wrote \(text.debugDescription)") }
    return (result, kib * 1024)
}
