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
    /// author their commit does not bear out; takes them out of `ownMessageIDs`. `formerPaths`:
    /// every name a room had here before the sync, by its name after it (`SyncReport.formerPaths`);
    /// `theirsNames`: a room's name on the incoming side where the merge kept this side's name.
    func check(
        _ report: inout SyncReport, ours: OpaquePointer, theirs: OpaquePointer, formerPaths: [String: [String]],
        theirsNames: [String: String] = [:]
    )
        throws(VaultError)
    {
        let myKey = Workspace.key(me.name)
        func claimsMe(_ author: Author?) -> Bool { author.map { Workspace.key($0.name) == myKey } ?? false }
        // What to check, by key: a new message by its id, an edited one by its id and its text
        // (`Authorship.key`), each as the incoming side has it. Unsigned, only a claim to be me
        // has anything to be checked against: no walk without one.
        struct Wanted {
            var path: String
            var id: String
            var claimed: Author?
            var edited: Bool
        }
        var wanted: [String: Wanted] = [:]
        let newIDs = Dictionary(report.rooms.map { ($0.path, Set($0.newMessageIDs)) }, uniquingKeysWith: { a, b in a.union(b) })
        let rooms = Set(report.rooms.map(\.path) + report.changed.filter { VaultPath.kind(of: $0) == .room })
        // Unsigned, a room without any `author=` (one person's room with a model) has nothing to
        // check: not even parsed. (Not a search for my name: it may be spelled in another case or form.)
        let mine = Array(" author=".utf8)
        for path in rooms.sorted() {
            let incoming = (try? roomBytes(path, at: theirs)) ?? theirsNames[path].flatMap { try? roomBytes($0, at: theirs) }
            guard let bytes = incoming, signed || bytes.firstRange(of: mine) != nil,
                let file = try? RoomFile(parsing: bytes, path: path)
            else { continue }
            // This side's version, under whichever name it had here (renamed on both sides, the
            // ancestor's or this side's).
            let names = (formerPaths[path] ?? []) + [path]
            let bytesHere = names.lazy.compactMap { try? self.roomBytes($0, at: ours) }.first
            let before = bytesHere.flatMap { try? RoomFile(parsing: $0, path: path) }
            let known = Dictionary(
                before?.messages.map { ($0.id, Authorship.text($0.body)) } ?? [], uniquingKeysWith: { a, _ in a })
            for m in file.messages where signed || claimsMe(m.author) {
                if newIDs[path]?.contains(m.id) == true {
                    wanted[m.id] = Wanted(path: path, id: m.id, claimed: m.author, edited: false)
                } else if let old = known[m.id], old != Authorship.text(m.body) {
                    wanted[Authorship.key(m)] = Wanted(path: path, id: m.id, claimed: m.author, edited: true)
                }
            }
        }
        guard !wanted.isEmpty else { return }
        let paths = rooms.union(rooms.flatMap { (formerPaths[$0] ?? []) + [theirsNames[$0]].compactMap { $0 } })
        let brought = try commitsBringing(Set(wanted.keys), paths: paths, ours: ours, theirs: theirs)
        defer { for commit in brought.values { git_commit_free(commit.pointer) } }
        let allowed = Workspace.allowedSigners(people)
        let signing = signed ? history.sshSigning() : nil
        var signers: [String: SSHSigning.Signer] = [:]
        var reasons: [String: [String: String]] = [:]
        var edits: [String: [String: String]] = [:]
        for (key, message) in wanted {
            var why: String?
            if let commit = brought[key] {
                let made = Made(commit: commit.pointer)
                if let signing {
                    let signer = signers[commit.id] ?? history.signer(of: commit.pointer, allowedSigners: allowed, using: signing)
                    signers[commit.id] = signer
                    why = unverified(claimed: message.claimed, signer: signer, made: made)
                }
                if why == nil, claimsMe(message.claimed), !made.isMine(me) {
                    why = "claims to be you, but was written as \(made.who) (commit \(made.short)), not on a machine of yours"
                }
            } else {
                why = "the commit that brought it was not found"
            }
            guard let why else { continue }
            if message.edited {
                edits[message.path, default: [:]][message.id] = "edited: " + why
            } else {
                reasons[message.path, default: [:]][message.id] = why
            }
        }
        for i in report.rooms.indices {
            let marked = reasons[report.rooms[i].path] ?? [:]
            report.rooms[i].unverified.merge(marked) { _, new in new }
            report.rooms[i].ownMessageIDs.removeAll { marked[$0] != nil }
        }
        report.unverifiedEdits.merge(edits) { a, b in a.merging(b) { _, new in new } }
    }

    /// A message's text as versions are compared (trailing white space aside, as a merge compares).
    static func text(_ body: String) -> String {
        var end = body.endIndex
        while end > body.startIndex, body[body.index(before: end)].isWhitespace { end = body.index(before: end) }
        return String(body[..<end])
    }

    /// The key of one version of a message: its id and an FNV-1a hash of its text.
    static func key(_ message: Message) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text(message.body).utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return message.id + "#" + String(hash, radix: 16)
    }

    /// Why a message claiming `claimed` in a commit signed so is not verified; nil: it is.
    func unverified(claimed: Author?, signer: SSHSigning.Signer, made: Made) -> String? {
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

    /// For each key of `wanted` (a message's id, or one version of it: `key`): the oldest commit
    /// reachable from `theirs` and not from `ours` whose version of the rooms at `paths` holds it
    /// and none of whose parents' versions does.
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
                // Each message as its id (any version) and as its version (`key`).
                let messages = (try? RoomFile(parsing: bytes, path: path))?.messages ?? []
                let held = Set(messages.flatMap { [$0.id, Authorship.key($0)] }).intersection(wanted)
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
    /// and a dry run's the same way. A room's version here is found under every name the report
    /// says it had (renames a merge found, and a fast-forward's).
    func checkAuthors(_ report: inout SyncReport, merge: TreeMerge.Outcome, ours: OpaquePointer, theirs: OpaquePointer)
        throws(VaultError)
    {
        try Authorship(history: history, people: vault.config.people, me: history.author).check(
            &report, ours: ours, theirs: theirs, formerPaths: SyncReport.formerPaths(report.renamed),
            theirsNames: merge.theirsNames)
    }
}

extension UnverifiedMarks {
    /// Moves the marks of a room renamed from `old` to `new` (a hand rename committed, a rename
    /// a sync brings): the marks are kept by room path, and the message is the same.
    static func move(from old: String, to new: String, root: String) {
        let marks = of(old, root: root)
        guard !marks.isEmpty, old != new else { return }
        add([(new, marks)], root: root)
        remove([(old, Array(marks.keys))], root: root)
    }
}
