import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `vault rm`: a room or diary entry removed, as one change (`rm: rooms/busan.md (부산 여행)`);
/// `vault restore` brings it back.
///
/// A symbolic link is removed itself, never what it points to (which is not read either);
/// its removal is committed when the link was.
package struct Removal {
    package let vault: Vault

    package init(vault: Vault) {
        self.vault = vault
    }

    /// What a removal takes away, as the person is asked about it first.
    package enum Target: Sendable, Equatable {
        /// A room or entry, with its title (its file name when it cannot be read).
        case item(path: String, title: String)
        /// A symbolic link, with the text it points to.
        case link(path: String, target: String)

        package var path: String {
            switch self {
            case .item(let path, _), .link(let path, _): return path
            }
        }
    }

    /// What removing `item` would take away.
    package func target(of item: VaultItem) -> Target {
        let path = item.path
        if let link = vault.symbolicLink(on: path) { return .link(path: link.path, target: link.target) }
        switch item {
        case .room: return .item(path: path, title: (try? vault.readRoom(path).title) ?? VaultPath.stem(of: path))
        case .diaryEntry:
            return .item(path: path, title: (try? vault.readDiaryEntry(path).title) ?? VaultPath.stem(of: path))
        }
    }

    /// Removes `target` and commits the removal.
    ///
    /// - Throws: `VaultError.changedOnDisk` when a link is no longer one: nothing is removed.
    package func remove(_ target: Target) throws(VaultError) {
        switch target {
        case .item(let path, let title):
            try vault.change([path]) { change throws(VaultError) in
                // A long room's volumes go with it (`RoomVolumes`); `vault restore` brings them back too.
                let volumes = VaultPath.kind(of: path) == .room ? RoomVolumes.paths(ofRoom: path, root: vault.root) : []
                change.include(volumes)
                try change.remove(path)
                for volume in volumes { try change.remove(volume) }
                // Their folder, and folders above it in `volumes/` left empty (as git keeps none).
                var folder = volumes.isEmpty ? VaultPath.volumes : FileIO.parent(of: volumes[0])
                while folder != VaultPath.volumes, rmdir(vault.absolute(folder)) == 0 { folder = FileIO.parent(of: folder) }
                if !volumes.isEmpty { _ = rmdir(vault.absolute(VaultPath.volumes)) }
                let also = volumes.isEmpty ? "" : ", and its " + Merge.counted(volumes.count, "volume", "volumes")
                try change.commit(message: "rm: \(path) (\(title))\(also)")
            }
        case .link(let path, _):
            // The link, made by hand or not, is what the change takes away.
            try vault.change([path], handEdits: .partOfTheChange) { change throws(VaultError) in
                guard FileIO.kind(of: vault.absolute(path)) == .symbolicLink else {
                    throw VaultError.changedOnDisk(path: path)
                }
                try change.remove(path)
                try change.commit(message: "rm: \(path) (a symbolic link)")
            }
        }
    }
}
