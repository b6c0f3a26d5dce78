import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A new vault (no repository yet) in a temporary folder.
func newVault() throws -> TemporaryDirectory {
    let dir = TemporaryDirectory("vault-kit")
    try Vault.create(at: dir.path, locale: "ko_KR", timeZone: TimeZone(identifier: "Asia/Seoul")!)
    return dir
}

/// Commits in the vault's repository (0 when it has none), read with the `git` command.
func commitCount(_ dir: TemporaryDirectory) -> Int {
    guard FileIO.exists(dir.path + "/.git"), let out = try? git(["rev-list", "--count", "HEAD"], in: dir.path)
    else { return 0 }
    return Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
}

/// What `body` wrote to this process's standard error (its descriptor 2 sent to a file
/// meanwhile), and its result.
func capturingStandardError<T>(_ body: () throws -> T) throws -> (T, String) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("vault-kit-stderr-\(UUID())").path
    let fd = open(file, O_CREAT | O_RDWR | O_TRUNC, 0o600)
    let saved = dup(2)
    dup2(fd, 2)
    defer {
        dup2(saved, 2)
        close(saved)
        close(fd)
        unlink(file)
    }
    let result = try body()
    let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    return (result, text)
}

/// `body` fails with a `VaultError` whose message contains `fragment`; the error is returned.
@discardableResult
func expectVaultError(
    _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> some Any
) -> VaultError? {
    do {
        _ = try body()
        Issue.record("no error; expected one with \"\(fragment)\"", sourceLocation: sourceLocation)
    } catch let error as VaultError {
        #expect(error.description.contains(fragment), "\(error.description)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("not a VaultError: \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
