#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What vault learnt about one version of a large file, so the next command need not read
/// the whole file again to learn it: its git blob id and its number of lines.
///
/// A chat turn on a room of megabytes would otherwise hash the whole file to see whether a
/// person edited it since the last commit, and count its lines for the messages' line
/// numbers. The facts are kept in `.vault/facts/<hash of the path>` with the file's stamp
/// (device, inode, size, modification and change times): they hold only while the file
/// still has that stamp, which any write by any program changes. (An edit that keeps the
/// file's size, made in the same clock tick as vault's own write, keeps the stamp too, as
/// it would for git's index; such an edit is then committed with vault's next change
/// instead of on its own before it. No text is lost.)
///
/// A cache: lost or stale facts only cost the time of reading the file.
public struct FileFacts: Sendable, Equatable {
    public var stamp: FileIO.Stamp
    /// The file's git blob id (hex), when known.
    public var blob: String?
    /// The line feeds in the file, when known.
    public var lines: Int?

    public init(stamp: FileIO.Stamp, blob: String? = nil, lines: Int? = nil) {
        self.stamp = stamp
        self.blob = blob
        self.lines = lines
    }

    /// The facts of `relative` in the vault at `root`, if they are about the version on disk now.
    public static func current(root: String, relative: String) -> FileFacts? {
        guard let facts = load(root: root, relative: relative), FileIO.stamp(of: root + "/" + relative) == facts.stamp
        else {
            return nil
        }
        return facts
    }

    /// The facts kept for `relative`, whatever version of the file they are about.
    public static func load(root: String, relative: String) -> FileFacts? {
        guard let bytes = try? FileIO.read(path(root: root, relative: relative)) else { return nil }
        let f = String(decoding: bytes, as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
        guard f.count == 12, f[0] == "vault-facts", f[1] == "1",
            let device = UInt64(f[2]), let inode = UInt64(f[3]), let size = Int64(f[4]),
            let ms = Int(f[5]), let mn = Int(f[6]), let cs = Int(f[7]), let cn = Int(f[8])
        else { return nil }
        let stamp = FileIO.Stamp(
            device: device, inode: inode, size: size, modified: timespec(tv_sec: ms, tv_nsec: mn),
            changed: timespec(tv_sec: cs, tv_nsec: cn))
        let blob = f[9] == "-" ? nil : String(f[9])
        let lines = f[10] == "-" ? nil : Int(f[10])
        guard f[11] == "\n" else { return nil }
        return FileFacts(stamp: stamp, blob: blob, lines: lines)
    }

    /// Keeps these facts for `relative`, merged with those kept for the same version.
    public func save(root: String, relative: String) {
        var merged = self
        if let kept = FileFacts.load(root: root, relative: relative), kept.stamp == stamp {
            merged.blob = blob ?? kept.blob
            merged.lines = lines ?? kept.lines
        }
        let s = merged.stamp
        let text =
            "vault-facts 1 \(s.device) \(s.inode) \(s.size) \(s.modified.tv_sec) \(s.modified.tv_nsec) "
            + "\(s.changed.tv_sec) \(s.changed.tv_nsec) \(merged.blob ?? "-")"
            + " \(merged.lines.map(String.init) ?? "-") \n"
        try? FileIO.makeDirectory(root + "/" + VaultPath.state + "/facts")
        try? FileIO.write(Array(text.utf8), to: FileFacts.path(root: root, relative: relative), durable: false)
    }

    static func path(root: String, relative: String) -> String {
        root + "/" + VaultPath.state + "/facts/" + String(TailWrite.fnv1a(Array(relative.utf8)), radix: 16)
    }
}
