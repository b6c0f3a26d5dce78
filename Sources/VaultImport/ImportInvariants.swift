import Foundation
import VaultCore

/// What every reader of `vault import` holds to, whatever an export holds (issue #36): the
/// properties the import fuzz targets check (Fuzz/README.md). A trap is a break too.
///
/// - Reading ends, with items or with `VaultError.importing` naming a file: never another error.
/// - Leaving out the parts not in the format (`--keep-going`) reads on: what a read that stops
///   at the first problem gave is the start of what it gives, and with no problem both are one.
/// - Every time an item has spells a four-digit year and reads back as RFC 3339; every title's
///   slug is a plain file name (no `/`, `.`, control character); no attachment is past the cap.
///
///     let broken = ImportInvariants.check(ChatGPTReader(), ["/tmp/export"], limits: ImportLimits(maxItemSize: 65536))
///     // [] when every property holds
package enum ImportInvariants {
    /// The properties `reader` breaks reading `paths` with the cap `limits` (empty: none).
    package static func check(_ reader: some ImportReader, _ paths: [String], limits: ImportLimits) -> [String] {
        var broken: [String] = []
        let stopping = read(reader, paths, limits: limits, keepGoing: false, broken: &broken)
        let going = read(reader, paths, limits: limits, keepGoing: true, broken: &broken)
        if !going.shown.starts(with: stopping.shown) {
            broken.append("leaving parts out changed what came before them: \(stopping.shown) then \(going.shown)")
        }
        if stopping.problems.isEmpty && going.shown != stopping.shown {
            broken.append("two reads of one export differ: \(stopping.shown) and \(going.shown)")
        }
        for problem in stopping.problems + going.problems where problem.file.isEmpty || problem.problem.isEmpty {
            broken.append("a problem names no file or says nothing: \(problem)")
        }
        for item in going.items { broken += self.broken(item, limits: limits) }
        return broken
    }

    /// The properties a zip's reading breaks: opening it and reading each member (its start,
    /// then all of it within the cap) ends with its bytes or an import problem.
    package static func zip(_ path: String, limits: ImportLimits) -> [String] {
        do throws(VaultError) {
            let zip = try ZipArchive(path: path)
            for member in zip.members.prefix(16) {
                do throws(VaultError) {
                    let head = try zip.prefix(of: member, count: 64)
                    let whole = try zip.bytes(of: member, limit: UInt64(limits.maxItemSize))
                    if !whole.starts(with: head) { return ["the start of \(member.name) is not what its whole begins with"] }
                } catch {
                    guard case .importing = error else { return ["not an import problem: \(error)"] }
                }
            }
        } catch {
            guard case .importing = error else { return ["not an import problem: \(error)"] }
        }
        return []
    }

    /// One read: its items, each shown by kind and id, and the problems met.
    private static func read(
        _ reader: some ImportReader, _ paths: [String], limits: ImportLimits, keepGoing: Bool, broken: inout [String]
    ) -> (items: [ImportedItem], shown: [String], problems: [ImportProblem]) {
        var items: [ImportedItem] = []
        var problems: [ImportProblem] = []
        let sink = ImportSink(
            emit: { items.append($0) }, leftOut: keepGoing ? { problems.append($0) } : nil, limits: limits)
        do throws(VaultError) {
            try reader.read(paths, since: nil, into: sink)
        } catch {
            if case .importing(let problem) = error { problems.append(problem) } else { broken.append("not an import problem: \(error)") }
        }
        let shown = items.map { item in
            switch item {
            case .conversation(let c): return "conversation \(c.sourceID) (\(c.messages.count) messages)"
            case .entry(let e): return "entry \(e.sourceID)"
            }
        }
        return (items, shown, problems)
    }

    private static func broken(_ item: ImportedItem, limits: ImportLimits) -> [String] {
        var out: [String] = []
        func time(_ t: Timestamp, _ what: String) {
            if !(0...9999).contains(t.localDate.year) || Timestamp(rfc3339: t.text) == nil {
                out.append("\(what) has the time \(t.text), which does not read back")
            }
        }
        func title(_ text: String) {
            let slug = Array(VaultPath.slug(text).utf8)
            if slug.isEmpty || slug.contains(where: { $0 < 0x20 || $0 == 0x7F || "/\\:*?\"<>|.".utf8.contains($0) }) {
                out.append("the title \(text.debugDescription) makes the file name \(VaultPath.slug(text).debugDescription)")
            }
        }
        func attachments(_ list: [ImportedAttachment]) {
            for a in list where a.bytes.count > limits.maxItemSize { out.append("the attachment \(a.name) is past the cap") }
        }
        switch item {
        case .conversation(let c):
            time(c.created, "conversation \(c.sourceID)")
            title(c.title)
            for m in c.messages + c.branches.flatMap(\.messages) {
                if let t = m.time { time(t, "message \(m.sourceID)") }
                attachments(m.attachments)
            }
        case .entry(let e):
            time(e.time, "entry \(e.sourceID)")
            title(e.title)
            attachments(e.attachments)
        }
        return out
    }
}
