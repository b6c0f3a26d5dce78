import CGit2
import Foundation
import VaultCore

/// Whether the commit that brought each message in bears out its `author=` (issue #36): an
/// `author=` is a claim anyone can type; the commit that made the message says who made it.
///
/// For every message a sync brings in (`SyncReport.Room.newMessageIDs`), the commit that first
/// holds it (the incoming commits, oldest first, each compared with all its parents) is found,
/// and the message is marked unverified (`SyncReport.Room.unverified`, `UnverifiedMarks`) when:
/// - **signed vaults** (a person of `vault.yml` lists a `key:`): that commit is not signed, is
///   signed by a key no person lists, by a signature that does not verify, or by another person's
///   key than the one its `author=` names (a message naming no person, a model's reply, needs a
///   good signature of any person);
/// - **every vault**: it claims to be this machine's person (`author=` you) but the commit was not
///   made by vault as you on a machine of yours (its git author is not your `Identity`, or it
///   carries no `Vault-Machine:` trailer); in a signed vault, not signed with your key.
///
/// The keys are those of the `vault.yml` this machine had before the sync: a key that comes in
/// with a sync cannot vouch for the commits it came with. A message claiming to be you that is
/// marked is not one of yours: it is unread.
struct Authorship {
    let history: GitHistory
    /// `people:` of this machine's `vault.yml`, before the sync.
    let people: [Person]
    let me: Identity

    /// Whether any person lists a key: the vault is signed.
    var signed: Bool { people.contains { !$0.keys.isEmpty } }

    /// Marks the messages of `report` that `theirs` brought (commits `ours` lacks) and whose
    /// author their commit does not bear out; takes them out of `ownMessageIDs`.
    func check(_ report: inout SyncReport, ours: OpaquePointer, theirs: OpaquePointer, renamed: [String: String])
        throws(VaultError)
    {
        let myKey = Workspace.key(me.name)
        // Each room's new messages as the incoming side has them: who they claim to be.
        var claims: [Int: [String: Author?]] = [:]
        for (i, room) in report.rooms.enumerated() where !room.newMessageIDs.isEmpty {
            guard let bytes = try? roomBytes(room.path, at: theirs),
                let file = try? RoomFile(parsing: bytes, path: room.path)
            else { continue }
            let authors = Dictionary(file.messages.map { ($0.id, $0.author) }, uniquingKeysWith: { a, _ in a })
            claims[i] = Dictionary(room.newMessageIDs.map { ($0, authors[$0] ?? nil) }, uniquingKeysWith: { a, _ in a })
        }
        func claimsMe(_ author: Author?) -> Bool { author.map { Workspace.key($0.name) == myKey } ?? false }
        // Unsigned, only a claim to be me has anything to be checked against: no walk without one.
        let wanted = Set(claims.values.flatMap { $0.filter { signed || claimsMe($0.value) }.keys })
        guard !wanted.isEmpty else { return }
        let paths = Set(report.rooms.map(\.path) + report.rooms.compactMap { renamed[$0.path] })
        let brought = try commitsBringing(wanted, paths: paths, ours: ours, theirs: theirs)
        defer { for commit in brought.values { git_commit_free(commit.pointer) } }
        let allowed = Workspace.allowedSigners(people)
        let signing = signed ? history.sshSigning() : nil
        var signers: [String: SSHSigning.Signer] = [:]
        for (i, authors) in claims {
            var reasons: [String: String] = [:]
            for (id, claimed) in authors where wanted.contains(id) {
                guard let commit = brought[id] else {
                    reasons[id] = "the commit that brought it was not found"
                    continue
                }
                let made = Made(commit: commit.pointer)
                if let signing {
                    let signer = signers[commit.id] ?? history.signer(of: commit.pointer, allowedSigners: allowed, using: signing)
                    signers[commit.id] = signer
                    if let why = unverified(claimed: claimed, signer: signer, made: made) {
                        reasons[id] = why
                        continue
                    }
                }
                if claimsMe(claimed), !made.isMine(me) {
                    reasons[id] = "claims to be you, but was written as \(made.who) (commit \(made.short)), not on a machine of yours"
                }
            }
            report.rooms[i].unverified = reasons
            report.rooms[i].ownMessageIDs.removeAll { reasons[$0] != nil }
        }
    }

    /// Why a message claiming `claimed` in a commit signed so is not verified; nil: it is.
    private func unverified(claimed: Author?, signer: SSHSigning.Signer, made: Made) -> String? {
        let person = claimed.flatMap { a in people.first { $0.key == Workspace.key(a.name) } }
        switch signer {
        case .unsigned:
            return "its commit \(made.short) (\(made.who)) is not signed with an SSH key"
        case .unchecked(let why):
            return "the signature of its commit \(made.short) (\(made.who)) could not be checked: \(why)"
        case .unknownKey:
            return "its commit \(made.short) (\(made.who)) is signed with a key no person of vault.yml has"
        case .bad(let principal):
            return "the signature of its commit \(made.short) by \(name(of: principal))'s key does not verify"
        case .person(let principal):
            guard let person else { return nil }  // a model's or an app's: signed by a person of the vault
            if person.principal == principal { return nil }
            return "written as \(person.name), but its commit \(made.short) is signed by \(name(of: principal))'s key"
        }
    }

