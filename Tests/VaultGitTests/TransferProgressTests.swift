import Foundation
import Testing
import VaultCore
@testable import VaultGit
import VaultTestSupport

// The progress of clone and sync transfers through the library's `onProgress`, over both
// transports (the `git` command, and libgit2 when no `git` is on the PATH) with a remote that
// has a few hundred objects to move; git's progress text read in any pieces; and errors that
// read the same with progress on as with it off.

/// The events a workflow reported, collected from whatever thread reported them.
private final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [ProgressEvent] = []

    var handler: ProgressHandler { { [self] event in lock.withLock { list.append(event) } } }

    /// The events so far, and none kept.
    func take() -> [ProgressEvent] {
        lock.withLock {
            defer { list = [] }
            return list
        }
    }
}

/// The transfers (the events between two `ProgressEvent.ended`), each the events of its steps.
private func transfers(_ events: [ProgressEvent]) -> [[ProgressEvent]] {
    var out: [[ProgressEvent]] = [[]]
    for event in events {
        if event.isEnd { out.append([]) } else { out[out.count - 1].append(event) }
    }
    return out
}

/// Every step of `events` counts up within one total, never past it, and ends at it; the
/// bytes it counts never go down; and the events end with `ProgressEvent.ended`.
private func expectCountsUp(
    _ events: [ProgressEvent], _ label: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(events.last?.isEnd == true, "\(label): \(events)", sourceLocation: sourceLocation)
    for transfer in transfers(events) {
        for action in Set(transfer.map(\.action)) {
            let steps = transfer.filter { $0.action == action }
            let counts = steps.map(\.done)
            let totals = Set(steps.map(\.total))
            #expect(totals.count == 1, "\(label) \(action): totals \(totals)", sourceLocation: sourceLocation)
            #expect(counts == counts.sorted(), "\(label) \(action): \(counts)", sourceLocation: sourceLocation)
            #expect(
                steps.allSatisfy { step in step.total.map { step.done <= $0 } ?? true },
                "\(label) \(action): \(steps)", sourceLocation: sourceLocation)
            #expect(
                steps.last?.total != nil && steps.last?.done == steps.last?.total,
                "\(label) \(action) does not end at its total: \(steps)", sourceLocation: sourceLocation)
            let bytes = steps.compactMap(\.bytes)
            #expect(bytes == bytes.sorted(), "\(label) \(action): bytes \(bytes)", sourceLocation: sourceLocation)
        }
    }
}

/// The last event of `action` in `events`, when it is there.
private func last(_ action: String, in events: [ProgressEvent]) -> ProgressEvent? {
    events.last { $0.action == action }
}

/// A new vault with its own repository, opened to change.
private func newVault(_ dir: TemporaryDirectory) throws -> Vault {
    let plain = try Vault.create(at: dir.path, locale: "en_US", timeZone: TimeZone(identifier: "Asia/Tokyo")!)
    let history = try GitHistory.create(vault: dir.path, config: plain.config)
    return plain.with(history: history)
}

/// A new vault (`newVault`) whose `origin` is a new bare repository, named by `url` (given the
/// repository's path).
private struct VaultWithRemote {
    let dir = TemporaryDirectory("vault-progress")
    let folder = TemporaryDirectory("vault-progress-remote")
    let vault: Vault
    let history: GitHistory
    var remote: String { folder.path + "/remote.git" }

    init(url: (String) -> String) throws {
        vault = try newVault(dir)
        history = vault.history as! GitHistory
        try makeBareRepository(at: folder.path + "/remote.git")
        try Remotes(vault: vault, history: history).add(name: "origin", url: url(folder.path + "/remote.git"))
    }
}

/// Commits `count` attachments (`attachments/n-K.txt`, some KiB of text each) with the git
/// command line, then changes each a little and commits again: objects to move, and deltas.
private func commitFiles(_ dir: TemporaryDirectory, named name: String, count: Int, seed: UInt64) throws {
    var random = SeededRandom(seed: seed)
    for k in 0..<count {
        let words = (0..<400).map { _ in String(random.next() % 100_000, radix: 36) }
        try dir.write("attachments/\(name)-\(k).txt", words.joined(separator: " ") + "\n")
    }
    try gitCLI(["add", "-A"], in: dir.path)
    try gitCLI(["commit", "-q", "-m", "files \(name)"], in: dir.path)
    for k in 0..<count {
        let path = "attachments/\(name)-\(k).txt"
        try dir.write(path, try dir.readText(path) + "one more line\n")
    }
    try gitCLI(["commit", "-q", "-a", "-m", "files \(name), changed"], in: dir.path)
}

