import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A long room's older messages, kept in volumes (FORMAT.md, "Room volumes"; format 3).
///
/// git names a file's version by the SHA-1 of all its bytes, so a commit that appends a
/// message to a 50 MB room hashes 50 MB. In format 3 a room's file that has grown past
/// `rollOverSize` gives its older messages, byte for byte, to volumes
/// (`volumes/<room>/0001.md`, `0002.md`, …, each a room-format file of up to about
/// `volumeSize`), keeping the newest `keptSize` of them (the context a turn sends) and its
/// front-matter, preamble and prompt. A turn then hashes a file of at most `rollOverSize`,
/// whatever the room's history, and volumes, once written, do not change.
///
/// Readers that show a room whole (`vault show`, export, MCP) read the volumes' messages
/// before the file's own (`wholeBytes`); a chat turn reads them only when its context
/// reaches back past the file (`earlierMessages`); listings never do (the file holds the
/// room's title and its last messages).
public enum RoomVolumes {
    /// The first format that rolls long rooms over.
    public static let format = 3
    /// A room's file this large rolls over before the next message is added.
    public static var rollOverSize: Int { sizes.rollOver }
    /// The newest messages a room's file keeps when it rolls over: at least this many bytes
    /// of them (whole messages), at least one message.
    public static var keptSize: Int { sizes.kept }
    /// A volume holds messages up to about this many bytes (one message larger is alone).
    public static var volumeSize: Int { sizes.volume }

    /// 2 MiB, 256 KiB and 2 MiB; tests only: `VAULT_TEST_VOLUME_SIZES=ROLLOVER,KEPT,VOLUME` (bytes,
    /// given by the front end: `ProcessSettings.volumeSizes`), so a kill loop rolls rooms over
    /// every few turns (`KillLoopTests`).
    private static let sizes: (rollOver: Int, kept: Int, volume: Int) = {
        let standard = (2 * 1024 * 1024, 256 * 1024, 2 * 1024 * 1024)
        guard let text = ProcessHooks.settings.volumeSizes else { return standard }
        let n = text.split(separator: ",").compactMap { Int($0) }
        guard n.count == 3, n.allSatisfy({ $0 > 0 }), n[1] < n[0] else { return standard }
        return (n[0], n[1], n[2])
    }()

