import CGit2
import Foundation
import Synchronization
import VaultCore

/// How far this machine has checked who wrote the commits its branch holds (issue #36): every
/// way commits arrive (`vault sync`, `vault clone`, a plain `git clone`, `git pull`, `git merge`,
/// `git am`, a fast-forward by hand) is checked the same way, by the next vault command.
///
/// `.vault/authorship-checked` holds commit ids, one a line: the first is HEAD as the last check
/// (or vault's last commit) left it, and every commit reachable from one of the lines has been
/// checked. A command compares HEAD (read from `.git` as git writes it, without libgit2) with the
/// first line: the same, nothing came in (`isCurrent`). Otherwise `Authorship.checkArrived` walks
/// the commits HEAD reaches and no line does. Local to the machine, like the marks it leads to.
///
/// A commit vault makes as this machine's person moves the first line with it (`advance`): it
/// was checked as it was made, as before. So does a sync's merge or fast-forward, which
/// `Authorship.check` checked. HEAD moved back (`git reset`) keeps the line it left (up to 8
/// lines), so going forward again re-checks nothing.
package enum AuthorshipCheckpoint {
    static let fileName = "authorship-checked"
    /// Marks of messages HEAD no longer holds (`git reset` back), kept for when it holds them again.
    static let parkedName = "unverified-parked.json"
    /// How many commits, besides HEAD's, are remembered as checked.
    static let keptTips = 8

    /// In `.vault/`, with this machine's other state (unread and unverified marks).
    static func path(root: String) -> String { root + "/" + VaultPath.state + "/" + fileName }

    /// The commits checked (HEAD as last checked first); empty: none yet (a clone, a vault made
    /// before this check existed).
    package static func tips(root: String) -> [String] {
        guard let bytes = try? FileIO.read(path(root: root)) else { return [] }
        return bytes.split(separator: 0x0A).compactMap(AuthorshipCheckpoint.id)
    }

    static func save(_ tips: [String], root: String) {
        try? FileIO.makeDirectory(root + "/" + VaultPath.state)
        // Lost, it costs a check again (of commits that then pass as before): not flushed.
        try? FileIO.write(Array(tips.map { $0 + "\n" }.joined().utf8), to: path(root: root), durable: false)
    }

    /// The 40 hex digits `line` begins with. Bytes, not `String` and Foundation: the check of a
    /// command with nothing new runs before everything else, and must cost nothing.
    static func id(_ line: ArraySlice<UInt8>) -> String? {
        let hex = line.prefix(40)
        guard hex.count == 40, hex.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// HEAD's commit id as git wrote it (`.git/HEAD`, the branch's file or `packed-refs`), nil
    /// when the vault has no repository of its own or no commit yet. No libgit2.
    package static func headID(root: String) -> String? {
        let git = root + "/.git"
        guard let head = try? FileIO.read(git + "/HEAD") else { return nil }
        let prefix = Array("ref: ".utf8)
        guard head.starts(with: prefix) else { return id(head[...]) }
        var end = head.endIndex
        while end > prefix.count, [0x0A, 0x0D, 0x20, 0x09].contains(head[end - 1]) { end -= 1 }
        let ref = String(decoding: head[prefix.count..<end], as: UTF8.self)
        if let bytes = try? FileIO.read(git + "/" + ref), let found = id(bytes[...]) { return found }
        guard let packed = try? FileIO.read(git + "/packed-refs") else { return nil }
        let suffix = Array((" " + ref).utf8)
        for line in packed.split(separator: 0x0A) where line.last == suffix.last && line.suffix(suffix.count).elementsEqual(suffix) {
            return id(line)
        }
        return nil
    }

    /// Whether nothing came in since the last check: HEAD is the first line (one comparison of
    /// two small files), or the vault has no commit to check.
    package static func isCurrent(root: String) -> Bool {
        guard let head = headID(root: root) else { return true }
        return tips(root: root).first == head
    }

    /// A commit vault made on `parent` (nil: the first commit) as this machine's person, or a
    /// sync's merge or fast-forward, checked as it was made: the first line follows it when the
    /// line was at `parent` (else what came in before it is still to be checked, and the next
    /// command checks both). A first commit (`vault init`) makes no file: the next command's
    /// check of one commit does.
    static func advance(from parent: String?, to new: String, root: String) {
        var tips = tips(root: root)
        guard let parent, tips.first == parent else { return }
        tips[0] = new
        save(tips, root: root)
    }

    static func parked(root: String) -> [String: [String: String]] {
        guard let bytes = try? FileIO.read(root + "/" + VaultPath.state + "/" + parkedName),
            let marks = try? JSONDecoder().decode([String: [String: String]].self, from: Data(bytes))
        else { return [:] }
        return marks
    }

    static func saveParked(_ marks: [String: [String: String]], root: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let kept = marks.filter { !$0.value.isEmpty }
        let path = root + "/" + VaultPath.state + "/" + parkedName
        // None to keep: no file (a vault with nothing parked has none).
        guard !kept.isEmpty else {
            if FileIO.exists(path) { try? FileIO.remove(path) }
            return
        }
        guard let data = try? encoder.encode(kept) else { return }
        try? FileIO.makeDirectory(root + "/" + VaultPath.state)
        try? FileIO.write(Array(data), to: path, durable: true)
    }
}

/// What `Authorship.checkArrived` did.
package struct ArrivedCheck: Sendable {
    /// Whether the check found marks to add, move, put aside or give back (with `lookingOnly`:
    /// not written, nor how far it got).
    package var marksToWrite = false
    /// The commits looked at.
    package var commits = 0
    /// Whether HEAD reaches more unchecked commits than one check walks (`walkLimit`): the oldest
    /// were not looked at.
    package var limited = false
    /// The messages marked now: room path → id → why.
    package var marked: [String: [String: String]] = [:]
    /// Marks moved aside (their messages no longer in HEAD) or brought back.
    package var parked = 0
    package var restored = 0
}

extension Authorship {
    /// How many commits one check walks at most, newest first: a clone's first check of a long
    /// history (measured: RELIABILITY.md).
    static let walkLimit = 100_000

    /// Checks the commits HEAD reaches that no earlier check saw (`AuthorshipCheckpoint`), as a
    /// sync checks what it brings: each commit's messages it introduces (its rooms' and volumes'
    /// messages, by id, and each new text of one, that none of its parents has) are compared with
    /// the commit's author and signature (`unverified`, and a claim to be this machine's person not
    /// made by vault as them). A message HEAD still holds that no good commit introduced is marked
    /// (`UnverifiedMarks`) and unread; marks of messages HEAD no longer holds are put aside and
    /// come back with them. The people are those of the `vault.yml` of the commit last checked
    /// (a key that comes in cannot vouch for the commits it came with); a first check (a clone)
    /// takes the `vault.yml` it checks out.
    ///
    /// The caller holds the vault's lock, unless `lookingOnly`: then nothing is written but how
    /// far the check got, and only when it found no mark to add, move or put aside
    /// (`ArrivedCheck.marksToWrite`: the caller then checks again holding the lock).
    package static func checkArrived(history: GitHistory, vault: Vault, lookingOnly: Bool = false) throws(VaultError)
        -> ArrivedCheck
    {
        let root = vault.root
        let tips = AuthorshipCheckpoint.tips(root: root)
        var people = vault.config.people
        if let first = tips.first, let known = try? history.config(at: first) { people = known.people }
        let check = Authorship(history: history, people: people, me: history.author)
        return try check.checkArrived(tips: tips, root: root, lookingOnly: lookingOnly)
    }

    func checkArrived(tips: [String], root: String, limit: Int = Authorship.walkLimit, lookingOnly: Bool = false)
        throws(VaultError) -> ArrivedCheck
    {
        var out = ArrivedCheck()
        guard let head = try history.headCommit() else { return out }
        defer { git_commit_free(head.commit); git_tree_free(head.tree) }
        let headHex = oidString(git_commit_id(head.commit))
        Trace.mark("authorship: HEAD moved since the last check: walking")
        var walk: OpaquePointer?
        try GitFailure.check(git_revwalk_new(&walk, history.repo), "walk the commits that came in")
        defer { git_revwalk_free(walk) }
        git_revwalk_sorting(walk, GIT_SORT_TIME.rawValue)
        var headID = git_commit_id(head.commit).pointee
        try GitFailure.check(git_revwalk_push(walk, &headID), "walk the commits that came in")
        var known: [String] = []
        for tip in tips where !known.contains(tip) {
            var id = git_oid()
            var commit: OpaquePointer?
            // A commit gone (a `git gc` after a reset) hides nothing.
            guard git_oid_fromstr(&id, tip) == 0, git_commit_lookup(&commit, history.repo, &id) == 0 else { continue }
            git_commit_free(commit)
            if git_revwalk_hide(walk, &id) == 0 { known.append(tip) }
        }
        let myKey = Workspace.key(me.name)
        func claimsMe(_ author: Author?) -> Bool { author.map { Workspace.key($0.name) == myKey } ?? false }
        let signed = self.signed
        // Unsigned, only a claim to be me has anything to be checked against.
        let claim = Array(" author=".utf8)
        /// The keys of the messages of `bytes` (a room's or volume's file, or its end from a header on).
        func keys(_ bytes: ArraySlice<UInt8>, _ path: String) -> [String: Author?] {
            guard signed || bytes.firstRange(of: claim) != nil, let file = try? RoomFile(parsing: Array(bytes), path: path)
            else { return [:] }
            var found: [String: Author?] = [:]
            for m in file.messages where signed || claimsMe(m.author) {
                found[m.id] = .some(m.author)
                found[Authorship.key(m)] = .some(m.author)
            }
            return found
        }
        var touched = Set<String>()
        /// The keys `new` has at the room and volume paths that differ from `old`, and `old` lacks.
        /// A file both have is read from the last message header before the first byte they differ
        /// in: what comes before is the same in both (a commit appends a message, most often),
        /// so a long history costs what its commits changed, not its rooms' lengths again and again.
        func introduced(from old: OpaquePointer?, to new: OpaquePointer) throws(VaultError) -> [String: Author?] {
            var added: [String: Author?] = [:]
            var had = Set<String>()
            for change in try changes(from: old, to: new) {
                let kind = VaultPath.kind(of: change.path)
                guard kind == .room || kind == .volume else { continue }
                touched.insert(kind == .room ? change.path : VaultPath.room(ofVolume: change.path) ?? change.path)
                let after = try change.oid.map { id throws(VaultError) in try history.blobBytes(id) }
                let before = try old.flatMap { history.blob(at: change.path, in: $0) }
                    .map { id throws(VaultError) in try history.blobBytes(id) }
                let start = after.flatMap { a in before.map { Authorship.sameUpTo(a, $0) } } ?? 0
                if let after { added.merge(keys(after[start...], change.path)) { a, _ in a } }
                if let before { had.formUnion(keys(before[start...], change.path).keys) }
            }
            return added.filter { !had.contains($0.key) }
        }
        var arrivals: [(commit: git_oid, keys: [String: Author?])] = []
        var next = git_oid()
        while git_revwalk_next(&next, walk) == 0 {
            if out.commits == limit {
                out.limited = true
                break
            }
            out.commits += 1
            var commit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&commit, history.repo, &next), "read a commit that came in")
            defer { git_commit_free(commit) }
            var tree: OpaquePointer?
            try GitFailure.check(git_commit_tree(&tree, commit), "read a commit's tree")
            defer { git_tree_free(tree) }
            let parents = git_commit_parentcount(commit)
            // What a merge introduces is what none of its parents had.
            var found: [String: Author?]? = parents == 0 ? try introduced(from: nil, to: tree!) : nil
            for n in 0..<parents {
                var parent: OpaquePointer?
                try GitFailure.check(git_commit_parent(&parent, commit, n), "read a commit's parent")
                defer { git_commit_free(parent) }
                var parentTree: OpaquePointer?
                try GitFailure.check(git_commit_tree(&parentTree, parent), "read a commit's tree")
                defer { git_tree_free(parentTree) }
                let here = try introduced(from: parentTree, to: tree!)
                found = found.map { $0.filter { here[$0.key] != nil } } ?? here
                if found?.isEmpty == true { break }
            }
            if let found, !found.isEmpty { arrivals.append((next, found)) }
        }
        Trace.mark("authorship: \(out.commits) commits walked, \(arrivals.count) bring messages")
        // What HEAD holds of the rooms those commits changed: only those messages matter.
        let present = try messages(in: touched, at: head.tree)
        let wanted = Set(present.flatMap { [$0.message.id, Authorship.key($0.message)] })
        var good = Set<String>()
        var bad: [String: String] = [:]
        let allowed = Workspace.allowedSigners(people)
        let signing = signed ? history.sshSigning() : nil
        // The commits whose messages HEAD holds, read here (libgit2, one thread); their signatures
        // checked by `ssh-keygen` on every core at once (a program run per commit, as
        // `git log --show-signature` runs it).
        var checks: [(made: Made, keys: [String: Author?], signed: (data: [UInt8], signature: [UInt8])?)] = []
        for arrival in arrivals {
            let keys = arrival.keys.filter { wanted.contains($0.key) }
            guard !keys.isEmpty else { continue }
            var id = arrival.commit
            var commit: OpaquePointer?
            try GitFailure.check(git_commit_lookup(&commit, history.repo, &id), "read a commit that came in")
            defer { git_commit_free(commit) }
            checks.append((Made(commit: commit!), keys, signing == nil ? nil : history.signedParts(of: commit!)))
        }
        let signers = Mutex<[Int: SSHSigning.Signer]>([:])
        if let signing {
            let parallel = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
            let parts = checks.map(\.signed)
            // The person every message of the commit names, when they name one: checked first.
            let expected: [String?] = checks.map { check in
                let named = Set(check.keys.values.map { claimed in
                    claimed.flatMap { a in people.first { $0.key == Workspace.key(a.name) }?.principal } ?? ""
                })
                return named.count == 1 && named.first != "" ? named.first : nil
            }
            let pending = parts.indices.filter { parts[$0] != nil }
            DispatchQueue.concurrentPerform(iterations: min(parallel, max(1, pending.count))) { lane in
                for k in stride(from: lane, to: pending.count, by: parallel) {
                    let i = pending[k]
                    let parts = parts[i]!
                    let signer = signing.signer(
                        of: parts.data, signature: parts.signature, allowedSigners: allowed, expecting: expected[i])
                    signers.withLock { $0[i] = signer }
                }
            }
        }
        let found = signers.withLock { $0 }
        Trace.mark("authorship: \(checks.count) commits checked\(signing == nil ? "" : " (\(found.count) signatures)")")
        for (i, check) in checks.enumerated() {
            let signer: SSHSigning.Signer? = signing == nil ? nil : found[i] ?? .unsigned
            for (key, claimed) in check.keys {
                var why = signer.flatMap { unverified(claimed: claimed, signer: $0, made: check.made) }
                if why == nil, claimsMe(claimed), !check.made.isMine(me) {
                    why = "claims to be you, but was written as \(check.made.who) (commit \(check.made.short)), not on a machine of yours"
                }
                if let why { bad[key] = bad[key] ?? why } else { good.insert(key) }
            }
        }
        Trace.mark("authorship: \(bad.count) versions not borne out")
        // Marked: a message whose id no good commit brought, else its text as HEAD has it.
        var marks: [String: [String: String]] = [:]
        var whereNow: [String: String] = [:]
        for (room, message) in present {
            whereNow[message.id] = room
            if !good.contains(message.id), let why = bad[message.id] {
                marks[room, default: [:]][message.id] = why
            } else if !good.contains(Authorship.key(message)), let why = bad[Authorship.key(message)] {
                marks[room, default: [:]][message.id] = "edited: " + why
            }
        }
        // Marks of messages HEAD no longer holds where they were are put aside (`git reset`
        // back), and come back when it holds them again (forward again); a mark whose message a
        // commit that came in moved to another room (a rename by plain git) moves with it.
        let current = UnverifiedMarks.load(root: root)
        var parked = AuthorshipCheckpoint.parked(root: root)
        let ids = Set(current.values.flatMap(\.keys) + parked.values.flatMap(\.keys))
        let held = try heldIDs(rooms: Set(current.keys).union(parked.keys), ids: ids, at: head.tree)
        var removals: [(path: String, ids: [String])] = []
        var carried: [String: [String: String]] = [:]  // marks kept, not new: not made unread again
        for (room, reasons) in current {
            let gone = reasons.filter { !held.contains(room + "\n" + $0.key) }
            guard !gone.isEmpty else { continue }
            for (id, why) in gone {
                if let moved = whereNow[id], moved != room {
                    carried[moved, default: [:]][id] = why
                } else {
                    parked[room, default: [:]][id] = why
                    out.parked += 1
                }
            }
            removals.append((room, Array(gone.keys)))
        }
        for (room, reasons) in parked {
            for (id, why) in reasons where !good.contains(id) {
                guard let there = held.contains(room + "\n" + id) ? room : whereNow[id] else { continue }
                parked[room]?[id] = nil
                carried[there, default: [:]][id] = why
                out.restored += 1
            }
        }
        // New marks only: a message already marked keeps its mark, and its read or unread state.
        var added: [String: [String: String]] = [:]
        for (room, reasons) in marks {
            for (id, why) in reasons where current[room]?[id] == nil && carried[room]?[id] == nil {
                added[room, default: [:]][id] = why
            }
        }
        out.marked = added
        out.marksToWrite = !removals.isEmpty || !carried.isEmpty || !added.isEmpty || out.restored > 0
        if lookingOnly && out.marksToWrite { return out }
        if out.marksToWrite {
            UnverifiedMarks.remove(removals, root: root)
            UnverifiedMarks.add(carried.map { (path: $0.key, reasons: $0.value) }, root: root)
            UnverifiedMarks.add(added.map { (path: $0.key, reasons: $0.value) }, root: root)
            UnreadMarks.add(added.map { (path: $0.key, ids: $0.value.keys.sorted()) }, root: root)
            AuthorshipCheckpoint.saveParked(parked, root: root)
        }
        // HEAD first; the others kept while HEAD does not reach them.
        var kept = [headHex]
        for tip in known where tip != headHex && kept.count <= AuthorshipCheckpoint.keptTips {
            var a = git_commit_id(head.commit).pointee
            var b = git_oid()
            guard git_oid_fromstr(&b, tip) == 0 else { continue }
            if git_graph_descendant_of(history.repo, &a, &b) != 1 { kept.append(tip) }
        }
        AuthorshipCheckpoint.save(kept, root: root)
        Trace.mark("authorship: checked up to \(headHex.prefix(7)), \(added.count) rooms marked")
        return out
    }

    /// Where two versions of a file begin to differ, backed up to the start of the message header
    /// line before it (`## … <!-- … -->`; 0 when there is none): every message before it is the same
    /// in both, byte for byte.
    static func sameUpTo(_ a: [UInt8], _ b: [UInt8]) -> Int {
        let count = min(a.count, b.count)
        var same = a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                var n = 0
                // Blocks first (memcmp), then byte by byte.
                while n + 4096 <= count, memcmp(x.baseAddress! + n, y.baseAddress! + n, 4096) == 0 { n += 4096 }
                while n < count, x[n] == y[n] { n += 1 }
                return n
            }
        }
        if same == a.count && same == b.count { return 0 }
        // Back to the start of a line "## …<!-- …": a message's header.
        while same > 0 {
            guard let nl = a[..<same].lastIndex(of: 0x0A) else { return 0 }
            let line = a[(nl + 1)...].prefix { $0 != 0x0A }
            if line.starts(with: [0x23, 0x23, 0x20]), line.firstRange(of: Array("<!-- ".utf8)) != nil {
                return nl + 1
            }
            same = nl
        }
        return 0
    }

    /// The room and volume files that differ between `old` (nil: an empty tree) and `new`.
    private func changes(from old: OpaquePointer?, to new: OpaquePointer) throws(VaultError) -> [TreeMerge.Change] {
        if let old { return try history.directChanges(from: old, to: new) }
        var options = git_diff_options()
        git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION))
        var diff: OpaquePointer?
        try GitFailure.check(git_diff_tree_to_tree(&diff, history.repo, nil, new, &options), "read the first commit")
        defer { git_diff_free(diff) }
        var out: [TreeMerge.Change] = []
        for i in 0..<git_diff_num_deltas(diff) {
            guard let delta = git_diff_get_delta(diff, i)?.pointee else { continue }
            out.append(TreeMerge.Change(path: String(cString: delta.new_file.path), oid: delta.new_file.id))
        }
        return out
    }

    /// The messages `tree` holds in each of `rooms` (its file and its volumes), by room path.
    private func messages(in rooms: Set<String>, at tree: OpaquePointer) throws(VaultError)
        -> [(room: String, message: Message)]
    {
        var out: [(room: String, message: Message)] = []
        for room in rooms.sorted() {
            for (path, blob) in try files(of: room, at: tree) {
                guard let file = try? RoomFile(parsing: try history.blobBytes(blob), path: path) else { continue }
                out += file.messages.map { (room, $0) }
            }
        }
        return out
    }

    /// "room\nid" for each of `ids` that `tree`'s version of one of `rooms` holds (its bytes).
    private func heldIDs(rooms: Set<String>, ids: Set<String>, at tree: OpaquePointer) throws(VaultError) -> Set<String>
    {
        var out = Set<String>()
        for room in rooms {
            for (_, blob) in try files(of: room, at: tree) {
                let bytes = try history.blobBytes(blob)
                for id in ids where bytes.firstRange(of: Array(id.utf8)) != nil { out.insert(room + "\n" + id) }
            }
        }
        return out
    }

    /// A room's file and its volumes' in `tree`.
    private func files(of room: String, at tree: OpaquePointer) throws(VaultError) -> [(String, git_oid)] {
        var out: [(String, git_oid)] = []
        if let blob = history.blob(at: room, in: tree) { out.append((room, blob)) }
        let folder = VaultPath.volumeFolder(ofRoom: room)
        guard let sub = try history.subtree(folder, of: git_tree_id(tree).pointee) else { return out }
        let raw = try history.trees.read(sub)
        for e in GitHistory.entries(of: raw) where !e.isTree {
            let name = String(decoding: raw[e.name], as: UTF8.self)
            out.append((folder + "/" + name, TreeEditor.oid(raw, at: e.oid)))
        }
        return out
    }
}