/// An environment for a `VaultSync` or a clone: this process's, and for `libgit2` a PATH without `git`.
private func environment(_ transport: String) -> [String: String] {
    var env = ProcessInfo.processInfo.environment
    if transport == "libgit2" { env["PATH"] = "/nonexistent" }
    return env
}

@Suite struct TransferProgressTests {
    /// A push, a clone and a fetch of a few hundred objects each report their steps counting up
    /// to their totals, with the bytes: `sending` (a push), `receiving` and `resolving` (a clone,
    /// a fetch), then `ended`; and the transfers did what they do.
    @Test(arguments: ["git", "libgit2"]) func cloneAndSyncReportProgressUpToTheTotal(transport: String) throws {
        let env = environment(transport)
        #expect(GitTransport.isInstalled(environment: env) == (transport == "git"))
        let setup = try VaultWithRemote { "file://" + $0 }
        let (dir, vault, history, remote) = (setup.dir, setup.vault, setup.history, setup.remote)
        try commitFiles(dir, named: "first", count: 150, seed: 1)

        // The push: every object sent.
        let events = Events()
        let sync = VaultSync(vault: vault.with(settings: ProcessSettings(environment: env)), history: history)
        sync.onProgress = events.handler
        #expect(try sync.sync().pushed)
        let pushed = events.take()
        expectCountsUp(pushed, "push")
        let objects = Int(try git(["count-objects", "-v"], in: dir.path).split(separator: "\n")
            .first { $0.hasPrefix("count: ") }?.dropFirst(7) ?? "0") ?? 0
        let sent = try #require(last("sending", in: pushed), "\(pushed)")
        #expect(sent.total ?? 0 >= 300 && sent.total ?? 0 <= objects, "\(sent) of \(objects) loose objects")
        // libgit2's local push counts no bytes (it writes the pack into the remote's folder).
        #expect(transport == "git" ? sent.bytes ?? 0 > 100_000 : sent.bytes == nil, "\(sent)")
        #expect(try git(["rev-parse", "main"], in: remote) == git(["rev-parse", "HEAD"], in: dir.path))

        // The clone: every object received, the deltas resolved.
        let cloneFolder = TemporaryDirectory("vault-progress-clone")
        let cloned = try VaultClone.clone(
            url: "file://" + remote, into: cloneFolder.path + "/b", settings: ProcessSettings(environment: env), onProgress: events.handler)
        let received = events.take()
        expectCountsUp(received, "clone")
        let got = try #require(last("receiving", in: received), "\(received)")
        #expect(got.total == sent.total, "\(got), sent \(sent)")
        #expect(got.bytes ?? 0 > 100_000, "\(got)")
        let resolved = try #require(last("resolving", in: received), "\(received)")
        #expect(resolved.total ?? 0 > 0)
        #expect(try git(["rev-parse", "HEAD"], in: cloned.root) == git(["rev-parse", "HEAD"], in: dir.path))
        #expect(try git(["status", "--porcelain"], in: cloned.root) == "")

        // A fetch of what the first machine sent since: received to the total.
        try commitFiles(dir, named: "second", count: 120, seed: 2)
        let again = VaultSync(vault: vault.with(settings: ProcessSettings(environment: env)), history: history)
        #expect(try again.sync().pushed)
        let clonedHistory = cloned.history as! GitHistory
        let fetching = VaultSync(vault: cloned.with(settings: ProcessSettings(environment: env)), history: clonedHistory)
        fetching.onProgress = events.handler
        let report = try fetching.sync()
        #expect(!report.pushed && report.merges == 0)
        let fetched = events.take()
        expectCountsUp(fetched, "fetch")
        let came = try #require(last("receiving", in: fetched), "\(fetched)")
        #expect(came.total ?? 0 >= 240, "\(came)")
        #expect(try git(["rev-parse", "HEAD"], in: cloned.root) == git(["rev-parse", "HEAD"], in: dir.path))
        #expect(!transfers(fetched).joined().contains { $0.action == "sending" }, "nothing to push: \(fetched)")
    }

