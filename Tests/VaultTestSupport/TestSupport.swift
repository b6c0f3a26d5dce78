import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// A folder under the system's temporary folder, removed when the value goes away.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "vault-test") {
        var template = Array((NSTemporaryDirectory() + "/\(label)-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = Vault.absolute(String(cString: made!), from: "/")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` (or bytes) to `relative`, creating folders.
    public func write(_ relative: String, _ bytes: [UInt8]) throws {
        let full = path + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
    }

    public func write(_ relative: String, _ text: String) throws { try write(relative, Array(text.utf8)) }

    public func read(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path + "/" + relative)))
    }

    public func readText(_ relative: String) throws -> String { String(decoding: try read(relative), as: UTF8.self) }

    /// Every file below the folder (relative paths), sorted.
    public func files() -> [String] {
        let e = FileManager.default.enumerator(atPath: path)
        var out: [String] = []
        while let p = e?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + p, isDirectory: &isDir), !isDir.boolValue {
                out.append(p)
            }
        }
        return out.sorted()
    }

    /// Path → bytes of every file: to prove a failed command changed nothing.
    public func snapshot() throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for f in files() where !f.hasPrefix(".vault/") { out[f] = try read(f) }
        return out
    }
}

/// A small, fast, seeded generator (SplitMix64), so property tests are repeatable.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Where the repository is (for `sample-vault/`) and where the built `vault` binary is.
public enum Project {
    public static let root: String = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
                return dir.path
            }
            dir = dir.deletingLastPathComponent()
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// The `vault` executable built next to the test bundle (`VAULT_TEST_EXECUTABLE` names
    /// another, e.g. an older build to measure a script's figures against).
    public static let vaultExecutable: String = {
        if let other = ProcessInfo.processInfo.environment["VAULT_TEST_EXECUTABLE"], !other.isEmpty { return other }
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vault")
                .path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("vault").path,
            Bundle.main.bundleURL.appendingPathComponent("vault").path,
            root + "/.build/debug/vault",
        ]
        for c in candidates where FileManager.default.isExecutableFile(atPath: c) { return c }
        fatalError("the vault executable was not built; looked in \(candidates)")
    }()

    /// Copies `sample-vault/` into a new temporary folder.
    public static func copyOfSampleVault() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory("sample-vault")
        let source = root + "/sample-vault"
        for item in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.copyItem(atPath: source + "/" + item, toPath: dir.path + "/" + item)
        }
        return dir
    }
}

/// The result of running the `vault` binary.
public struct RunResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// The built `vault` with `arguments` in `directory`, not started yet. Its environment is the
/// test's own without the vault and locale variables (`LANG=C.UTF-8`), with a cache folder of
/// the tests' own, plus `environment`.
public func vaultProcess(_ arguments: [String], in directory: String, environment: [String: String] = [:]) -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Project.vaultExecutable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = ProcessInfo.processInfo.environment
    env["VAULT_DIR"] = nil
    env["LC_ALL"] = nil
    env["LC_TIME"] = nil
    env["LANG"] = "C.UTF-8"
    // A test never writes in the person's own cache (a search keeps its listing of the vault's
    // files there), nor in a cache folder another test set for itself: the tests' own, unless
    // `environment` names one.
    env["XDG_CACHE_HOME"] = NSTemporaryDirectory() + "vault-tests-cache"
    for (k, v) in environment { env[k] = v }
    process.environment = env
    return process
}

/// Starts `process` with its output thrown away, kills it with SIGKILL after `delay` seconds
/// (unless it ended before), and waits for it: the kill loops' step.
///
/// - Returns: whether the kill landed (the process died of it, in the middle of its work).
public func runKilled(_ process: Process, after delay: Double) throws -> Bool {
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    usleep(UInt32(delay * 1_000_000))  // sleep: the subject: the kill lands at a random moment of the work
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    return process.terminationReason == .uncaughtSignal
}

/// Runs the built `vault` with `arguments` in `directory`.
///
/// The environment is the test's own minus vault variables, plus `environment`.
@discardableResult
public func runVault(
    _ arguments: [String], in directory: String, environment: [String: String] = [:], stdin: String? = nil
) throws -> RunResult {
    try run(vaultProcess(arguments, in: directory, environment: environment), stdin: stdin)
}

/// Starts `process` (not started yet) with `stdin` (nothing when nil) as its standard input,
/// and returns its status and everything it printed. Both outputs are read to their ends,
/// on two threads, before the process is waited for, and the input is written from a
/// third: large outputs or inputs can never block it on a full pipe.
public func run(_ process: Process, stdin: String? = nil) throws -> RunResult {
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = stdin.map { _ in Pipe() }
    process.standardInput = input ?? FileHandle.nullDevice
    try process.run()
    if let input, let stdin {
        let writer = input.fileHandleForWriting
        let bytes = Data(stdin.utf8)
        DispatchQueue.global().async {
            writer.write(bytes)
            try? writer.close()
        }
    }
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return RunResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

/// Runs the `git` command line in `directory` and returns its standard output;
/// throws when git fails. The independent reader of what vault committed.
@discardableResult
public func git(_ arguments: [String], in directory: String, stdin: String? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git"] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = ProcessInfo.processInfo.environment
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["LC_ALL"] = "C"
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    if stdin != nil { process.standardInput = input }
    try process.run()
    if let stdin {
        let bytes = Data(stdin.utf8)
        DispatchQueue.global().async {
            input.fileHandleForWriting.write(bytes)
            try? input.fileHandleForWriting.close()
        }
    }
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw GitCommandFailure(
            arguments: arguments, status: process.terminationStatus, stderr: String(decoding: errData, as: UTF8.self))
    }
    return String(decoding: data, as: UTF8.self)
}

public struct GitCommandFailure: Error, CustomStringConvertible {
    public var arguments: [String]
    public var status: Int32
    public var stderr: String
    public var description: String { "git \(arguments.joined(separator: " ")) exited \(status): \(stderr)" }
}

/// The first line `handle` gives (without its line feed), read on another thread so that a
/// fixture that never prints it cannot hang the test; nil when none came within `seconds`.
func firstLineOfFixture(of handle: FileHandle, within seconds: Double) -> String? {
    let got = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var line = ""
    Thread {
        var bytes: [UInt8] = []
        while true {
            let data = handle.availableData
            if data.isEmpty { break }
            bytes += data
            if bytes.contains(10) { break }
        }
        line = String(decoding: bytes.prefix { $0 != 10 }, as: UTF8.self)
        got.signal()
    }.start()
    return got.wait(timeout: .now() + seconds) == .success ? line : nil
}

extension ProcessSettings {
    /// The settings of the test process's own environment, as the command line builds them: for
    /// tests that call the libraries with what a front end would hand them.
    public static var ofThisTest: ProcessSettings {
        ProcessSettings(environment: ProcessInfo.processInfo.environment)
    }
}
