import Foundation

extension Vault {
    /// Every problem in the vault: `vault.yml`, every room and every diary entry, symbolic
    /// links in `rooms/` and `diary/`, and names that differ only in Unicode normalization.
    ///
    /// Files are read and parsed in parallel; problems come back sorted by path and line.
    public func check() -> [FormatProblem] {
        let rooms = roomPaths()
        let entries = diaryPaths()
        return check(rooms: rooms, entries: entries, wholeVault: true)
    }

    /// The problems of the rooms and entries named (`vault check FILE…`), sorted by path and line:
    /// each file as `check()` reads it, a symbolic link or a conflict copy among them too;
    /// nothing of the rest of the vault is read or listed, and the check cache keeps what it
    /// knows of the other files.
    public func check(_ items: [VaultItem]) -> [FormatProblem] {
        var rooms: [String] = []
        var entries: [String] = []
        for item in items {
            switch item {
            case .room(let path): if !rooms.contains(path) { rooms.append(path) }
            case .diaryEntry(let path): if !entries.contains(path) { entries.append(path) }
            }
        }
        return check(rooms: rooms, entries: entries, wholeVault: false)
    }

    /// A file found clean is not read again while it keeps the stamp it had (`ListingCache`,
    /// kind `check`, one cache per build of vault: its rules may change); a file with a
    /// problem is read every time.
    private func check(rooms: [String], entries: [String], wholeVault: Bool) -> [FormatProblem] {
        // A few files named cost less to read than the cache of every file does to load.
        let few = !wholeVault && rooms.count + entries.count < ListingCache.worthLoading
        var cache =
            few
            ? ListingCache.none(context: ListingCache.programIdentity)
            : ListingCache(
                root: root, kind: "check", context: ListingCache.programIdentity, environment: settings.environment)
        let perFile = summarized(rooms + entries, onlyThese: !wholeVault, cache: &cache) { _, _, _ -> [FormatProblem]? in
            []
        } read: { path -> ([FormatProblem], [String?]?) in
            do {
                let bytes = try FileIO.read(absolute(path))
                // A room is in `rooms/`, an entry in `diary/` (no set of 50,000 paths to hash).
                let found = path.hasPrefix(VaultPath.rooms + "/")
                    ? RoomFile.problems(in: bytes, path: path) : DiaryFile.problems(in: bytes, path: path)
                return (found, found.isEmpty ? [] : nil)
            } catch {
                return ([FormatProblem(path: path, line: 1, kind: .invalidSetting(key: "file", reason: "\(error)"))], nil)
            }
        }.map { $0 ?? [] }
        var problems: [FormatProblem] = []
        if wholeVault {
            do {
                _ = try VaultConfig(parsing: try FileIO.read(absolute(VaultPath.config)))
            } catch {
                if case .malformed(let list) = error { problems += list }
            }
        }
        problems += perFile.joined()
        guard wholeVault else {
            // Only the named files are looked at: is each a copy whose original is there?
            for copy in rooms + entries {
                guard let original = ConflictCopy.original(of: copy), FileIO.exists(absolute(original)) else { continue }
                problems.append(FormatProblem(path: copy, line: 1, kind: .conflictCopy(of: original)))
            }
            return problems.sorted { ($0.path, $0.line) < ($1.path, $1.line) }
        }
        Trace.mark("check: files read")
        problems += checkVolumes()
        let (links, special) = linksAndSpecialFiles()
        for found in links {
            problems.append(FormatProblem(path: found.path, line: 1, kind: .symbolicLink(to: found.target, found.link)))
        }
        for (path, kind) in special {
            problems.append(FormatProblem(path: path, line: 1, kind: .notRegularFile(kind)))
        }
        Trace.mark("check: symbolic links found")
        for (path, other) in lookAlikeNames(among: rooms + entries) {
            problems.append(FormatProblem(path: path, line: 1, kind: .lookAlikeName(of: other)))
        }
        Trace.mark("check: look-alike names compared")
        // The files listed above, not listed again.
        for (copy, original) in Vault.conflictCopies(among: rooms + entries) {
            problems.append(FormatProblem(path: copy, line: 1, kind: .conflictCopy(of: original)))
        }
        if FileIO.exists(root + "/.git/MERGE_HEAD") {
            problems.append(FormatProblem(path: ".git/MERGE_HEAD", line: 1, kind: .unfinishedMerge))
        }
        return problems.sorted { ($0.path, $0.line) < ($1.path, $1.line) }
    }
}