    /// Without `onProgress` nothing asks for progress: a sync and a clone work as before.
    @Test(arguments: ["git", "libgit2"]) func withoutAHandlerTheTransfersWorkAsBefore(transport: String) throws {
        let env = environment(transport)
        let setup = try VaultWithRemote { $0 }
        let (dir, vault, history, folder, remote) = (setup.dir, setup.vault, setup.history, setup.folder, setup.remote)
        try commitFiles(dir, named: "quiet", count: 20, seed: 3)
        #expect(try VaultSync(vault: vault.with(settings: ProcessSettings(environment: env)), history: history).sync().pushed)
        let cloned = try VaultClone.clone(url: "file://" + remote, into: folder.path + "/b", settings: ProcessSettings(environment: env))
        #expect(try git(["rev-parse", "HEAD"], in: cloned.root) == git(["rev-parse", "HEAD"], in: dir.path))
    }

    /// git's progress as it streams, cut anywhere: the same events and the same other text.
    @Test func gitProgressIsReadInAnyPieces() {
        let text =
            "Cloning into 'b'...\n"
            + "remote: Enumerating objects: 302, done.        \n"
            + "remote: Counting objects:  50% (151/302)        \r"
            + "remote: Counting objects: 100% (302/302), done.        \n"
            + "remote: Compressing objects: 100% (2/2), done.        \n"
            + "Receiving objects:   0% (1/302)\rReceiving objects:  45% (136/302), 1.20 MiB | 3.40 MiB/s\r"
            + "Receiving objects: 100% (302/302), 411.62 KiB | 3.96 MiB/s, done.\n"
            + "remote: Total 302 (delta 1), reused 0 (delta 0), pack-reused 0        \n"
            + "Resolving deltas: 100% (4/4), completed with 2 local objects.\n"
            + "Unpacking objects: 100% (3/3), 250 bytes | 250.00 KiB/s, done.\n"
            + "Writing objects:  10% (1/10)\r"
            + "fatal: unable to access 'https://example.invalid/': Could not resolve host\n"
            + "Updating files:  50% (1/2)\rUpdating files: 100% (2/2), done."
        let expected = [
            ProgressEvent("counting", done: 151, of: 302, unit: "objects"),
            ProgressEvent("counting", done: 302, of: 302, unit: "objects"),
            ProgressEvent("compressing", done: 2, of: 2, unit: "objects"),
            ProgressEvent("receiving", done: 1, of: 302, unit: "objects"),
            ProgressEvent("receiving", done: 136, of: 302, unit: "objects", bytes: 1_258_291),
            ProgressEvent("receiving", done: 302, of: 302, unit: "objects", bytes: 421_499),
            ProgressEvent("resolving", done: 4, of: 4, unit: "deltas"),
            ProgressEvent("receiving", done: 3, of: 3, unit: "objects", bytes: 250),
            ProgressEvent("sending", done: 1, of: 10, unit: "objects"),
            ProgressEvent("checking out", done: 1, of: 2, unit: "files"),
            ProgressEvent("checking out", done: 2, of: 2, unit: "files"),
        ]
        let messages =
            "Cloning into 'b'...\nremote: Enumerating objects: 302, done.        \n"
            + "remote: Total 302 (delta 1), reused 0 (delta 0), pack-reused 0        \n"
            + "fatal: unable to access 'https://example.invalid/': Could not resolve host\n"
        let bytes = Array(text.utf8)
        for cut in [0, 1, 17, 100, 233, bytes.count / 2, bytes.count - 1] + (0..<20).map({ $0 * bytes.count / 20 }) {
            let events = Events()
            var reader = GitProgressReader(report: events.handler)
            reader.read(Array(bytes[..<cut]))
            reader.read([])
            reader.read(Array(bytes[cut...]))
            reader.finish()
            #expect(events.take() == expected, "cut at \(cut)")
            #expect(String(decoding: reader.messages, as: UTF8.self) == messages, "cut at \(cut)")
        }
        // Byte by byte.
        let events = Events()
        var reader = GitProgressReader(report: events.handler)
        for byte in bytes { reader.read([byte]) }
        reader.finish()
        #expect(events.take() == expected)
        // Lines that look like progress but are not are kept as text.
        for line in ["Receiving objects: soon", "Writing objects: 10% (1/x)", "hint: Counting objects: 3"] {
            #expect(GitProgressReader.event(in: line) == nil, "\(line)")
        }
    }

