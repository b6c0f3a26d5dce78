import Foundation

/// Messages edited differently on two machines: a merge keeps both versions, the later one with
/// an id of its own and `conflict=<the first's id>` in its header (FORMAT.md, "Merging"). Such a
/// pair is unsettled while both are in the room; `show` marks them, `check` and `status` list
/// them, and `vault resolve ROOM --keep ID` (or `--keep-both`) settles one (`ConflictSettling`).
public struct MessageConflict: Sendable, Hashable {
    /// The version that kept the message's id.
    public var original: Message
    /// The other version: its header has `conflict=<original's id>`.
    public var other: Message
}

extension RoomFile {
    /// The unsettled conflicts, in the order of their first version.
    public var conflicts: [MessageConflict] {
        var byID: [String: Message] = [:]
        for m in messages where byID[m.id] == nil { byID[m.id] = m }
        return messages.compactMap { m in
            guard let first = m.header.attribute("conflict"), first != m.id, let original = byID[first] else { return nil }
            return MessageConflict(original: original, other: m)
        }.sorted { $0.original.line < $1.original.line }
    }

    /// The bytes of the message at `index` in `messages`: its header line to the next message's
    /// header, the prompt marker, or the end.
    func byteRange(ofMessageAt index: Int) -> Range<Int> {
        let lineStarts = RoomFile.lineStarts(bytes)
        let start = lineStarts[messages[index].line - 1]
        let end = index + 1 < messages.count ? lineStarts[messages[index + 1].line - 1] : (promptMarkerOffset ?? bytes.count)
        return start..<end
    }

    static func lineStarts(_ bytes: [UInt8]) -> [Int] {
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == 10 { starts.append(i + 1) }
        return starts
    }
}

extension MessageConflict {
    /// The line `show` puts above a version, in the vault's language: which of the two it is,
    /// and how to keep it (`vault resolve ROOM --keep ID`).
    public static func mark(version: Int, id: String, room: String, locale: String) -> String {
        let keep = "vault resolve \(room) --keep \(id)"
        switch locale.split(separator: "_").first.map(String.init) ?? locale {
        case "ko": return "⚠️ 충돌: 두 기기에서 다르게 고친 메시지, 버전 \(version)/2 (이것만 남기려면 `\(keep)`)"
        case "ja": return "⚠️ 競合: 2台で別々に直されたメッセージ、版 \(version)/2(これを残すには `\(keep)`)"
        case "de": return "⚠️ Konflikt: auf zwei Geräten verschieden geändert, Fassung \(version)/2 (behalten: `\(keep)`)"
        case "fr": return "⚠️ Conflit : modifié différemment sur deux appareils, version \(version)/2 (garder : `\(keep)`)"
        case "es": return "⚠️ Conflicto: editado de forma distinta en dos equipos, versión \(version)/2 (conservar: `\(keep)`)"
        default: return "⚠️ conflict: edited differently on two machines, version \(version) of 2 (keep it: `\(keep)`)"
        }
    }
}
