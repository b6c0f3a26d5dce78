import ArgumentParser
import Foundation
import VaultCore
import VaultKit

// The option groups every command that lists takes, so a flag means the same thing everywhere:
// `--since`/`--until` (DateRangeOptions), `-n` (LimitOptions), `--json`/`--format`
// (ListingFormatOptions), and `--color`/`--no-pager` (OutputOptions, in Style.swift).

/// `--since` and `--until`: days in the vault's zone, in any form `DateArgument` reads
/// (`2026-11-01`, `yesterday`, `-7`).
struct DateRangeOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Only those on or after this day (2026-11-01, yesterday, or -7 for a week ago).", valueName: "DAY"))
    var since: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Only those on or before this day.", valueName: "DAY"))
    var until: String?

    /// The first and last day, in `zone`; nil for a side not given.
    func days(in zone: TimeZone) throws(VaultError) -> (from: LocalDate?, to: LocalDate?) {
        (try DateArgument.day(given: since, timeZone: zone), try DateArgument.day(given: until, timeZone: zone))
    }

    /// The diary's filter (`DiaryQuery`): these days and `tag`.
    func query(tag: String?, in zone: TimeZone) throws(VaultError) -> DiaryQuery {
        try DiaryQuery(since: since, until: until, tag: tag, timeZone: zone)
    }
}

/// `-n N`: at most N rows, the first N the listing gives (the newest).
struct LimitOptions: ParsableArguments {
    @Option(
        name: [.customShort("n"), .customLong("max-count")],
        help: ArgumentHelp("Show at most this many.", valueName: "N"))
    var maxCount: Int?

    /// The first `maxCount` of `rows` (all of them without `-n`).
    func apply<T>(_ rows: [T]) throws(UsageError) -> ArraySlice<T> {
        guard let maxCount else { return rows[...] }
        return rows.prefix(try count(default: maxCount))
    }

    /// `-n`, else `fallback`.
    ///
    /// - Throws: `negativeCount` for an `-n` below 0.
    func count(default fallback: Int) throws(UsageError) -> Int {
        guard let maxCount else { return fallback }
        guard maxCount >= 0 else { throw UsageError.negativeCount(maxCount) }
        return maxCount
    }
}

/// `--json` and `--format`: how a listing prints its rows when not as the aligned view.
struct ListingFormatOptions: ParsableArguments {
    @Flag(help: "Print JSON.") var json = false

    @Option(
        help: ArgumentHelp(
            "Print each row as this template: %(field) (the fields are listed above), %% and %xx (hex: %09 is a tab).",
            valueName: "TEMPLATE"))
    var format: String?

}

/// A row's field a `--format` template can name: `%(path)`.
struct ListingField<Row>: Sendable {
    let name: String
    /// What it holds, for `--help`, the README and the manual.
    let meaning: String
    let value: @Sendable (Row) -> String
}

/// A `--format` template, as `git for-each-ref --format` reads one: `%(name)` is a field of the
/// row, `%%` a percent sign, `%xx` the byte with that hex value (`%09` a tab, `%0a` a line
/// feed); everything else is copied. Each field's value is printed whole, on one line (control
/// characters, tabs and line feeds in it made visible), never cut or padded.
///
///     let template = try ListingTemplate("%(path)%09%(title)", fields: RoomListing.fields)
///     template.line(for: room)   // "rooms/부산-여행.md\t부산 여행"
struct ListingTemplate<Row> {
    enum Part {
        case text(String)
        case field(ListingField<Row>)
    }

    let parts: [Part]

