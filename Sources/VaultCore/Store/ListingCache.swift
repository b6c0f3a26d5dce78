import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What `vault rooms` and `vault diary list` learnt about each file, kept between runs so a
/// listing reads only the files that changed since the last one: each file's summary with the
/// stamp (device, inode, size, modification and change times) it had when it was read.
///
/// Exact, never trusted blindly: a summary is used only while its file has the same stamp,
/// which any write by any program changes (an edit in place keeps the inode but not the times;
/// a save by rename changes the inode). A stamp taken less than `racyWindow` seconds after the
/// file's last change is kept but never trusted (a second write within the same clock tick
/// could keep the times, as git's index knows), so such a file is read again next time. A
/// file's summary depends on its bytes only (and on `context`, the vault's zone: it is in the
/// cache's first line, and another one voids the cache).
///
/// Kept outside the vault, in `$XDG_CACHE_HOME/vault/listing/<16 hex of the SHA-256 of the
/// vault's real path>.<kind>`, so sync tools never carry it to another machine. One line a
/// file: its stamp, its path and the summary's fields, tab-separated, with `\`, tab and line
/// feed escaped; a field that is absent is `-`, present ones begin with `+`. A cache: lost,
/// damaged or of another version, the listing reads every file and writes a new one.
public struct ListingCache: Sendable {
    /// What is kept for one file.
    public struct Entry: Sendable {
        public var stamp: FileIO.Stamp
        /// The stamp may be trusted (its file's last change was old enough when it was taken).
        public var settled: Bool
        public var fields: [String?]
    }

    public static let version = 1
    static let racyWindow = 2

    public let file: String?
    let context: String
    public private(set) var entries: [String: Entry] = [:]
    /// Whether anything differs from what was read (a save is needed).
    public private(set) var changed = false

    /// The cache of `kind` (`rooms`, `diary`) for the vault at `root`, as last saved (empty
    /// when there is none, or it is not of this version and context).
    public init(root: String, kind: String, context: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.context = context
        file = ListingCache.path(root: root, kind: kind, environment: environment)
        guard let file, let bytes = try? FileIO.read(file) else { return }
        entries = ListingCache.parse(bytes, context: context) ?? [:]
    }

    static func path(root: String, kind: String, environment: [String: String]) -> String? {
        var cache = environment["XDG_CACHE_HOME"] ?? ""
        if !cache.hasPrefix("/") {
            guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
            cache = home + "/.cache"
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let real = realpath(root, &buffer).map { String(cString: $0) } ?? root
        return cache + "/vault/listing/" + SHA256.hex(Array(real.utf8)).prefix(16) + "." + kind
    }

    /// The fields kept for `path` while the file still has `stamp` (nil: read it).
    public func fields(of path: String, stamp: FileIO.Stamp?) -> [String?]? {
        guard let stamp, let entry = entries[path], entry.settled, entry.stamp == stamp else { return nil }
        return entry.fields
    }

    /// Keeps `fields` for `path`, read while the file had `stamp` (taken before the read).
    public mutating func keep(_ path: String, stamp: FileIO.Stamp?, fields: [String?], now: Int) {
        guard let stamp else {
            if entries.removeValue(forKey: path) != nil { changed = true }
            return
        }
        let settled = max(stamp.modified.tv_sec, stamp.changed.tv_sec) < now - ListingCache.racyWindow
        entries[path] = Entry(stamp: stamp, settled: settled, fields: fields)
        changed = true
    }

    /// Forgets every path not in `paths` (files removed since).
    public mutating func keepOnly(_ paths: Set<String>) {
        for path in entries.keys where !paths.contains(path) {
            entries[path] = nil
            changed = true
        }
    }

    /// Writes the cache when it changed (atomically; a failure only costs the next listing time).
    public func save() {
        guard changed, let file else { return }
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 160)
        out += Array("vault-listing \(ListingCache.version) ".utf8) + ListingCache.escape(context) + [10]
        for (path, e) in entries {
            let s = e.stamp
            let head = "\(s.device)\t\(s.inode)\t\(s.size)\t\(s.modified.tv_sec)\t\(s.modified.tv_nsec)\t"
                + "\(s.changed.tv_sec)\t\(s.changed.tv_nsec)\t\(e.settled ? 1 : 0)\t"
            out += Array(head.utf8) + ListingCache.escape(path)
            for field in e.fields {
                out.append(9)
                if let field { out.append(UInt8(ascii: "+")); out += ListingCache.escape(field) } else { out.append(UInt8(ascii: "-")) }
            }
            out.append(10)
        }
        try? FileIO.makeDirectory(FileIO.parent(of: file))
        try? FileIO.write(out, to: file, durable: false)
    }

    static func escape(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            switch b {
            case 92: out += [92, 92]
            case 9: out += [92, UInt8(ascii: "t")]
            case 10: out += [92, UInt8(ascii: "n")]
            default: out.append(b)
            }
        }
        return out
    }

    static func unescape(_ b: ArraySlice<UInt8>) -> String {
        guard b.contains(92) else { return String(decoding: b, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = b.startIndex
        while i < b.endIndex {
            if b[i] == 92, i + 1 < b.endIndex {
                let n = b[i + 1]
                out.append(n == UInt8(ascii: "t") ? 9 : n == UInt8(ascii: "n") ? 10 : n)
                i += 2
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func parse(_ bytes: [UInt8], context: String) -> [String: Entry]? {
        guard let firstEnd = bytes.firstIndex(of: 10),
            bytes[..<firstEnd].elementsEqual(Array("vault-listing \(version) ".utf8) + escape(context))
        else { return nil }
        var entries: [String: Entry] = [:]
        var start = firstEnd + 1
        while start < bytes.count {
            guard let end = bytes[start...].firstIndex(of: 10) else { return nil }
            let fields = bytes[start..<end].split(separator: 9, omittingEmptySubsequences: false)
            start = end + 1
            guard fields.count >= 9 else { return nil }
            func int(_ k: Int) -> Int? { Int(String(decoding: fields[k], as: UTF8.self)) }
            guard let dev = UInt64(String(decoding: fields[0], as: UTF8.self)),
                let ino = UInt64(String(decoding: fields[1], as: UTF8.self)),
                let size = Int64(String(decoding: fields[2], as: UTF8.self)),
                let ms = int(3), let mns = int(4), let cs = int(5), let cns = int(6), let settled = int(7)
            else { return nil }
            let stamp = FileIO.Stamp(
                device: dev, inode: ino, size: size, modified: timespec(tv_sec: ms, tv_nsec: mns),
                changed: timespec(tv_sec: cs, tv_nsec: cns))
            let values: [String?] = fields[9...].map { f in
                f.first == UInt8(ascii: "+") ? unescape(f.dropFirst()) : nil
            }
            entries[unescape(fields[8])] = Entry(stamp: stamp, settled: settled == 1, fields: values)
        }
        return entries
    }
}
