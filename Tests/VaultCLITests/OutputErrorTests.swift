import Foundation
import Testing
import VaultTestSupport

/// Output that cannot be written: a full disk (`> /dev/full`) is one line and status 1, a reader
/// that went away (`| head`) is no error; neither ends vault with a trap or a signal, and
/// neither changes the vault.
@Suite struct OutputErrorTests {
    @Test(arguments: [
        ["show", "독서-모임-발제문"], ["show", "--raw", "독서-모임-발제문"], ["rooms"], ["diary", "list"],
        ["export", "독서-모임-발제문"],
    ])
    func outputToAFullDiskIsOneLineAndStatusOne(arguments: [String]) throws {
        let vault = try Project.copyOfSampleVault()
        let before = try vault.snapshot()
        let process = vaultProcess(arguments, in: vault.path)
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0, "cannot open /dev/full")
        process.standardOutput = FileHandle(fileDescriptor: full, closeOnDealloc: true)
        let err = Pipe()
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(
            process.terminationReason == .exit,
            "vault died of signal \(process.terminationStatus): \(stderr.prefix(300))")
        #expect(process.terminationStatus == 1, "\(stderr)")
        #expect(
            stderr == "vault: error: cannot write to standard output: No space left on device "
                + "(the vault itself is not affected)\n")
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func aReaderThatGoesAwayIsNoError() throws {
        let vault = try Project.copyOfSampleVault()
        // A room long enough not to fit a pipe's buffer: vault is still writing when the reader leaves.
        let long = String(repeating: "긴 줄입니다. ", count: 20_000)
        try vault.write("rooms/긴-방.md", "---\ntitle: 긴 방\n---\n\n" + long + "\n")
        let process = vaultProcess(["show", "--raw", "긴-방"], in: vault.path)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        _ = out.fileHandleForReading.readData(ofLength: 10)
        try out.fileHandleForReading.close()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "vault died of signal \(process.terminationStatus)")
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(stderr.isEmpty, "\(stderr)")
    }
}
