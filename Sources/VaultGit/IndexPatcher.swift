import CCrypto
import CGit2
import Foundation
import VaultCore

/// Updates the git index for a few paths without parsing it into memory structures.
///
/// The index of a 50,000-file vault is about 5 MB. Loading it into libgit2, changing one
/// entry and writing it back costs tens of milliseconds, most of it building and hashing
/// structures for entries that do not change. This patcher follows git's own format
/// (`Documentation/gitformat-index.txt`): it walks the entries to find the changed paths,
/// splices their 62-byte records (stat data from the file on disk, so `git status` needs no
/// re-hash), drops the extensions that describe entries it moved (the cache tree, the
/// untracked cache, the offset tables: all optional, git rebuilds them), keeps the rest,
/// and writes the result under git's `index.lock` protocol with a fresh SHA-1 checksum.
///
/// It handles versions 2 and 3 without conflicts or required extensions; for anything
/// else it answers `false` and the caller uses libgit2.
enum IndexPatcher {
    struct Update {
        var path: String
        /// nil removes the entry.
        var oid: git_oid?
    }

    /// Emits the index `old` with `updates` applied, in pieces (runs of unchanged entries are
    /// passed straight from `old`), ending with its SHA-1 checksum; so it can be written to
    /// `index.lock` as it is made, with no copy. Returns false, having emitted nothing, when
    /// this index is one it leaves to libgit2; false also when `emit` fails.
    static func patch(
        _ updates: [Update], old: [UInt8], workdir: String, digests: String? = nil, reserve: (Int) -> Void = { _ in },
        emit: (UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        old.withUnsafeBytes {
            patch(updates, old: $0, workdir: workdir, digests: digests, reserve: reserve, emit: emit)
        }
    }

    /// `patch(_:old:workdir:reserve:emit:)` of an index in memory, e.g. the index mapped
    /// (`MappedBytes`: it is only ever replaced by rename, so the mapping stays whole), which
    /// spares the copy of 5 MB into the process and its page faults.
    ///
    /// `digests`, when given, is the side file of the index's SHA-1 states (`IndexDigests`): the
    /// checksum is then taken from the state saved before the first changed byte, so only the
    /// bytes from there on are hashed (a chat turn changes one entry, most of the way into a
    /// 5 MB index), and the new index's states are saved in it for the next commit.
    static func patch(
        _ updates: [Update], old: UnsafeRawBufferPointer, workdir: String, digests: String? = nil,
        reserve: (Int) -> Void = { _ in }, emit: (UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        guard old.count >= 32, old[0..<4].elementsEqual("DIRC".utf8) else { return false }
        let version = be32(old, 4)
        guard version == 2 || version == 3 else { return false }
        let count = Int(be32(old, 8))
        let body = old.count - 20
        // The entries, 12 bytes each (50,000 of them on a 50,000-file vault: a larger record
        // cost more in fresh pages than the walk itself); an entry ends where the next begins.
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var p = 12
        for _ in 0..<count {
            guard p + 62 <= body else { return false }
            let flags = Int(be16(old, p + 60))
            let extended = flags & 0x4000 != 0
            let nameStart = p + 62 + (extended ? 2 : 0)
            var nameEnd = nameStart + (flags & 0xFFF)
            if flags & 0xFFF == 0xFFF {
                nameEnd = nameStart
                while nameEnd < body, old[nameEnd] != 0 { nameEnd += 1 }
            }
            let size = ((nameEnd - p) + 8) & ~7
            guard nameEnd < body, p + size <= body else { return false }
            // Conflicts (stages 1–3): let libgit2 handle them.
            guard (flags >> 12) & 3 == 0, p + size <= Int(UInt32.max) else { return false }
            entries.append(Entry(start: UInt32(p), nameStart: UInt32(nameStart), nameEnd: UInt32(nameEnd)))
            p += size
        }
        // Extensions: keep REUC; drop the optional ones that describe entries; refuse required ones.
        var kept: [UInt8] = []
        var q = p
        while q + 8 <= body {
            let signature = old[q..<(q + 4)]
            let size = Int(be32(old, q + 4))
            guard q + 8 + size <= body else { return false }
            if let first = signature.first, first >= 97, first <= 122 { return false }  // required: not for us
            if signature.elementsEqual("REUC".utf8) { kept += old[q..<(q + 8 + size)] }
            q += 8 + size
        }
        guard q == body else { return false }

        // New entries, in path order (git sorts by the bytes of the path).
        var replacement: [Int: [UInt8]] = [:]  // entry index → new bytes ([] removes)
        var inserts: [(at: Int, name: [UInt8], bytes: [UInt8])] = []
        for update in updates {
            let name = Array(update.path.utf8)
            let position = lowerBound(entries.count) { k in old[entries[k].name].lexicographicallyPrecedes(name) }
            let exists = position < entries.count && old[entries[position].name].elementsEqual(name)
            var bytes: [UInt8] = []
            if var oid = update.oid {
                guard let record = entry(for: update.path, name: name, oid: &oid, workdir: workdir) else {
                    return false
                }
                bytes = record
            }
            if exists {
                replacement[position] = bytes
            } else if !bytes.isEmpty {
                inserts.append((position, name, bytes))
            }
        }
        inserts.sort { $0.at != $1.at ? $0.at < $1.at : $0.name.lexicographicallyPrecedes($1.name) }
        // Emit the unchanged runs of entries whole, splicing in the changed ones.
        var edits: [(at: Int, replaces: Bool, bytes: [UInt8])] = inserts.map { ($0.at, false, $0.bytes) }
        for (k, bytes) in replacement { edits.append((k, true, bytes)) }
        edits.sort { $0.at != $1.at ? $0.at < $1.at : (!$0.replaces && $1.replaces) }
        let newCount = entries.count + inserts.count - replacement.values.filter(\.isEmpty).count
        // The first byte of the new index that may differ from the old one: the entry count, or
        // the first entry edited (or inserted before), or the extensions.
        let firstChange =
            newCount != count ? 8 : edits.first.map { $0.at < entries.count ? Int(entries[$0.at].start) : p } ?? p
        // The SHA-1 state after the old index's first (k + 1) × step bytes, for every k up to the
        // first change: the same bytes begin the new index.
        let step = IndexDigests.step
        var states = digests.map { IndexDigests.read($0, of: old) } ?? []
        states.removeSubrange(min(states.count, firstChange / step)...)
        var digest = SHA_CTX()
        if let last = states.last {
            digest = last
        } else {
            guard SHA1_Init(&digest) == 1 else { return false }
        }
        var hashedFrom = states.count * step  // the bytes before this one are in `digest`
        var offset = 0  // where in the new index the next piece goes
        func send(_ piece: UnsafeRawBufferPointer) -> Bool {
            guard piece.count > 0 else { return true }
            var at = max(0, min(piece.count, hashedFrom - offset))
            while at < piece.count {
                // Up to the next saved state, or the piece's end.
                let next = (states.count + 1) * step
                let upTo = min(piece.count, next - offset)
                guard SHA1_Update(&digest, piece.baseAddress! + at, upTo - at) == 1 else { return false }
                at = upTo
                if offset + at == next { states.append(digest) }
            }
            offset += piece.count
            hashedFrom = max(hashedFrom, offset)
            return emit(piece)
        }
        var header = Array(old[0..<12])
        put32(&header, 8, UInt32(newCount))
        // The new index's size, known before a byte of it is written.
        var size = 12 + (p - 12) + kept.count + 20
        for edit in edits {
            let end = edit.at + 1 < entries.count ? Int(entries[edit.at + 1].start) : p
            size += edit.bytes.count - (edit.replaces ? end - Int(entries[edit.at].start) : 0)
        }
        reserve(size)
        let src = old
        do {
            var copied = 0  // entries before this index are emitted
            func sendEntries(upTo k: Int) -> Bool {
                guard k > copied else { return true }
                let from = copied < entries.count ? Int(entries[copied].start) : p
                let to = k < entries.count ? Int(entries[k].start) : p
                copied = k
                return send(UnsafeRawBufferPointer(rebasing: src[from..<to]))
            }
            guard header.withUnsafeBytes(send) else { return false }
            for edit in edits {
                guard sendEntries(upTo: edit.at), edit.bytes.withUnsafeBytes(send) else { return false }
                if edit.replaces { copied = edit.at + 1 }
            }
            guard sendEntries(upTo: entries.count), kept.withUnsafeBytes(send) else { return false }
            var sum = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
            guard SHA1_Final(&sum, &digest) == 1 else { return false }
            guard sum.withUnsafeBytes({ emit($0) }) else { return false }
            if let digests { IndexDigests.save(states, size: offset + sum.count, checksum: sum, to: digests) }
            return true
        }
    }

    /// The index record of a file or a symbolic link (the link's own stat data and mode 120000,
    /// as git records it): stat data, mode, id, flags and the NUL-padded path.
    static func entry(for path: String, name: [UInt8], oid: inout git_oid, workdir: String) -> [UInt8]? {
        var st = stat()
        guard lstat(workdir + "/" + path, &st) == 0 else { return nil }
        var e: [UInt8] = []
        e.reserveCapacity(64 + name.count + 8)
        func add(_ v: UInt32) {
            e += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        add(UInt32(truncatingIfNeeded: st.st_ctim.tv_sec))
        add(UInt32(truncatingIfNeeded: st.st_ctim.tv_nsec))
        add(UInt32(truncatingIfNeeded: st.st_mtim.tv_sec))
        add(UInt32(truncatingIfNeeded: st.st_mtim.tv_nsec))
        add(UInt32(truncatingIfNeeded: st.st_dev))
        add(UInt32(truncatingIfNeeded: st.st_ino))
        if st.st_mode & S_IFMT == S_IFLNK {
            add(0o120000)
        } else {
            add(st.st_mode & 0o111 != 0 ? 0o100755 : 0o100644)
        }
        add(st.st_uid)
        add(st.st_gid)
        add(UInt32(truncatingIfNeeded: st.st_size))
        withUnsafeBytes(of: &oid.id) { e += $0 }
        let flags = UInt16(min(name.count, 0xFFF))
        e += [UInt8(flags >> 8), UInt8(flags & 0xFF)]
        e += name
        let padded = (e.count + 8) & ~7
        e += [UInt8](repeating: 0, count: padded - e.count)
        return e
    }

    /// Where an entry of the old index lies: its first byte and its path's bytes.
    struct Entry {
        var start: UInt32
        var nameStart: UInt32
        var nameEnd: UInt32
        var name: Range<Int> { Int(nameStart)..<Int(nameEnd) }
    }

    static func be32(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static func be16(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }

    static func put32(_ b: inout [UInt8], _ i: Int, _ v: UInt32) {
        b[i] = UInt8(v >> 24)
        b[i + 1] = UInt8((v >> 16) & 0xFF)
        b[i + 2] = UInt8((v >> 8) & 0xFF)
        b[i + 3] = UInt8(v & 0xFF)
    }

    /// The first index in `0..<count` for which `isBefore` is false (binary search).
    static func lowerBound(_ count: Int, _ isBefore: (Int) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if isBefore(mid) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// The git index's SHA-1 states every `step` bytes, saved beside it (`.git/vault-index-digests`)
/// by the commit that wrote it, so the next commit hashes only what follows its first change.
///
/// They belong to one index: the file names the index's size and checksum (its last 20 bytes,
/// the SHA-1 of all the others), and is taken only for an index that ends with them; an index
/// written since by git or libgit2 has another checksum, and is hashed whole. The file is
/// checked by a SHA-1 of its own (a torn or damaged one is ignored), written to a temporary
/// file and renamed, not flushed: losing it only costs the next commit a whole hash. It is
/// written while the commit holds `index.lock`, so no two writers meet.
///
/// Layout: `VAULTIDX`, the state's size (UInt32), the count of states (UInt32), the index's
/// size (UInt64), its checksum (20 bytes), the states (`SHA_CTX`, as this build lays it out:
/// a state of another size is not taken), then the SHA-1 of everything before it. Integers
/// little-endian.
enum IndexDigests {
    /// Bytes of index between two states: 80 states (7.7 KB) for a 5 MB index.
    static let step = 64 * 1024
    static let magic = Array("VAULTIDX".utf8)
    static let headerSize = 8 + 4 + 4 + 8 + 20

    /// The states saved for the index `index`, or none.
    static func read(_ path: String, of index: UnsafeRawBufferPointer) -> [SHA_CTX] {
        guard index.count >= 32, let bytes = try? FileIO.read(path), bytes.count >= headerSize + 20 else { return [] }
        let width = MemoryLayout<SHA_CTX>.size
        return bytes.withUnsafeBytes { b -> [SHA_CTX] in
            guard b[0..<8].elementsEqual(magic), Int(le32(b, 8)) == width else { return [] }
            let count = Int(le32(b, 12))
            guard count <= index.count / step, bytes.count == headerSize + count * width + 20 else { return [] }
            guard Int(le32(b, 16)) | Int(le32(b, 20)) << 32 == index.count,
                b[24..<44].elementsEqual(index[(index.count - 20)...])
            else { return [] }
            var check = [UInt8](repeating: 0, count: 20)
            SHA1(b.baseAddress!.assumingMemoryBound(to: UInt8.self), b.count - 20, &check)
            guard b[(b.count - 20)...].elementsEqual(check) else { return [] }
            return (0..<count).map { k in
                b.loadUnaligned(fromByteOffset: headerSize + k * width, as: SHA_CTX.self)
            }
        }
    }

    /// Saves `states`, those of the index of `size` bytes ending with `checksum`.
    static func save(_ states: [SHA_CTX], size: Int, checksum: [UInt8], to path: String) {
        var bytes = magic
        func add32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        add32(UInt32(MemoryLayout<SHA_CTX>.size))
        add32(UInt32(states.count))
        add32(UInt32(truncatingIfNeeded: size))
        add32(UInt32(truncatingIfNeeded: size >> 32))
        bytes += checksum
        for var state in states { withUnsafeBytes(of: &state) { bytes += $0 } }
        var check = [UInt8](repeating: 0, count: 20)
        SHA1(bytes, bytes.count, &check)
        bytes += check
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        if written != bytes.count || rename(temporary, path) != 0 { unlink(temporary) }
    }

    static func le32(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
}

/// git's lock on the index (`index.lock`, created exclusively; `HeldLock`), held while a commit
/// is made: the new index is written into the lock file and renamed over the index only after
/// the branch has moved, so the index never runs ahead of HEAD.
final class IndexLock: @unchecked Sendable {
    // Used by one thread at a time: the thread that writes the new index, then (after the
    // DispatchGroup wait) the committing thread.
    let indexPath: String
    /// `IndexDigests`' file.
    private let digestsPath: String
    private let lock: HeldLock
    var lockPath: String { lock.lockPath }

    init(gitDirectory: String) throws(VaultError) {
        indexPath = gitDirectory + "/index"
        digestsPath = gitDirectory + "/vault-index-digests"
        lock = try HeldLock(gitDirectory: gitDirectory, name: "index.lock", whenLocked: "Your files are saved.")
    }

    /// Writes into the lock file the index with `updates` spliced in (`IndexPatcher`, stat data
    /// from the files in `workdir`); false when the patcher leaves this index alone (none yet,
    /// conflicts, another version): then `finish` must not be called.
    func patch(_ updates: [IndexPatcher.Update], workdir: String) -> Bool {
        // Mapped, not read: git and vault replace the index by renaming, never in place.
        guard let old = MappedBytes(file: indexPath, populate: true) else { return false }
        return IndexPatcher.patch(
            updates, old: UnsafeRawBufferPointer(old.buffer), workdir: workdir, digests: digestsPath,
            reserve: reserve, emit: write)
    }

    /// Bytes written into the lock file so far.
    private var written = 0

    /// Appends `piece` to the new index in the lock file.
    func write(_ piece: UnsafeRawBufferPointer) -> Bool {
        defer { written += piece.count }
        return lock.write(piece)
    }

    /// Allocates the new index's disk blocks before it is written. ext4 flushes a file renamed
    /// over another before the rename returns when its blocks are not allocated yet, which
    /// held up the committing thread for the whole index (5 MB on a 50,000-file vault);
    /// allocated blocks are not. Like git, vault does not wait for the index to reach the
    /// disk: it is rebuilt from HEAD if lost.
    func reserve(_ size: Int) {
        _ = posix_fallocate(lock.fd, 0, off_t(size))
    }

    /// Renames the lock, holding the new index written with `write`, over the index.
    func finish() throws(VaultError) {
        // Exactly what was written, whatever was reserved.
        try lock.finish(renamingTo: indexPath, durable: false, truncatingTo: written)
    }

    /// Gives the lock up without changing the index.
    func release() { lock.release() }
}
