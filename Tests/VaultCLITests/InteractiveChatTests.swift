import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `vault chat ROOM` on a terminal with no message: a prompt loop, one turn (and one commit)
/// per line typed, until an empty line or the end of input. Run on a real pseudo-terminal.
@Suite struct InteractiveChatTests {
    /// Runs `vault chat ROOM` with a pseudo-terminal as its standard input, types `lines`
    /// (each followed by Enter), and returns what it printed.
    func typeIntoChat(_ lines: [String], endWith end: String, in dir: String) throws -> RunResult {
        var master: Int32 = -1
        var slave: Int32 = -1
        try #require(openpty(&master, &slave, nil, nil, nil) == 0, "no pseudo-terminal")
        defer { close(master) }
        let process = vaultProcess(["chat", "독서-모임-발제문"], in: dir)
        let out = Pipe()
        let err = Pipe()
        process.standardInput = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardOutput = out
        process.standardError = err
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // Only the child holds the terminal now: when it exits, reading the master side ends.
        close(slave)
        let typed = Array((lines.map { $0 + "\n" }.joined() + end).utf8)
        #expect(typed.withUnsafeBytes { write(master, $0.baseAddress, $0.count) } == typed.count)
        // What the terminal echoes is read and dropped, so it never fills up.
        let terminal = master
        let drain = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(terminal, &buffer, buffer.count) > 0 {}
        }
        drain.start()
        if exited.wait(timeout: .now() + 30) == .timedOut { process.terminate() }
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus,
            stdout: String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            stderr: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    @Test(arguments: ["/exit\n", "\u{04}"])  // /exit, or Ctrl-D
    func eachLineTypedIsATurn(end: String) throws {
        let vault = try Project.copyOfSampleVault()
        let before = parseRoom(try vault.readText(offlineSampleRoom)).messages.count
        let r = try typeIntoChat(["첫째 질문", "둘째 질문"], endWith: end, in: vault.path)
        expectSuccess(r)
        #expect(
            r.stdout.components(separatedBy: "you> ").count - 1 == 3,
            "a prompt before each line and before the end: \(r.stdout)")
        let messages = parseRoom(try vault.readText(offlineSampleRoom)).messages
        try #require(messages.count == before + 4, "\(messages.map(\.body))")
        #expect(messages[before].body == "첫째 질문" && messages[before + 2].body == "둘째 질문")
        #expect(messages[before + 1].header.role == "assistant" && messages[before + 3].header.role == "assistant")
        let subjects = try git(["log", "--format=%s"], in: vault.path).split(separator: "\n")
        #expect(
            subjects.prefix(2).allSatisfy { $0.hasPrefix("chat: ") && $0.hasSuffix("(+2 messages)") }, "\(subjects)")
        #expect(try git(["status", "--porcelain"], in: vault.path).isEmpty)
    }
}
