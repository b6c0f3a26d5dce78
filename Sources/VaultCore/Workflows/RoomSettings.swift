/// `vault room set`: one front-matter key of a room set or removed, as one change
/// (`room: 부산 여행: set model`).
///
/// Only that key's lines change; comments, quoting and other keys stay as they are. The room
/// is read and checked before anything else: a room that cannot be read, a key `RoomSetting`
/// does not know or a value of the wrong type leaves no trace, not even a repository. A key a
/// person wrote by hand that `RoomSetting` does not know can be removed (`--unset`), never set.
package struct RoomSettings {
    package let vault: Vault

    package init(vault: Vault) {
        self.vault = vault
    }

    /// What `set` did.
    package enum Result: Sendable, Equatable {
        case set
        case removed
        /// The key already had that value (or was absent): nothing written or committed.
        case alreadySo
    }

    /// Sets `key` of the room at `path` to `value`, or removes it when `value` is nil.
    ///
    /// - Throws: `VaultError.input(.unknownSetting)` for a key `room set` does not store (removing
    ///   one the room has is allowed), `.invalidSettingValue` for a value of the wrong type.
    package func set(_ key: String, to value: String?, inRoom path: String) throws(VaultError) -> Result {
        let value = try value.map { v throws(VaultError) in
            try RoomSetting.checked(key, v, timeZone: vault.config.timeZone)
        }
        return try vault.change([path]) { change throws(VaultError) -> Result in
            let typed = RoomSetting.named(key)?.isTyped ?? false
            // A room whose front-matter cannot take the change commits nothing.
            let (file, stamp, bytes) = try change.workedOut(before: path) {
                () throws(VaultError) -> (RoomFile, FileIO.Stamp, [UInt8]) in
                let (file, stamp) = try vault.readRoomStamped(path)
                if value == nil, RoomSetting.named(key) == nil, file.frontMatter?.values[key] == nil {
                    throw VaultError.input(.unknownSetting(key, nearest: RoomSetting.nearest(to: key)))
                }
                return (file, stamp, try file.setting(key, to: value.map { .string($0) }, typed: typed))
            }
            guard bytes != file.bytes else { return .alreadySo }
            try change.write(bytes, to: path, expecting: .unchanged(stamp))
            let verb = value == nil ? "unset" : "set"
            try change.commit(message: "room: \(file.title): \(verb) \(key)")
            return value == nil ? .removed : .set
        }
    }
}