    /// The volumes of `room`, oldest first; none when it has no volume folder (one failed open).
    /// A folder on the way that is a symbolic link is not followed: such a room has no volumes
    /// (`vault check` reports the link).
    public static func paths(ofRoom room: String, root: String) -> [String] {
        let folder = VaultPath.volumeFolder(ofRoom: room)
        var walked = root
        for part in folder.split(separator: "/") {
            walked += "/" + part
            guard FileIO.kind(of: walked) == .directory else { return [] }
        }
        var numbered: [(Int, String)] = []
        for entry in FileIO.list(root + "/" + folder) where entry.kind == .file {
            let path = folder + "/" + entry.name
            guard VaultPath.room(ofVolume: path) != nil, let n = Int(entry.name.dropLast(3)) else { continue }
            numbered.append((n, path))
        }
        return numbered.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : VaultPath.precedes($0.1, $1.1) }.map(\.1)
    }

    /// The offsets in a room file's bytes where its messages start (the header lines), and
    /// where the last one ends (the prompt marker, or the end of the file).
    static func messageStarts(_ room: RoomFile) -> (starts: [Int], end: Int) {
        var lineStarts = [0]
        let bytes = room.bytes
        lineStarts.reserveCapacity(bytes.count / 40)
        for i in bytes.indices where bytes[i] == 10 { lineStarts.append(i + 1) }
        let starts = room.messages.map { lineStarts[$0.line - 1 - (room.elision?.lines ?? 0)] }
        return (starts, room.promptMarkerOffset ?? bytes.count)
    }

    /// The bytes of a volume from its first message on (its front-matter left out), or all of
    /// them when it does not read as a room (a person broke it: nothing is hidden).
    static func messagesPart(of bytes: [UInt8], path: String) -> ArraySlice<UInt8> {
        guard let volume = try? RoomFile.readingWhatCan(bytes, path: path) else { return bytes[...] }
        let (starts, _) = messageStarts(volume)
        let from = starts.first ?? volume.frontMatter?.range.upperBound ?? 0
        return bytes[from...]
    }

    /// The room read whole: its file's front-matter and preamble, every volume's messages,
    /// oldest first, then the file's own messages and prompt. The room's file alone when it has
    /// no volumes. Line numbers in what is read count in this text, not in one file.
    public static func wholeBytes(ofRoom room: String, bytes: [UInt8], root: String) throws(VaultError) -> [UInt8] {
        let volumes = paths(ofRoom: room, root: root)
        guard !volumes.isEmpty else { return bytes }
        // Where the volumes' messages go: before the file's first message (else its prompt).
        let at: Int
        if let live = try? RoomFile.readingWhatCan(bytes, path: room) {
            let (starts, end) = messageStarts(live)
            at = starts.first ?? end
        } else {
            at = bytes.count
        }
        var out = Array(bytes[..<at])
        for path in volumes {
            var part = try FileIO.read(root + "/" + path)[...]
            part = messagesPart(of: Array(part), path: path)
            if !out.isEmpty, out.last != 10 { out.append(10) }
            out += part
        }
        if !out.isEmpty, out.last != 10, at < bytes.count { out.append(10) }
        out += bytes[at...]
        return out
    }

    /// Messages of the room's volumes, newest volume first, until `enough` says the messages
    /// found (oldest first, those of the room's file not included) are enough; for a chat
    /// turn whose context reaches back past the room's file. A volume that does not read is
    /// skipped (`vault check` reports it).
    public static func earlierMessages(ofRoom room: String, root: String, enough: ([Message]) -> Bool) -> [Message] {
        var found: [Message] = []
        for path in paths(ofRoom: room, root: root).reversed() {
            guard let bytes = try? FileIO.read(root + "/" + path),
                let volume = try? RoomFile(parsing: bytes, path: path)
            else { continue }
            found = volume.messages + found
            if enough(found) { break }
        }
        return found
    }

    /// The newest volume of a room as a rollover finds it: its number and bytes, and how many
    /// of them are messages (its front-matter left out).
    public struct LastVolume: Sendable {
        package var number: Int
        package var bytes: [UInt8]
        package var messageBytes: Int

        package init(number: Int, bytes: [UInt8], path: String) {
            self.number = number
            self.bytes = bytes
            messageBytes = RoomVolumes.messagesPart(of: bytes, path: path).count
        }
    }

    /// A room's file split for rolling over: the volumes to write and what the file keeps. nil
    /// when there is less than `keptSize` to move (the file keeps at least one message).
    ///
    /// Messages are moved byte for byte; the file keeps its front-matter, preamble, newest
    /// messages and everything from the prompt marker on. Volumes are filled in order: the
    /// newest (`last`) takes messages until its messages reach `volumeSize`, then a new one
    /// starts. So where a volume ends depends only on the room's messages before it, never on
    /// when a machine rolled over: two clones that rolled the same room over at different
    /// points hold volumes of which one is the start of the other, and their union (the merge)
    /// holds each message once. Messages already in a volume byte for byte (a rollover killed
    /// after writing its volumes) are only removed from the file.
    public static func split(
        _ room: RoomFile, path: String, last: LastVolume?, alreadyInVolumes: Set<[UInt8]> = [],
        idsInVolumes: Set<String> = [], title: String
    ) -> (volumes: [(path: String, bytes: [UInt8])], kept: [UInt8], moved: Int)? {
        let bytes = room.bytes
        let (starts, end) = messageStarts(room)
        guard starts.count >= 2 else { return nil }
        // The newest messages the file keeps: at least `keptSize` of them, at least one.
        var keep = starts.count - 1
        while keep > 1, end - starts[keep] < keptSize { keep -= 1 }
        // Less than that to move (the file is long for its front-matter or its pending text):
        // nothing, or every turn would write a volume of a message or two.
        guard starts[keep] - starts[0] >= keptSize else { return nil }
        let eol = room.lineEnding == .crlf ? "\r\n" : "\n"
        var volumes: [(String, [UInt8])] = []
        let folder = VaultPath.volumeFolder(ofRoom: path)
        // The volume being filled: its number, bytes and message bytes.
        var number = last?.number ?? 0
        var volume: [UInt8] = []
        var filled = volumeSize
        if let last, last.messageBytes < volumeSize {
            volume = last.bytes
            if let end = volume.last, end != 10 { volume += Array(eol.utf8) }
            filled = last.messageBytes
        }
        let unchanged = volume.count
        func flush() {
            guard volume.count > unchanged || (number != last?.number && !volume.isEmpty) else { return }
            volumes.append((folder + "/" + VaultPath.volumeName(number), volume))
        }
        var taken = idsInVolumes
        for k in 0..<keep {
            var message = Array(bytes[starts[k]..<starts[k + 1]])
            if !alreadyInVolumes.isEmpty, alreadyInVolumes.contains(RoomVolumes.content(message)) { continue }
            // Another version of this message is in a volume already (edited on one machine while
            // another moved it): this one gets an id of its own, as a merge gives the second of
            // two versions, so no volume holds one id twice.
            let id = room.messages[k].id
            if taken.contains(id) {
                let own = Merge.derivedID(from: id, content: RoomVolumes.content(message)[...], taken: taken)
                message = Merge.renamed(message, to: own, conflictOf: id)
                taken.insert(own)
            } else {
                taken.insert(id)
            }
            if filled >= volumeSize {
                flush()
                number += 1
                var head = ["---"]
                head += FrontMatterEditor.render(key: "title", value: .string(title))
                head += FrontMatterEditor.render(key: "room", value: .string(path))
                head += ["volume: \(number)", "---", ""]
                volume = Array((head.joined(separator: eol) + eol).utf8)
                filled = 0
            }
            volume += message
            filled += message.count
        }
        flush()
        let kept = Array(bytes[..<starts[0]]) + Array(bytes[starts[keep]...])
        return (volumes, kept, keep)
    }

    /// A message's bytes as compared with a volume's: its trailing blank lines left out.
    static func content(_ message: [UInt8]) -> [UInt8] {
        var end = message.count
        while end > 0, [10, 13, 32, 9].contains(message[end - 1]) { end -= 1 }
        return Array(message[..<end])
    }

    /// Every message of the room's volumes, as `content` compares them, and their ids.
    static func volumeContents(ofRoom room: String, root: String) -> (contents: Set<[UInt8]>, ids: Set<String>) {
        var out = Set<[UInt8]>()
        var ids = Set<String>()
        for path in paths(ofRoom: room, root: root) {
            guard let bytes = try? FileIO.read(root + "/" + path), let volume = try? RoomFile(parsing: bytes, path: path)
            else { continue }
            let (starts, end) = messageStarts(volume)
            for (k, start) in starts.enumerated() {
                out.insert(content(Array(bytes[start..<(k + 1 < starts.count ? starts[k + 1] : end)])))
            }
            ids.formUnion(volume.messages.map(\.id))
        }
        return (out, ids)
    }
}

