import Foundation
import VaultCore

/// An export as a person hands it over: a zip, a folder, or one of its files. Gives its files
/// by their path inside the export, whichever it is, so a reader does not care.
///
/// Nothing is copied to disk: a zip's JSON is inflated as it is streamed. Nothing outside the
/// export is read: a folder's files are opened relative to it without following a link
/// (`ExportDirectory`), a zip's members never climb out of it (`ZipArchive`), and what is held
/// whole is held to the cap (`ImportLimits`).
final class ExportFolder {
    /// The path as given.
    let path: String
    /// What problems name: the path as given.
    let name: String
    /// The files, relative to the export's root, `/`-separated (listed on first use: a single
    /// file's folder may be a large Downloads folder); a folder's links and special files are
    /// listed too, so that reading one refuses it by name.
    private(set) lazy var files: [String] = zip.map { $0.members.map(\.name).filter { !$0.hasPrefix("__MACOSX/") } }
        ?? ((try? folder())?.files().map(\.path) ?? [])
    /// The path is one file of the export (not its zip or its folder).
    let isSingleFile: Bool
    /// The cap on what is held whole.
    let limits: ImportLimits
    private let zip: ZipArchive?
    private let root: String
    private var opened: ExportDirectory?

    /// Opens `path`: a zip, a folder, or a file (then its folder is the export, and `files` is
    /// its folder's files).
    init(_ path: String, limits: ImportLimits = ImportLimits()) throws(VaultError) {
        self.path = path
        self.name = path
        self.limits = limits
        if try ExportInput.kind(of: path) == .folder {
            zip = nil
            root = path
            isSingleFile = false
            opened = try ExportDirectory(path)
        } else if ZipArchive.looksLikeZip(path) || path.lowercased().hasSuffix(".zip") {
            let zip = try ZipArchive(path: path)
            self.zip = zip
            root = ""
            isSingleFile = false
        } else {
            zip = nil
            root = (path as NSString).deletingLastPathComponent.isEmpty
                ? "." : (path as NSString).deletingLastPathComponent
            isSingleFile = true
        }
    }

    var isZip: Bool { zip != nil }

    /// The folder the files are in (a single file's, opened when first needed).
    private func folder() throws(VaultError) -> ExportDirectory {
        if let opened { return opened }
        let made = try ExportDirectory(root)
        opened = made
        return made
    }

    /// How problems name `file`: `export.zip:conversations.json`, or its path in the folder.
    func displayName(_ file: String) -> String {
        zip != nil ? name + ":" + file : (root == "." && !path.contains("/") ? file : root + "/" + file)
    }

    /// The files named `basename` (at any depth, shallowest first).
    func files(named basename: String) -> [String] {
        files.filter { ($0 as NSString).lastPathComponent == basename }
            .sorted { ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1) }
    }

    /// Whether the export holds `file` (a link or a special file counts: reading it refuses it).
    func contains(_ file: String) -> Bool {
        if let zip { return zip.member(named: file) != nil }
        return (try? folder())?.entry(file) != .missing
    }

    /// Why `file`, which the export holds, cannot be read when it is a link or a special file
    /// (`a symbolic link`); nil when it is a regular file (or not there).
    func refusal(_ file: String) -> String? {
        guard zip == nil, !isNamedFile(file), case .refused(_, let kind)? = (try? folder())?.entry(file) else { return nil }
        return kind
    }

    /// Calls `body` for each element of `file`, a JSON array, streamed (`JSONArrayStream`;
    /// from a zip, inflated as it is read), each element held to the cap.
    func forEachElement(
        _ file: String, _ body: (_ index: Int, _ offset: Int, _ bytes: [UInt8]) throws(VaultError) -> Void
    ) throws(VaultError) {
        let stream = JSONArrayStream(path: zip?.path ?? root + "/" + file, name: displayName(file), limits: limits)
        if let zip {
            try stream.forEachElement(of: try member(file, in: zip), in: zip, body)
        } else {
            try stream.forEachElement(in: try open(file), body)
        }
    }

    /// The file's bytes, at most `limit` and at most the cap.
    func bytes(_ file: String, limit: UInt64 = UInt64.max) throws(VaultError) -> [UInt8] {
        let cap = ImportLimits(maxItemSize: Int(min(limit, UInt64(limits.maxItemSize))), origin: limits.origin)
        if let zip {
            let member = try member(file, in: zip)
            guard member.size <= UInt64(cap.maxItemSize) else {
                throw .importing(ImportProblem(file: name, place: file, problem: cap.tooLarge("file of an export")))
            }
            return try zip.bytes(of: member, limit: UInt64(cap.maxItemSize))
        }
        return try open(file).bytes(cap)
    }

    /// The file's first `count` bytes (none when it cannot be read).
    func prefix(_ file: String, count: Int) -> [UInt8] {
        if let zip {
            guard let member = zip.member(named: file) else { return [] }
            return (try? zip.prefix(of: member, count: count)) ?? []
        }
        return (try? open(file))?.prefix(count) ?? []
    }

    /// Whether `file` is the file the person named (read as named, a link followed).
    private func isNamedFile(_ file: String) -> Bool {
        isSingleFile && file == (path as NSString).lastPathComponent
    }

    /// Opens `file` of a folder: the named file as named, any other without following a link.
    private func open(_ file: String) throws(VaultError) -> ExportFileHandle {
        if isNamedFile(file) { return try ExportInput.openNamed(path, name: displayName(file)) }
        return try folder().open(file)
    }

    private func member(_ file: String, in zip: ZipArchive) throws(VaultError) -> ZipArchive.Member {
        guard let member = zip.member(named: file) else {
            throw .importing(ImportProblem(file: name, place: file, problem: "is not in the archive"))
        }
        return member
    }
}

/// The first bytes of `path` (a file; for a zip or a folder, of its file named one of
/// `names`), without the whitespace in front; what `recognizes` looks at.
func peekExport(_ path: String, names: (String) -> Bool, count: Int = 1 << 16) -> [UInt8] {
    guard let export = try? ExportFolder(path) else { return [] }
    let file: String?
    if !export.isSingleFile {
        file = export.files.filter { names(($0 as NSString).lastPathComponent) }
            .min { $0.split(separator: "/").count < $1.split(separator: "/").count }
    } else {
        file = (path as NSString).lastPathComponent
    }
    guard let file else { return [] }
    return export.prefix(file, count: count)
}

/// Whether `bytes` (the start of a JSON file) is an array whose first element has `key`, or an
/// object that has it: a key string seen at depth 2.
func firstElementHasKey(_ bytes: [UInt8], _ key: String) -> Bool {
    let needle = Array("\"\(key)\"".utf8)
    var depth = 0
    var inString = false
    var escaped = false
    var i = 0
    var started = false
    while i < bytes.count {
        let b = bytes[i]
        if !started {
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 || b == 0xEF || b == 0xBB || b == 0xBF {
                i += 1
                continue
            }
            // One conversation as an object: as if in an array (depth 1), so its keys are at 2.
            if b == UInt8(ascii: "{") { depth = 1 } else if b != UInt8(ascii: "[") { return false }
            started = true
        }
        if inString {
            if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") {
                inString = false
            }
        } else if b == UInt8(ascii: "\"") {
            if depth == 2, i + needle.count <= bytes.count, bytes[i..<(i + needle.count)].elementsEqual(needle) { return true }
            inString = true
        } else if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
            depth += 1
        } else if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
            depth -= 1
            if depth <= 1 { return false }  // the first element ended
        }
        i += 1
    }
    return false
}