extension GitHistory {
    /// A commit's signature and the bytes it signs (`git_commit_extract_signature`); nil: unsigned.
    func signedParts(of commit: OpaquePointer) -> (data: [UInt8], signature: [UInt8])? {
        var signature = git_buf()
        var data = git_buf()
        defer { git_buf_dispose(&signature); git_buf_dispose(&data) }
        var id = git_commit_id(commit).pointee
        guard git_commit_extract_signature(&signature, &data, repo, &id, nil) == 0, let sig = signature.ptr,
            let signed = data.ptr
        else { return nil }
        return (
            Array(UnsafeRawBufferPointer(start: signed, count: data.size)),
            Array(UnsafeRawBufferPointer(start: sig, count: signature.size))
        )
    }

    /// `Authorship.checkArrived` for `vault`, whose lock the caller holds.
    package func checkArrivedAuthors(in vault: Vault, lookingOnly: Bool = false) throws(VaultError) -> ArrivedCheck {
        try Authorship.checkArrived(history: self, vault: vault, lookingOnly: lookingOnly)
    }

    /// `vault.yml` as the commit `hex` has it.
    func config(at hex: String) throws(VaultError) -> VaultConfig? {
        var id = git_oid()
        guard git_oid_fromstr(&id, hex) == 0 else { return nil }
        var commit: OpaquePointer?
        guard git_commit_lookup(&commit, repo, &id) == 0 else { return nil }
        defer { git_commit_free(commit) }
        var tree: OpaquePointer?
        guard git_commit_tree(&tree, commit) == 0 else { return nil }
        defer { git_tree_free(tree) }
        guard let blob = blob(at: VaultPath.config, in: tree) else { return nil }
        return try VaultConfig(parsing: try blobBytes(blob))
    }
}