extension Vault {
    /// Rolls the room at `path` over (`RoomVolumes`) when the vault is of format 3 or later and
    /// the room's file is `RoomVolumes.rollOverSize` or larger, as a change and commit of its own
    /// (`volumes: rooms/x.md, N older messages to volumes/x/0001.md`): its hand edits are
    /// committed first, the volumes written (new files), then the file rewritten without the
    /// messages moved, over the version read only. Killed between the two writes, the messages
    /// are in both the volumes and the file (nothing is lost); the next rollover removes them
    /// from the file. A file that does not read as a room (conflict markers, a broken header)
    /// is left as it is.
    ///
    /// - Returns: the volumes written (none when nothing was rolled over).
    @discardableResult
    public func rollOverIfLong(_ path: String) throws(VaultError) -> [String] {
        guard config.format >= RoomVolumes.format, VaultPath.kind(of: path) == .room else { return [] }
        var st = stat()
        guard lstat(absolute(path), &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) >= RoomVolumes.rollOverSize
        else { return [] }
        return try change([path]) { change throws(VaultError) -> [String] in
            let existing = RoomVolumes.paths(ofRoom: path, root: root)
            change.include(existing)
            try change.commitHandEdits()
            let (bytes, stamp) = try FileIO.readStamped(absolute(path))
            guard bytes.count >= RoomVolumes.rollOverSize, let room = try? RoomFile(parsing: bytes, path: path) else {
                return []
            }
            var last: (RoomVolumes.LastVolume, FileIO.Stamp)?
            if let newest = existing.last, let number = Int(VaultPath.stem(of: newest)) {
                let (bytes, stamp) = try FileIO.readStamped(absolute(newest))
                last = (RoomVolumes.LastVolume(number: number, bytes: bytes, path: newest), stamp)
            }
            let known: (contents: Set<[UInt8]>, ids: Set<String>) =
                existing.isEmpty ? ([], []) : RoomVolumes.volumeContents(ofRoom: path, root: root)
            guard
                let plan = RoomVolumes.split(
                    room, path: path, last: last?.0, alreadyInVolumes: known.contents, idsInVolumes: known.ids,
                    title: room.title)
            else { return [] }
            for volume in plan.volumes {
                // The newest volume topped up over the version read; a new one where none is.
                let topped = last.map { existing.last == volume.path ? $0.1 : nil } ?? nil
                try change.write(volume.bytes, to: volume.path, expecting: topped.map { .unchanged($0) } ?? .absent)
            }
            CrashPoint.reach("rollover-volumes-written")
            try change.write(plan.kept, to: path, expecting: .unchanged(stamp))
            let written = plan.volumes.map(\.path)
            var message = "volumes: \(path), \(Merge.counted(plan.moved, "older message", "older messages"))"
            if let firstVolume = written.first, let last = written.last {
                message += " to " + firstVolume + (written.count > 1 ? "–" + VaultPath.stem(of: last) + ".md" : "")
            } else {
                message += " already in its volumes"
            }
            try change.commit(message: message)
            return written
        }
    }
}
