#if canImport(Glibc)
import Glibc
#endif

extension Vault {
    /// The room `name` stands for without listing the vault, as a command with almost no file
    /// descriptors can find it: a path (from `workingDirectory`) or a slug of a file in `rooms/`
    /// or a folder right under it (format 2's years; one folder open at a time). Its path in the
    /// vault, or nil (a title, no such room, or a name two rooms have).
    public func roomWithoutListing(_ name: String, from workingDirectory: String) -> String? {
        let rooms = root + "/" + VaultPath.rooms + "/"
        var named = [Vault.absolute(name, from: workingDirectory), rooms + name + ".md"]
        if !name.contains("/"), !FileIO.exists(rooms + name + ".md") {
            let inFolders = FileIO.list(rooms + ".").filter { $0.kind == .directory && !$0.name.hasPrefix(".") }
                .map { rooms + $0.name + "/" + name + ".md" }.filter(FileIO.exists)
            guard inFolders.count <= 1 else { return nil }
            named += inFolders
        }
        guard let full = named.first(where: { FileIO.exists($0) && !FileIO.isDirectory($0) }), full.hasPrefix(rooms)
        else { return nil }
        return String(full.dropFirst(root.count + 1))
    }

    /// Keeps `text` as the room's pending prompt (below its prompt marker, after any text
    /// there already, a blank line between), for when a turn cannot run: `vault chat ROOM`
    /// sends it later (FORMAT.md, "The prompt marker and the pending prompt").
    ///
    /// Made for a process with almost no file descriptors (`ulimit -n`): it holds two at once,
    /// the vault's lock and the room (under an exclusive `flock`, as every append does), writes
    /// only at the room's end (no journal: a torn write leaves part of the text below the marker,
    /// never in a message) and commits nothing (the next command that changes the vault commits
    /// it as a hand edit).
    ///
    ///     try vault.keepAsPendingPrompt("hello", inRoom: "rooms/busan.md")
    public func keepAsPendingPrompt(_ text: String, inRoom path: String) throws(VaultError) {
        if isReadOnly { throw VaultError.readOnly(root: root, operation: "keep a message in \(path)") }
        let lock = try VaultLock(vaultRoot: root)
        defer { withExtendedLifetime(lock) {} }
        let full = absolute(path)
        let fd = open(full, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw VaultError.io(path: path, operation: "open", reason: FileIO.errorText()) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw VaultError.io(path: path, operation: "read", reason: FileIO.errorText()) }
        let bytes = try FileIO.pread(fd, offset: 0, count: Int(info.st_size), path: path)
        let room = try RoomFile(parsing: bytes, path: path)
        var addition = bytes.last == 0x0A || bytes.isEmpty ? "" : "\n"
        if room.promptMarkerOffset == nil {
            addition += "\n" + RoomFile.promptMarkerLine + "\n"
        } else if room.pendingPrompt != nil {
            addition += "\n"
        }
        addition += text + "\n"
        let written = Array(addition.utf8).withUnsafeBytes { b -> Int in
            var done = 0
            while done < b.count {
                let n = pwrite(fd, b.baseAddress! + done, b.count - done, off_t(bytes.count + done))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return -1 }
                done += n
            }
            return done
        }
        guard written >= 0, fsync(fd) == 0 else {
            let reason = FileIO.errorText()
            _ = ftruncate(fd, off_t(bytes.count))
            throw VaultError.io(path: path, operation: "write", reason: reason)
        }
    }
}