    private func name(of principal: String) -> String {
        people.first { $0.principal == principal }?.name ?? principal
    }

    /// Who made a commit: its git author and its machine (the `Vault-Machine:` trailer).
    struct Made {
        var name: String
        var email: String
        var machine: String?
        var short: String

        init(commit: OpaquePointer) {
            let author = git_commit_author(commit)
            name = author.map { String(cString: $0.pointee.name) } ?? ""
            email = author.map { String(cString: $0.pointee.email) } ?? ""
            let message = git_commit_message(commit).map { String(cString: $0) } ?? ""
            machine = message.split(separator: "\n").last { $0.hasPrefix("Vault-Machine: ") }.map { String($0.dropFirst(15)) }
            short = String(oidString(git_commit_id(commit)).prefix(7))
        }

        var who: String { "\(name) <\(email)>" + (machine.map { " on \($0)" } ?? ", not by vault") }

        /// Made by vault as `me` (name and email), on a machine that names itself.
        func isMine(_ me: Identity) -> Bool {
            Workspace.key(name) == Workspace.key(me.name) && email.lowercased() == me.email.lowercased() && machine != nil
        }
    }

    /// For each id of `wanted`: the oldest commit reachable from `theirs` and not from `ours`
    /// whose version of the rooms at `paths` holds it and none of whose parents' versions does.
    /// The caller frees the commits.
    private func commitsBringing(_ wanted: Set<String>, paths: Set<String>, ours: OpaquePointer, theirs: OpaquePointer)
        throws(VaultError) -> [String: (pointer: OpaquePointer, id: String)]
    {
        var walk: OpaquePointer?
        try GitFailure.check(git_revwalk_new(&walk, history.repo), "walk the incoming commits")
        defer { git_revwalk_free(walk) }
        git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_REVERSE.rawValue)
        var theirsID = git_commit_id(theirs).pointee
        var oursID = git_commit_id(ours).pointee
        try GitFailure.check(git_revwalk_push(walk, &theirsID), "walk the incoming commits")
        try GitFailure.check(git_revwalk_hide(walk, &oursID), "walk the incoming commits")
        var idsOfBlob: [String: Set<String>] = [:]
        func ids(in commit: OpaquePointer) -> Set<String> {
            var tree: OpaquePointer?
            guard git_commit_tree(&tree, commit) == 0 else { return [] }
            defer { git_tree_free(tree) }
            var found = Set<String>()
            for path in paths {
                guard var blob = history.blob(at: path, in: tree) else { continue }
                let key = oidString(&blob)
                if let known = idsOfBlob[key] { found.formUnion(known); continue }
                let bytes = (try? history.blobBytes(blob)) ?? []
                let held = Set((try? RoomFile(parsing: bytes, path: path))?.messages.map(\.id) ?? []).intersection(wanted)
                idsOfBlob[key] = held
                found.formUnion(held)
            }
            return found
        }
        var brought: [String: (pointer: OpaquePointer, id: String)] = [:]
        var next = git_oid()
        while brought.count < wanted.count, git_revwalk_next(&next, walk) == 0 {
            var commit: OpaquePointer?
            guard git_commit_lookup(&commit, history.repo, &next) == 0, let commit else { continue }
            var introduced = ids(in: commit).subtracting(brought.keys)
            for n in 0..<git_commit_parentcount(commit) where !introduced.isEmpty {
                var parent: OpaquePointer?
                guard git_commit_parent(&parent, commit, n) == 0, let parent else { continue }
                introduced.subtract(ids(in: parent))
                git_commit_free(parent)
            }
            if introduced.isEmpty {
                git_commit_free(commit)
                continue
            }
            let hex = oidString(&next)
            // One reference per id: each is freed once.
            for (k, id) in introduced.enumerated() {
                var copy: OpaquePointer?
                if k == 0 { copy = commit } else { _ = git_commit_dup(&copy, commit) }
                if let copy { brought[id] = (copy, hex) }
            }
        }
        return brought
    }

    private func roomBytes(_ path: String, at commit: OpaquePointer) throws(VaultError) -> [UInt8]? {
        var tree: OpaquePointer?
        try GitFailure.check(git_commit_tree(&tree, commit), "read the remote's tree")
        defer { git_tree_free(tree) }
        guard let blob = history.blob(at: path, in: tree) else { return nil }
        return try history.blobBytes(blob)
    }
}

extension VaultSync {
    /// Marks the messages `report` says came in whose author the commit that brought them does
    /// not bear out (`Authorship`, by the people of the `vault.yml` this machine has), a sync's
    /// and a dry run's the same way.
    func checkAuthors(_ report: inout SyncReport, merge: TreeMerge.Outcome, ours: OpaquePointer, theirs: OpaquePointer)
        throws(VaultError)
    {
        try Authorship(history: history, people: vault.config.people, me: history.author).check(
            &report, ours: ours, theirs: theirs,
            renamed: Dictionary(merge.renamed.map { ($0.to, $0.from) }, uniquingKeysWith: { a, _ in a }))
    }
}
