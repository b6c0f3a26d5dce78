import Foundation
import Testing
import VaultTestSupport

/// libgit2 is loaded when a command first needs it (CGit2Loader). Without it, a command that
/// uses git fails with one line naming the library and its Debian package and changes
/// nothing; the others work as before.
///
/// libgit2 is hidden by mounting an empty file over it in a mount namespace of the command's
/// own (`unshare -m`), which needs root: skipped otherwise.
private let installedLibgit2: String? = {
    guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return nil }
    let candidates = ["/usr/lib/x86_64-linux-gnu/libgit2.so.1.5", "/usr/lib/aarch64-linux-gnu/libgit2.so.1.5"]
    return candidates.first { FileManager.default.fileExists(atPath: $0) }
}()

@Suite(.enabled(if: installedLibgit2 != nil, "needs root (unshare -m) and libgit2.so.1.5 in a known place"))
struct WithoutLibgit2Tests {

    /// `vault arguments…` in `directory` with libgit2 replaced by an empty file.
    func runWithoutLibgit2(_ arguments: [String], in directory: String) throws -> RunResult {
        let process = vaultProcess(arguments, in: directory)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments =
            [
                "-m", "sh", "-c", "mount --bind /dev/null \"$1\" && shift && exec \"$@\"", "sh", installedLibgit2!,
                Project.vaultExecutable,
            ]
            + arguments
        return try run(process)
    }

    @Test func gitCommandsFailWithOneLineAndChangeNothing() throws {
        let vault = try Project.copyOfSampleVault()
        try runVault(["init", "."], in: vault.path)
        let before = try vault.snapshot()
        for arguments in [["log"], ["chat", offlineSampleRoom, "hello"], ["diff", offlineSampleRoom]] {
            let r = try runWithoutLibgit2(arguments, in: vault.path)
            #expect(r.status == 1, "\(arguments): \(r.stderr)")
            expectUserError(r, ["cannot load libgit2", "libgit2.so.1.5", "install the Debian package libgit2-1.5"])
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        }
        expectUnchanged(before, try vault.snapshot())
    }

    @Test func aVaultWithoutRepositoryGetsNoneAndNoFileChanges() throws {
        let vault = try Project.copyOfSampleVault()
        let before = try vault.snapshot()
        let r = try runWithoutLibgit2(["chat", offlineSampleRoom, "hello"], in: vault.path)
        expectUserError(r, ["cannot load libgit2", "libgit2-1.5"])
        expectUnchanged(before, try vault.snapshot())
        #expect(!FileManager.default.fileExists(atPath: vault.path + "/.git"))
    }

    @Test func otherCommandsWork() throws {
        let vault = try Project.copyOfSampleVault()
        try runVault(["init", "."], in: vault.path)
        for arguments in [
            ["--version"], ["rooms"], ["show", "부산"], ["check"], ["diary", "list"], ["export", offlineSampleRoom],
        ] {
            let r = try runWithoutLibgit2(arguments, in: vault.path)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            #expect(!r.stdout.isEmpty, "\(arguments)")
        }
    }
}