    /// A remote that refuses (wrong credentials over HTTP, a hook), and a changed ssh host key:
    /// with progress on, the message is the one given without it, and the vault is unchanged.
    @Test func refusalsSayTheSameWithProgressOn() throws {
        let dir = TemporaryDirectory("vault-progress")
        let vault = try newVault(dir)
        let history = vault.history as! GitHistory
        let remotes = TemporaryDirectory("vault-progress-remotes")
        try makeBareRepository(at: remotes.path + "/notes.git")
        let server = try GitHTTPServer(root: remotes.path, token: "the-right-token")
        try Remotes(vault: vault, history: history).add(name: "origin", url: server.url("notes"))
        try commitFiles(dir, named: "refused", count: 30, seed: 4)
        let home = TemporaryDirectory("vault-progress-home")
        var env = ProcessInfo.processInfo.environment.filter { key, _ in
            !(key.hasPrefix("GIT_") || key.hasPrefix("SSH_") || key.hasPrefix("VAULT_") || key == "HOME")
        }
        env["HOME"] = home.path
        env["GIT_CONFIG_NOSYSTEM"] = "1"

        /// The message of the sync's error (with `remote`, else the default one) without progress
        /// and with it, and what was reported.
        func refusal(_ env: [String: String], remote: String? = nil) throws
            -> (quiet: String, shown: String, events: [ProgressEvent])
        {
            let head = try git(["rev-parse", "HEAD"], in: dir.path)
            var messages: [String] = []
            let events = Events()
            for progress in [nil, events.handler] {
                let sync = VaultSync(vault: vault.with(settings: ProcessSettings(environment: env)), history: history)
                sync.onProgress = progress
                do {
                    _ = try sync.sync(remote: remote)
                    Issue.record("the sync went through")
                } catch {
                    messages.append(error.description)
                }
            }
            #expect(try git(["rev-parse", "HEAD"], in: dir.path) == head)
            guard messages.count == 2 else { throw GitTestError("no refusal: \(messages)") }
            return (messages[0], messages[1], events.take())
        }

        var wrong = env
        wrong["VAULT_GIT_TOKEN"] = "not-the-token"
        let http = try refusal(wrong)
        #expect(http.shown == http.quiet, "\(http.shown)\n\(http.quiet)")
        #expect(http.shown.contains("refused") && http.shown.contains("VAULT_GIT_TOKEN"), "\(http.shown)")
        #expect(http.events.last?.isEnd == true, "\(http.events)")

        // Right credentials, a pre-receive hook that refuses every push.
        let hook = remotes.path + "/notes.git/hooks/pre-receive"
        try "#!/bin/sh\necho 'pushes are closed today' >&2\nexit 1\n".write(
            toFile: hook, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        var right = env
        right["VAULT_GIT_TOKEN"] = "the-right-token"
        let hooked = try refusal(right)
        #expect(hooked.shown == hooked.quiet, "\(hooked.shown)\n\(hooked.quiet)")
        #expect(hooked.shown.contains("refused") && hooked.shown.contains("hook"), "\(hooked.shown)")
        #expect(hooked.events.contains { $0.action == "sending" }, "\(hooked.events)")
        try FileManager.default.removeItem(atPath: hook)

        // ssh: through the peer's own config (core.sshCommand in its home's .gitconfig).
        let peer = try SSHPeer()
        let bare = remotes.path + "/ssh.git"
        try makeBareRepository(at: bare)
        try Remotes(vault: vault, history: history).add(name: "ssh", url: peer.url(bare))
        var sshEnv = env
        sshEnv["HOME"] = peer.home
        let events = Events()
        let sync = VaultSync(vault: vault.with(settings: ProcessSettings(environment: sshEnv)), history: history)
        sync.onProgress = events.handler
        #expect(try sync.sync(remote: "ssh").pushed)
        #expect(last("sending", in: events.take()) != nil)
        try peer.replaceHostKey()
        let changed = try refusal(sshEnv, remote: "ssh")
        #expect(changed.shown == changed.quiet, "\(changed.shown)\n\(changed.quiet)")
        #expect(
            changed.shown.contains("host key") && changed.shown.contains("changed")
                && changed.shown.contains("ssh-keygen -R"), "\(changed.shown)")
    }
}