extension Vault {
    /// Every `*.md` file in `volumes/` (format 3: `RoomVolumes`), as `roomPaths` gives rooms:
    /// none, after one failed open, in a vault without volumes.
    public func volumePaths() -> [String] { markdownFiles(under: VaultPath.volumes, sorted: true) }

    /// The problems of the files in `volumes/` (`RoomVolumes`): each read as a room, each with
    /// its room there and a volume's name. None, and one failed open, in a vault without volumes.
    func checkVolumes() -> [FormatProblem] {
        var problems: [FormatProblem] = []
        // Each room's message ids, file by file, with their texts: a volume pushed by someone may
        // hold the file's under another text. (The same text twice is what a rollover killed
        // midway leaves, which the next rollover clears; another text, what a merge keeps when one
        // machine moved a message the other edited: FORMAT.md, "Merging".)
        var idsOfRoom: [String: [String: (path: String, body: String)]] = [:]
        for path in volumePaths() {
            guard let room = VaultPath.room(ofVolume: path) else {
                problems.append(FormatProblem(path: path, line: 1, kind: .notAVolume))
                continue
            }
            if !FileIO.exists(absolute(room)) {
                problems.append(FormatProblem(path: path, line: 1, kind: .volumeWithoutRoom(room)))
            }
            do {
                let bytes = try FileIO.read(absolute(path))
                problems += RoomFile.problems(in: bytes, path: path)
                if idsOfRoom[room] == nil {
                    let file = (try? FileIO.read(absolute(room))).flatMap { try? RoomFile.readingWhatCan($0, path: room) }
                    idsOfRoom[room] = Dictionary(
                        file?.messages.map { ($0.id, (room, $0.body)) } ?? [], uniquingKeysWith: { a, _ in a })
                }
                for m in (try? RoomFile.readingWhatCan(bytes, path: path))?.messages ?? [] {
                    if let other = idsOfRoom[room]?[m.id], other.path != path {
                        if other.body != m.body {
                            problems.append(
                                FormatProblem(path: path, line: m.line, kind: .messageInTwoFiles(m.id, other: other.path)))
                        }
                    } else {
                        idsOfRoom[room]?[m.id] = (path, m.body)
                    }
                }
            } catch {
                problems.append(FormatProblem(path: path, line: 1, kind: .invalidSetting(key: "file", reason: "\(error)")))
            }
        }
        return problems
    }

    /// Conflict copies in `rooms/` and `diary/` (Syncthing's, Dropbox's, vault's own) whose
    /// original exists, as (copy, original) paths.
    /// Every message kept in two versions that is still unsettled (`RoomFile.conflicts`), by room:
    /// `vault status` lists them. Only rooms whose bytes hold `conflict=` are parsed.
    public func unsettledConflicts() -> [(room: String, message: String, other: String)] {
        let needle = Array("conflict=".utf8)
        return roomPaths().flatMap { path -> [(room: String, message: String, other: String)] in
            guard let bytes = try? FileIO.read(absolute(path)),
                bytes.firstRange(of: needle) != nil,
                let room = try? RoomFile(parsing: bytes, path: path)
            else { return [] }
            return room.conflicts.map { (path, $0.original.id, $0.other.id) }
        }
    }

    public func conflictCopies() -> [(copy: String, original: String)] {
        (roomPaths() + diaryPaths()).compactMap { path in
            guard let original = ConflictCopy.original(of: path), FileIO.exists(absolute(original)) else { return nil }
            return (path, original)
        }
    }
}