extension SSHSigning {
    /// `signer(of:signature:allowedSigners:)` with one program run where it needs two, when the
    /// signature is by the key of `principal` (the person the commit's messages name, as nearly
    /// every commit's is): `ssh-keygen -Y verify -I principal` first; only when that fails,
    /// `find-principals` and `verify` say whose key it was.
    func signer(of data: [UInt8], signature: [UInt8], allowedSigners: String, expecting principal: String?) -> Signer {
        guard let principal,
            String(decoding: signature.prefix(40), as: UTF8.self).hasPrefix("-----BEGIN SSH SIGNATURE-----")
        else { return signer(of: data, signature: signature, allowedSigners: allowedSigners) }
        let n = SSHSigning.expectedCounter.withLock { n in
            n += 1
            return n
        }
        let base = scratch + "/vault-verify-as-\(getpid())-\(n)"
        defer { for suffix in ["", ".sig", ".allowed"] { unlink(base + suffix) } }
        do {
            try FileIO.write(data, to: base, durable: false)
            try FileIO.write(signature, to: base + ".sig", durable: false)
            try FileIO.write(Array(allowedSigners.utf8), to: base + ".allowed", durable: false)
            let verified = try ChildProcess.run(
                program,
                ["-Y", "verify", "-f", base + ".allowed", "-I", principal, "-n", SSHSigning.namespace, "-s", base + ".sig"],
                environment: environment, stdinFile: base)
            if verified.status == 0 { return .person(principal: principal) }
        } catch {}
        return signer(of: data, signature: signature, allowedSigners: allowedSigners)
    }

    private static let expectedCounter = Mutex<Int>(0)
}
