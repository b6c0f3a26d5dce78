import CGit2
import Foundation
import Synchronization
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// Commits signed with an SSH key, as git's `gpg.format ssh` signs them, so `git log
/// --show-signature` checks vault's commits and vault checks git's.
///
/// Signing is this machine's choice, read from git config as `git commit` reads it
/// (`gpg.format ssh`, `commit.gpgsign true`, `user.signingkey`: a public or private key file,
/// or a public key line, `key::ssh-ed25519 AAAA…`, whose private half is in ssh-agent;
/// `gpg.ssh.program`, else `ssh-keygen`). The commit's bytes are signed with `ssh-keygen -Y sign
/// -n git` and written with the signature in its `gpgsig` header
/// (`git_commit_create_with_signature`); a key that cannot sign stops the commit, with nothing
/// written. Checking is `ssh-keygen -Y find-principals` then `-Y verify` against an allowed-signers
/// file made from the keys `vault.yml` lists with its people (`AllowedSigners`).
///
///     git config gpg.format ssh
///     git config user.signingkey ~/.ssh/id_ed25519.pub
///     git config commit.gpgsign true      # every commit vault (and git) makes is signed
struct SSHSigning {
    /// The namespace git signs commits in (`ssh-keygen -n git`).
    static let namespace = "git"
    /// `ssh-keygen`, or `gpg.ssh.program`.
    let program: String
    /// HOME, PATH and ssh-agent's socket for `ssh-keygen`.
    let environment: [String: String]
    /// Where the temporary files are made: the repository's `.git`.
    let scratch: String

    /// What checking one commit's signature found.
    enum Signer: Equatable {
        /// No signature, or not an SSH one.
        case unsigned
        /// A good signature by a key `vault.yml` lists for the person with this principal.
        case person(principal: String)
        /// Signed with a key no person of `vault.yml` has.
        case unknownKey
        /// A signature by a listed key that does not verify (the commit was changed after signing).
        case bad(principal: String)
        /// The signature could not be checked (ssh-keygen could not be run): why.
        case unchecked(String)
    }

    /// The armored signature (`-----BEGIN SSH SIGNATURE-----`…) of `content` with `key`.
    func sign(_ content: [UInt8], key: String) throws(VaultError) -> String {
        let base = temporaryName("sign")
        defer { for suffix in ["", ".sig", ".pub"] { unlink(base + suffix) } }
        var arguments = ["-Y", "sign", "-n", SSHSigning.namespace]
        var keyFile = expanded(key)
        if let literal = SSHSigning.literalKey(key) {
            // A key line: its private half is in ssh-agent, as git does it (`-U`).
            try write(Array((literal + "\n").utf8), to: base + ".pub", key: key)
            keyFile = base + ".pub"
            arguments.append("-U")
        }
        try write(content, to: base, key: key)
        arguments += ["-f", keyFile, base]
        let run = try ChildProcess.run(program, arguments, environment: environment)
        guard run.status == 0, let signature = try? FileIO.read(base + ".sig"), !signature.isEmpty else {
            throw VaultError.repository(.cannotSign(key: key, reason: SSHSigning.lastLine(run.stderr, run.status)))
        }
        return String(decoding: signature, as: UTF8.self)
    }

    /// Who signed `data` with `signature`, by the keys of `allowedSigners` (the file's text).
    func signer(of data: [UInt8], signature: [UInt8], allowedSigners: String) -> Signer {
        guard String(decoding: signature.prefix(40), as: UTF8.self).hasPrefix("-----BEGIN SSH SIGNATURE-----") else {
            return .unsigned
        }
        let base = temporaryName("verify")
        defer { for suffix in ["", ".sig", ".allowed"] { unlink(base + suffix) } }
        do {
            try write(data, to: base, key: "")
            try write(signature, to: base + ".sig", key: "")
            try write(Array(allowedSigners.utf8), to: base + ".allowed", key: "")
            let found = try ChildProcess.run(
                program, ["-Y", "find-principals", "-s", base + ".sig", "-f", base + ".allowed"],
                environment: environment)
            let principals = String(decoding: found.stdout, as: UTF8.self).split(whereSeparator: \.isNewline)
            guard found.status == 0, let principal = principals.first.map(String.init) else { return .unknownKey }
            let verified = try ChildProcess.run(
                program,
                ["-Y", "verify", "-f", base + ".allowed", "-I", principal, "-n", SSHSigning.namespace, "-s", base + ".sig"],
                environment: environment, stdinFile: base)
            return verified.status == 0 ? .person(principal: principal) : .bad(principal: principal)
        } catch {
            return .unchecked(error.description)
        }
    }

