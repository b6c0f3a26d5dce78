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
        public var path: String
        public var stamp: FileIO.Stamp
        /// The stamp may be trusted (its file's last change was old enough when it was taken).
        public var settled: Bool
        public var fields: [String?]
    }

    public static let version = 1
    static let racyWindow = 2

    public let file: String?
    let context: String
    /// The entries read, by inode (a path's `String` hash normalizes its Unicode: slower than
    /// the stat itself on 20,000 Korean names).
    private var byInode: [UInt64: [Entry]] = [:]
    /// How many entries were read.
    public private(set) var count = 0

    /// The cache of `kind` (`rooms`, `diary`) for the vault at `root`, as last saved (empty
    /// when there is none, or it is not of this version and context).
    public init(root: String, kind: String, context: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.context = context
        file = ListingCache.path(root: root, kind: kind, environment: environment)
        guard let file, let bytes = try? FileIO.read(file), let entries = ListingCache.parse(bytes, context: context)
        else { return }
        count = entries.count
        byInode.reserveCapacity(entries.count)
        for entry in entries { byInode[entry.stamp.inode, default: []].append(entry) }
    }

    /// This build of vault: its version and its executable's stamp, for a cache whose entries
    /// depend on the program's rules (`vault check`'s), so another build reads every file again.
    public static let programIdentity: String = {
        let stamp = FileIO.stamp(of: "/proc/self/exe")
        return VaultVersion.current + (stamp.map { " \($0.device):\($0.inode):\($0.size):\($0.modified.tv_sec)" } ?? "")
    }()

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

    /// The entry kept for `path` while the file still has `stamp` (nil: read it).
    public func entry(of path: String, stamp: FileIO.Stamp?) -> Entry? {
        guard let stamp, let candidates = byInode[stamp.inode] else { return nil }
        for entry in candidates where entry.settled && entry.stamp == stamp && entry.path.utf8.elementsEqual(path.utf8) {
            return entry
        }
        return nil
    }

    /// An entry for `fields` of `path`, read while the file had `stamp` (taken before the read;
    /// nil: no file there now).
    public static func entry(_ path: String, stamp: FileIO.Stamp?, fields: [String?], now: Int) -> Entry? {
        guard let stamp else { return nil }
        let settled = max(stamp.modified.tv_sec, stamp.changed.tv_sec) < now - ListingCache.racyWindow
        return Entry(path: path, stamp: stamp, settled: settled, fields: fields)
    }

    /// Writes `entries` as the cache (atomically; a failure only costs the next listing time).
    public func save(_ entries: [Entry]) {
        guard let file else { return }
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 160)
        out += Array("vault-listing \(ListingCache.version) ".utf8) + ListingCache.escape(context) + [10]
        for e in entries {
            let path = e.path
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

    /// The unsigned decimal number `digits` hold (nil: not one, or too large).
    static func number(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        var n: UInt64 = 0
        for d in digits {
            guard d >= 48, d <= 57 else { return nil }
            n = n * 10 + UInt64(d - 48)
        }
        return n
    }

    static func parse(_ bytes: [UInt8], context: String) -> [Entry]? {
        guard let firstEnd = bytes.firstIndex(of: 10),
            bytes[..<firstEnd].elementsEqual(Array("vault-listing \(version) ".utf8) + escape(context))
        else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(bytes.count / 160)
        var start = firstEnd + 1
        while start < bytes.count {
            guard let end = bytes[start...].firstIndex(of: 10) else { return nil }
            let fields = bytes[start..<end].split(separator: 9, omittingEmptySubsequences: false)
            start = end + 1
            guard fields.count >= 9 else { return nil }
            func int(_ k: Int) -> Int? { number(fields[k]).map { Int($0) } }
            guard let dev = number(fields[0]), let ino = number(fields[1]), let size = int(2),
                let ms = int(3), let mns = int(4), let cs = int(5), let cns = int(6), let settled = int(7)
            else { return nil }
            let stamp = FileIO.Stamp(
                device: dev, inode: ino, size: Int64(size), modified: timespec(tv_sec: ms, tv_nsec: mns),
                changed: timespec(tv_sec: cs, tv_nsec: cns))
            let values: [String?] = fields[9...].map { f in
                f.first == UInt8(ascii: "+") ? unescape(f.dropFirst()) : nil
            }
            entries.append(Entry(path: unescape(fields[8]), stamp: stamp, settled: settled == 1, fields: values))
        }
        return entries
    }
}
