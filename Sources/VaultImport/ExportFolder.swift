import Foundation
import VaultCore

/// An export as a person hands it over: a zip, a folder, or one of its files. Gives its files
/// by their path inside the export, whichever it is, so a reader does not care.
///
/// /// nothing is copied to disk: a zip's JSON is inflated as it is streamed.
final class ExportFolder {
    /// The path as given.
    let path: String
    /// What problems name: the path as given.
    let name: String
    /// The files, relative to the export's root, `/`-separated (listed on first use: a single
    /// file's folder may be a large Downloads folder).
    private(set) lazy var files: [String] = zip.map { $0.members.map(\.name).filter { !$0.hasPrefix("__MACOSX/") } }
        ?? ExportFolder.list(root)
    /// The path is one file of the export (not its zip or its folder).
    let isSingleFile: Bool
    private let zip: ZipArchive?
    private let root: String

    /// Opens `path`: a zip, a folder, or a file (then its folder is the export, and `files` is
    /// its folder's files).
    init(_ path: String) throws(VaultError) {
        self.path = path
        self.name = path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw .importing(ImportProblem(file: path, problem: "does not exist"))
        }
        if isFolder.boolValue {
            zip = nil
            root = path
            isSingleFile = false
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

    /// How problems name `file`: `export.zip:conversations.json`, or its path in the folder.
    func displayName(_ file: String) -> String {
        zip != nil ? name + ":" + file : (root == "." && !path.contains("/") ? file : root + "/" + file)
    }

    /// The files named `basename` (at any depth, shallowest first).
    func files(named basename: String) -> [String] {
        files.filter { ($0 as NSString).lastPathComponent == basename }
            .sorted { ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1) }
    }

    /// Whether the export holds `file`.
    func contains(_ file: String) -> Bool {
        if let zip { return zip.member(named: file) != nil }
        return FileManager.default.fileExists(atPath: root + "/" + file)
    }

    /// Calls `body` for each element of `file`, a JSON array, streamed (`JSONArrayStream`;
    /// from a zip, inflated as it is read).
    func forEachElement(
        _ file: String, _ body: (_ index: Int, _ offset: Int, _ bytes: [UInt8]) throws(VaultError) -> Void
    ) throws(VaultError) {
        let stream = JSONArrayStream(path: zip?.path ?? root + "/" + file, name: displayName(file))
        if let zip {
            guard let member = zip.member(named: file) else {
                throw .importing(ImportProblem(file: name, place: file, problem: "is not in the archive"))
            }
            try stream.forEachElement(of: member, in: zip, body)
        } else {
            try stream.forEachElement(body)
        }
    }

    /// The file's bytes, at most `limit`.
    func bytes(_ file: String, limit: UInt64 = 1 << 30) throws(VaultError) -> [UInt8] {
        if let zip {
            guard let member = zip.member(named: file) else {
                throw .importing(ImportProblem(file: name, place: file, problem: "is not in the archive"))
            }
            return try zip.bytes(of: member, limit: limit)
        }
        guard let data = FileManager.default.contents(atPath: root + "/" + file) else {
            throw .importing(ImportProblem(file: displayName(file), problem: "cannot be read"))
        }
        guard UInt64(data.count) <= limit else {
            throw .importing(ImportProblem(file: displayName(file), problem: "is larger than \(limit) bytes"))
        }
        return [UInt8](data)
    }

    /// The file's first `count` bytes.
    func prefix(_ file: String, count: Int) -> [UInt8] {
        if let zip {
            guard let member = zip.member(named: file) else { return [] }
            return (try? zip.prefix(of: member, count: count)) ?? []
        }
        guard let handle = FileHandle(forReadingAtPath: root + "/" + file) else { return [] }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: count)) ?? Data())
    }

    private static func list(_ folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var out: [String] = []
        while let next = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + next, isDirectory: &isFolder), !isFolder.boolValue {
                out.append(next)
            }
        }
        return out.sorted()
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

/// Whether `bytes` (the start of a JSON file) is an array whose first element has `key`
/// before `count` bytes: a key string seen at depth 2.
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
            guard b == UInt8(ascii: "[") else { return false }
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
