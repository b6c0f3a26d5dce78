#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Symbolic links and look-alike names: the two ways a folder of files can hold something
/// that is not what it seems.
///
/// A link in `rooms/` or `diary/` may point anywhere: outside the vault, into itself. vault
/// never writes through one, never commits what one points to, and never follows one when it
/// walks a folder; `vault check` reports each (FORMAT.md, "Layout"). A name typed on a Mac
/// (Unicode NFD) and the same name typed on Linux (NFC) are two names on disk: vault takes
/// them for one, and `vault check` reports pairs that exist.
extension Vault {
    /// The first part of `relative` (a folder on its way, or the file itself) that is a
    /// symbolic link, with the link's text; nil when none is (or the path does not exist).
    public func symbolicLink(on relative: String) -> (path: String, target: String)? {
        Vault.symbolicLink(in: root, on: relative)
    }

    /// The first part of `relative` under the folder `root` that is a symbolic link, with the
    /// link's text; nil when none is (or the path does not exist).
    public static func symbolicLink(in root: String, on relative: String) -> (path: String, target: String)? {
        var current = ""
        for part in relative.split(separator: "/") {
            current += (current.isEmpty ? "" : "/") + part
            switch FileIO.kind(of: root + "/" + current) {
            case .symbolicLink?:
                let text = FileIO.linkText(root + "/" + current).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                return (current, text)
            case nil:
                return nil
            default:
                continue
            }
        }
        return nil
    }

    /// Throws `VaultError.symbolicLink` when `relative` or a folder on its way is a link.
    public func refuseSymbolicLinks(on relative: String) throws(VaultError) {
        if let link = symbolicLink(on: relative) {
            throw VaultError.symbolicLink(path: link.path, target: link.target)
        }
    }

    /// `relative` as it is spelled on disk: itself when something has that name, else the
    /// name in its folder that differs only in Unicode normalization (typed on Linux, made on
    /// a Mac, or the other way round); nil when there is neither.
    public func existingSpelling(of relative: String) -> String? {
        var current = ""
        for part in relative.split(separator: "/") {
            let next = current.isEmpty ? String(part) : current + "/" + part
            if FileIO.entryExists(absolute(next)) {
                current = next
                continue
            }
            // ASCII has one spelling. Otherwise a name equal as a string (Swift compares strings by
            // canonical equivalence) is the same name in another normalization.
            guard !part.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            let name = String(part)
            let names = FileIO.list(absolute(current)).map(\.name)
                .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            guard let match = names.first(where: { $0 == name }) else { return nil }
            current = current.isEmpty ? match : current + "/" + match
        }
        return current.isEmpty ? nil : current
    }

    /// A symbolic link found in `rooms/` or `diary/`.
    public struct SymbolicLinkFound: Sendable, Hashable {
        /// The link, relative to the vault.
        package var path: String
        /// Where it points, as written.
        package var target: String
        package var link: FormatProblem.Link
    }

    /// Every symbolic link anywhere below `rooms/` and `diary/`, and those folders themselves when
    /// they are links. Links are read, never followed.
    public func symbolicLinks() -> [SymbolicLinkFound] {
        linksAndSpecialFiles().links
    }

    /// The symbolic links (`symbolicLinks()`) and the special files (FIFOs, devices, sockets:
    /// path and what it is) in `rooms/`, `diary/` and `volumes/`, from one walk that follows no link.
    public func linksAndSpecialFiles() -> (links: [SymbolicLinkFound], special: [(path: String, kind: String)]) {
        var out: [SymbolicLinkFound] = []
        var special: [(path: String, kind: String)] = []
        for folder in [VaultPath.rooms, VaultPath.diary, VaultPath.volumes] {
            switch FileIO.kind(of: absolute(folder)) {
            case .symbolicLink?:
                out.append(describeLink(folder))
                continue
            case .directory?:
                break
            default:
                continue
            }
            var stack = [folder]
            var seen = Set<FolderIdentity>()
            while let dir = stack.popLast() {
                guard seen.insert(FolderIdentity(absolute(dir))).inserted else { continue }
                for entry in FileIO.list(absolute(dir)) where !entry.name.hasPrefix(".") {
                    let rel = dir + "/" + entry.name
                    switch entry.kind {
                    case .symbolicLink:
                        out.append(describeLink(rel))
                    case .directory:
                        stack.append(rel)
                    case .other:
                        var st = stat()
                        let kind = lstat(absolute(rel), &st) == 0 ? FileIO.kindName(st.st_mode) : "a special file"
                        special.append((rel, kind))
                    default:
                        break
                    }
                }
            }
        }
        return (out.sorted { $0.path < $1.path }, special.sorted { $0.path < $1.path })
    }

    /// Where the link at `relative` leads: outside the vault, inside it, round in a loop, or
    /// nowhere.
    func describeLink(_ relative: String) -> SymbolicLinkFound {
        let full = absolute(relative)
        let target = FileIO.linkText(full).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        var st = stat()
        guard stat(full, &st) == 0, let resolved = FileIO.resolvedPath(full) else {
            return SymbolicLinkFound(path: relative, target: target, link: errno == ELOOP ? .loop : .missing)
        }
        func isWithin(_ path: String, _ folder: String) -> Bool { path == folder || path.hasPrefix(folder + "/") }
        // A folder that holds the link itself: walking it would go round for ever.
        if st.st_mode & S_IFMT == S_IFDIR, let parent = FileIO.resolvedPath(FileIO.parent(of: full)),
            isWithin(parent, resolved)
        {
            return SymbolicLinkFound(path: relative, target: target, link: .loop)
        }
        let vaultRoot = FileIO.resolvedPath(root) ?? root
        let link: FormatProblem.Link = isWithin(resolved, vaultRoot) ? .inside : .outside
        return SymbolicLinkFound(path: relative, target: target, link: link)
    }

    /// Pairs of rooms or entries whose names differ only in Unicode normalization, as
    /// (first, other) by the bytes of their paths; among `paths` (default: every room and entry).
    public func lookAlikeNames(among paths: [String]? = nil) -> [(path: String, other: String)] {
        // Swift's strings are equal, and hash equally, when canonically equivalent: one key per
        // name as a person reads it. An ASCII name has one spelling and is left out.
        var groups: [String: [String]] = [:]
        for path in paths ?? (roomPaths() + diaryPaths()) where !path.utf8.allSatisfy({ $0 < 0x80 }) {
            groups[path, default: []].append(path)
        }
        var out: [(String, String)] = []
        for (_, group) in groups where group.count > 1 {
            let sorted = group.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for other in sorted.dropFirst() { out.append((sorted[0], other)) }
        }
        return out.sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
    }
}

/// A folder's device and inode: the same folder reached by two paths has the same identity.
struct FolderIdentity: Hashable {
    var device: UInt64
    var inode: UInt64

    init(_ path: String) {
        var st = stat()
        if lstat(path, &st) == 0 {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        } else {
            // Not readable: a unique identity, so it is walked (and found empty) once.
            device = UInt64.max
            inode = UInt64(bitPattern: Int64(path.hashValue))
        }
    }
}
