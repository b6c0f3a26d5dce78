import CGit2
import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// Rooms and diary entries a person renamed by hand (`mv`, `git mv`, Obsidian or VS Code
/// renaming a note), found when a command commits the file under its new name.
///
/// The hand-edit commit of a change (`prepare`) holds the files the change is about. A file
/// there that HEAD does not have, while HEAD has a file of the same kind that is gone from the
/// folder and is the same item (`Merge.isSameItem`: a room by its message ids, an entry by its
/// `created`), is that file renamed: the commit removes the old path and adds the new one, so
/// HEAD never holds the room twice and git shows a rename (`git log --follow` follows it). A
/// renamed room's volumes (format 3) move with it: `volumes/<old>/` becomes `volumes/<new>/`
/// in the folder (one rename) and in the same commit.
extension GitHistory {
    /// A file renamed by hand: where it was in HEAD, where it is now, and the other paths the
    /// rename brings into the commit (its volumes' old and new paths).
    struct HandRename {
        var from: String
        var to: String
        var alongside: [String] = []
    }

    /// At most this many missing files of one kind are read to pair an added one: a person who
    /// removed thousands of rooms by hand does not make every command read them all.
    static let handRenameCandidates = 256

    /// The renames by hand among `added` (paths on disk that HEAD does not have).
    func handRenames(of added: [String], head: OpaquePointer) throws(VaultError) -> [HandRename] {
        var renames: [HandRename] = []
        var missingByFolder: [String: [String]] = [:]
        let rootID = git_commit_tree_id(head).pointee
        for path in added {
            let kind = VaultPath.kind(of: path)
            guard kind == .room || kind == .diaryEntry || kind == .volume,
                let folder = path.split(separator: "/").first.map(String.init),
                let bytes = try? FileIO.read(root + "/" + path)
            else { continue }
            if missingByFolder[folder] == nil {
                var missing: [String] = []
                if let tree = try subtree(folder, of: rootID) {
                    try allFiles(in: tree, prefix: folder + "/") { committed in
                        if VaultPath.kind(of: committed) == kind, !FileIO.entryExists(root + "/" + committed) {
                            missing.append(committed)
                        }
                    }
                }
                missingByFolder[folder] = missing
            }
            let candidates = (missingByFolder[folder] ?? []).prefix(GitHistory.handRenameCandidates)
            for old in candidates {
                guard let before = try contents(of: old, in: head),
                    Merge.isSameItem(before, bytes, oldPath: old, newPath: path)
                else { continue }
                missingByFolder[folder]?.removeAll { $0 == old }
                var rename = HandRename(from: old, to: path)
                if kind == .room { rename.alongside = try movingVolumes(of: old, to: path, rootID: rootID) }
                renames.append(rename)
                break
            }
        }
        return renames
    }

    /// Moves the volumes of a room renamed by hand from `old` to `new` in the folder (when the
    /// person did not move them too) and returns their paths in HEAD and in the folder now.
    private func movingVolumes(of old: String, to new: String, rootID: git_oid) throws(VaultError) -> [String] {
        let from = VaultPath.volumeFolder(ofRoom: old)
        let to = VaultPath.volumeFolder(ofRoom: new)
        var paths: [String] = []
        if let tree = try subtree(from, of: rootID) {
            try allFiles(in: tree, prefix: from + "/") { paths.append($0) }
        }
        let fm = FileManager.default
        if FileIO.entryExists(root + "/" + from), !FileIO.entryExists(root + "/" + to) {
            try? fm.createDirectory(
                atPath: (root + "/" + to as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            guard rename(root + "/" + from, root + "/" + to) == 0 else {
                throw VaultError.repository(
                    .cannotWrite(path: to, reason: "cannot move the volumes of \(old) there: \(String(cString: strerror(errno)))"))
            }
        }
        for name in (try? fm.subpathsOfDirectory(atPath: root + "/" + to)) ?? [] where name.hasSuffix(".md") {
            paths.append(to + "/" + name)
        }
        return paths
    }
}
