import ArgumentParser
import Foundation
import Synchronization
import VaultCore
import VaultKit

/// Where `vault search` writes items: each rendered on the thread that scanned it (a renderer per
/// thread, `printer`), the bytes written in path order into one buffer, sent out in pieces of
/// about a megabyte (one `write` per item would be tens of thousands of system calls), a blank
/// line between items when grouped.
final class SearchSink: @unchecked Sendable {
    enum Form {
        /// The title, then `path:line:column: who · when │ text` for each hit.
        case grouped
        /// One JSON object per hit (`--json`).
        case json
        /// The item's path (`-l`).
        case paths
        /// The item's path and its number of hits, `path:N` (`-c`).
        case counts
    }
    let form: Form
    let style: SearchOutput
    /// Runs before anything is written (the progress line is cleared).
    var beforeWriting: (() -> Void)?
    private var out: [UInt8] = []
    private var items = 0
    /// `-c`: the path of the item being counted (its parts arrive one after another) and its hits so far.
    private var counting: (path: [UInt8], hits: Int)?

    init(form: Form, style: SearchOutput) {
        self.form = form
        self.style = style
        out.reserveCapacity(1 << 20 + 1 << 16)
    }

    /// What `VaultSearch.printer` is set to: renderers like `style`, each with caches of its own.
    var printer: SearchPrinter {
        SearchPrinter(
            makeRenderer: { [form, colored = style.colored, locale = style.locale, zone = style.zone] in
                let output = SearchOutput(colored: colored, locale: locale, zone: zone)
                switch form {
                case .grouped:
                    return { item, out in output.render(item, into: &out) }
                case .json:
                    return { item, out in
                        for hit in item.hits { output.appendJSON(hit, in: item, to: &out) }
                    }
                case .counts:
                    // The path (not for a later part of the same file), a NUL, then the part's
                    // matching lines (a line with two matches counts once, as rg -c counts).
                    return { item, out in
                        if !item.continued { out += output.path(item.path).utf8 }
                        out.append(0)
                        var lines = 0
                        var last = -1
                        let hits = item.hits
                        for k in hits.indices where hits.line(k) != last {
                            lines += 1
                            last = hits.line(k)
                        }
                        output.appendDecimal(lines, to: &out)
                    }
                case .paths:
                    return { item, out in
                        // A later part of a file with very many hits: its path is out already.
                        guard !item.continued else { return }
                        out += output.path(item.path).utf8
                        out.append(0x0A)
                    }
                }
            },
            write: { [self] bytes, continued in add(bytes, continued: continued) })
    }

    /// Appends an item's bytes, in path order.
    func add(_ bytes: [UInt8], continued: Bool) {
        if form == .counts {
            let nul = bytes.firstIndex(of: 0) ?? bytes.endIndex
            let hits = Int(String(decoding: bytes[min(nul + 1, bytes.endIndex)...], as: UTF8.self)) ?? 0
            if continued, counting != nil {
                counting!.hits += hits
                return
            }
            endCount()
            counting = (Array(bytes[..<nul]), hits)
            return
        }
        if form == .grouped && items > 0 && !continued { out.append(0x0A) }
        out += bytes
        items += 1
        if out.count >= 1 << 20 { flush() }
    }

    /// `-c`: the line of the item counted so far, into the output.
    private func endCount() {
        guard let (path, hits) = counting else { return }
        out += path
        out.append(UInt8(ascii: ":"))
        out += String(hits).utf8
        out.append(0x0A)
        counting = nil
        items += 1
        if out.count >= 1 << 20 { flush() }
    }

    func flush() {
        endCount()
        guard !out.isEmpty else { return }
        beforeWriting?()
        Terminal.write(bytes: out, to: 1)
        out.removeAll(keepingCapacity: true)
    }
}