    /// - Throws: `UsageError.unusableTemplate` naming the unknown field or the broken escape.
    init(_ template: String, fields: [ListingField<Row>]) throws(UsageError) {
        func refuse(_ problem: String) -> UsageError { .unusableTemplate(problem: problem, known: fields.map(\.name)) }
        var parts: [Part] = []
        var text: [UInt8] = []
        let bytes = Array(template.utf8)
        var i = 0
        func flush() {
            if !text.isEmpty { parts.append(.text(String(decoding: text, as: UTF8.self))) }
            text.removeAll()
        }
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "%"), i + 1 < bytes.count else {
                text.append(bytes[i])
                i += 1
                continue
            }
            let next = bytes[i + 1]
            if next == UInt8(ascii: "%") {
                text.append(next)
                i += 2
            } else if next == UInt8(ascii: "(") {
                guard let close = bytes[(i + 2)...].firstIndex(of: UInt8(ascii: ")")) else {
                    throw refuse("'%(' without its ')'")
                }
                let name = String(decoding: bytes[(i + 2)..<close], as: UTF8.self)
                guard let field = fields.first(where: { $0.name == name }) else {
                    throw refuse("unknown field '%(\(name))'")
                }
                flush()
                parts.append(.field(field))
                i = close + 1
            } else if i + 2 < bytes.count, let byte = UInt8(String(decoding: bytes[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                text.append(byte)
                i += 3
            } else {
                throw refuse("write %(field), %% or %xx (two hex digits), not '%\(Character(Unicode.Scalar(next)))'")
            }
        }
        flush()
        self.parts = parts
    }

    /// The row as the template says, without a line feed at the end.
    /// Writes a line for each of `rows` to standard output, in one write (20,000 rows printed
    /// one by one took longer than reading them).
    func write(_ rows: [Row]) {
        var out = ""
        out.reserveCapacity(rows.count * 96)
        for row in rows {
            // Appended where it ends up: no string made per row.
            for part in parts {
                switch part {
                case .text(let text): out += text
                case .field(let field): out += Terminal.visible(field.value(row), singleLine: true)
                }
            }
            out += "\n"
        }
        Trace.mark("listing: rows formatted")
        _ = Terminal.write(out, to: 1)
        Trace.mark("listing: rows written")
    }

    /// Writes `items`, a megabyte at a time (`Terminal.writeChunk`): each by `plain` when it can
    /// (it appends the row's bytes, without its line feed, and returns true), else as the
    /// template says of `row(item)` (whatever `plain` appended is taken back first).
    func write<Items: Sequence>(
        _ items: Items, plain: (Items.Element, inout [UInt8]) -> Bool, row: (Items.Element) -> Row
    ) {
        var out: [UInt8] = []
        out.reserveCapacity(Terminal.pipedChunk + 65_536)
        var made = 0
        for item in items {
            let start = out.count
            if !plain(item, &out) {
                out.removeSubrange(start...)
                out += Array(line(for: row(item)).utf8)
                made += 1
            }
            out.append(10)
            Terminal.writeChunk(&out)
        }
        Trace.mark("listing: rows formatted (\(made) from summaries)")
        _ = Terminal.write(bytes: out, to: 1)
        Trace.mark("listing: rows written")
    }

    func line(for row: Row) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .field(let field): out += Terminal.visible(field.value(row), singleLine: true)
            }
        }
        return out
    }

    /// The help's list of fields: `  %(path)  the file, from the vault's folder`.
    static func help(_ fields: [ListingField<Row>]) -> String {
        let width = fields.map { $0.name.count }.max() ?? 0
        return fields.map { "  %(\($0.name))" + String(repeating: " ", count: width - $0.name.count) + "  " + $0.meaning }
            .joined(separator: "\n")
    }
}

extension ListingFormatOptions {
    /// The template to print rows with: `--format`, else `piped` when standard output is no
    /// terminal (and `COLUMNS` is not set: the aligned view was asked for), else nil (the aligned view).
    ///
    /// - Throws: `UsageError` for a template it cannot read, or `--json` with `--format`.
    func template<Row>(fields: [ListingField<Row>], piped: String?) throws(UsageError) -> ListingTemplate<Row>? {
        if json, format != nil { throw UsageError.jsonAndFormat }
        if let format { return try ListingTemplate(format, fields: fields) }
        guard let piped else { return nil }
        if Terminal.columns == nil { return try ListingTemplate(piped, fields: fields) }
        return nil
    }
}

extension Array where Element == UInt8 {
    /// Appends `byte` and returns true: a step in a chain of appends joined by `&&`.
    mutating func appending(_ byte: UInt8) -> Bool {
        append(byte)
        return true
    }
}