    /// The key line of a `user.signingkey` that is one (`key::ssh-ed25519 …`, or the line itself).
    static func literalKey(_ key: String) -> String? {
        if key.hasPrefix("key::") { return String(key.dropFirst(5)) }
        return Person.isPublicKey(key) ? key : nil
    }

    private func expanded(_ path: String) -> String {
        guard path.hasPrefix("~/"), let home = environment["HOME"], !home.isEmpty else { return path }
        return home + path.dropFirst(1)
    }

    private func temporaryName(_ what: String) -> String {
        SSHSigning.counter.withLock { n in
            n += 1
            return scratch + "/vault-\(what)-\(getpid())-\(n)"
        }
    }

    private static let counter = Mutex<Int>(0)

    private func write(_ bytes: [UInt8], to path: String, key: String) throws(VaultError) {
        do {
            try FileIO.write(bytes, to: path, durable: false)
        } catch {
            throw VaultError.repository(.cannotSign(key: key, reason: "cannot write \(path): \(error)"))
        }
    }

    /// ssh-keygen's last line of complaint, or its exit status.
    static func lastLine(_ stderr: [UInt8], _ status: Int32) -> String {
        let lines = String(decoding: stderr, as: UTF8.self).split(whereSeparator: \.isNewline)
        return lines.last.map { String($0.prefix(300)) } ?? "ssh-keygen ended with status \(status)"
    }
}

extension GitHistory {
    /// The key this machine signs its commits with (git config `user.signingkey`), when
    /// `gpg.format` is `ssh` and `commit.gpgsign` is on; nil: commits are not signed.
    func signingKey() -> String? {
        guard (try? configString("gpg.format"))?.lowercased() == "ssh", configBool("commit.gpgsign") == true,
            let key = try? configString("user.signingkey"), !key.isEmpty
        else { return nil }
        return key
    }

    /// `ssh-keygen` (or `gpg.ssh.program`) with the environment vault's git commands get.
    func sshSigning() -> SSHSigning {
        let environment = GitTransport(root: root, environment: settings.environment).environment
        var program = (try? configString("gpg.ssh.program")).flatMap { $0.isEmpty ? nil : $0 } ?? "ssh-keygen"
        if !program.contains("/") {
            let path = environment["PATH"] ?? "/usr/bin:/bin"
            program = path.split(separator: ":").map { String($0) + "/" + program }
                .first { access($0, X_OK) == 0 } ?? "/usr/bin/" + program
        }
        var gitDir = String(cString: git_repository_path(repo))
        if gitDir.hasSuffix("/") { gitDir.removeLast() }
        return SSHSigning(program: program, environment: environment, scratch: gitDir)
    }

    func configBool(_ key: String) -> Bool? {
        var config: OpaquePointer?
        guard git_repository_config_snapshot(&config, repo) == 0 else { return nil }
        defer { git_config_free(config) }
        var value: Int32 = 0
        guard git_config_get_bool(&value, config, key) == 0 else { return nil }
        return value != 0
    }

    /// Creates the commit object, signed when this machine signs (`signingKey()`): the one way
    /// every commit of vault's is made (`makeCommit`, a sync's merge).
    func createCommit(
        _ id: inout git_oid, author: UnsafePointer<git_signature>, committer: UnsafePointer<git_signature>,
        message: String, tree: OpaquePointer?, parents: [OpaquePointer?]
    ) throws(VaultError) {
        var parents = parents
        guard let key = signingKey() else {
            let code = parents.withUnsafeMutableBufferPointer { p in
                git_commit_create(&id, repo, nil, author, committer, "UTF-8", message, tree, p.count, p.baseAddress)
            }
            try GitFailure.check(code, "create the commit")
            return
        }
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        let made = parents.withUnsafeMutableBufferPointer { p in
            git_commit_create_buffer(&buffer, repo, author, committer, "UTF-8", message, tree, p.count, p.baseAddress)
        }
        try GitFailure.check(made, "make the commit to sign")
        guard let ptr = buffer.ptr else { throw GitFailure.error(-1, "make the commit to sign") }
        let content = String(cString: ptr)
        let signature = try sshSigning().sign(Array(content.utf8), key: key)
        try GitFailure.check(
            git_commit_create_with_signature(&id, repo, content, signature, nil), "write the signed commit")
    }

    /// Who signed `commit`, by the keys of `allowedSigners`.
    func signer(of commit: OpaquePointer, allowedSigners: String, using signing: SSHSigning) -> SSHSigning.Signer {
        guard let parts = signedParts(of: commit) else { return .unsigned }
        return signing.signer(of: parts.data, signature: parts.signature, allowedSigners: allowedSigners)
    }
}
