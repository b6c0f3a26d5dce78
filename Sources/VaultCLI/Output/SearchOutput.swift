import ArgumentParser
import Foundation
import Synchronization
import VaultCore
import VaultKit

/// How hits are printed: grouped by item, each line `path:line:column: who · when │ text`.
struct SearchOutput {
    let colored: Bool
    let locale: String
    let zone: TimeZone
    /// Labels as shown, by role and day: a search can have tens of thousands of hits, and ICU's
    /// formatting takes tens of microseconds each.
    let shownDays: DayCache

    init(colored: Bool, locale: String, zone: TimeZone) {
        self.colored = colored
        self.locale = locale
        self.zone = zone
        shownDays = DayCache(zone, locale: locale)
    }

    final class DayCache {
        /// The labels made so far, one after another (a label is a range of it: handing one out
        /// retains nothing).
        private var bytes: [UInt8] = []
        /// The label of a message, without its time, by role and day; of a diary entry, by day.
        private var labels: [LabelKey: Range<Int>] = [:]
        /// The last two labels looked up: hits in one message or entry, or in a conversation's
        /// two sides on one day, share them (no hashing).
        private var last = (key: LabelKey(value: .min), range: 0..<0)
        private var previous = (key: LabelKey(value: .min), range: 0..<0)
        /// The vault zone's offsets, by day.
        let offsets: ZoneOffsets
        /// The label of the message the last hit was in, as shown: the hits of one message share it.
        var label: [UInt8] = []
        /// The times of day as message headers show them in the locale (`오후 11:45`, `11:45 PM`,
        /// `23:45`), by minute of the day, made as they are first needed.
        private var times: [UInt8] = []
        /// Where each minute's time is in `times` (empty: not made yet).
        private var timeRanges = [Range<Int>](repeating: 0..<0, count: 1440)

        /// Appends the time of day `minutes` after midnight, in `locale`'s short time style.
        func appendTime(_ minutes: Int, locale: String, to out: inout [UInt8]) {
            let minute = min(max(minutes, 0), 1439)
            let known = timeRanges[minute]
            if !known.isEmpty {
                times.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[known])) }
                return
            }
            let text: String
            if let quick = dates() {
                text = quick.time(minutes: minute)
            } else {
                text = DateText.string(
                    for: Date(timeIntervalSince1970: Double(minute * 60)), style: .time, locale: locale,
                    timeZone: TimeZone(identifier: "UTC")!)
            }
            let start = times.count
            times += Terminal.visible(text, singleLine: true).utf8
            timeRanges[minute] = start..<times.count
            times.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start...])) }
        }

        /// The locale's days and times made without ICU, when they can be (`SearchDates`), from
        /// the 64th made on: checking them against ICU costs a hundred of ICU's.
        private var quick: SearchDates?
        private var made = 0
        private let locale: String

        func dates() -> SearchDates? {
            if made < 64 {
                made += 1
                if made == 64 { quick = SearchOutput.quickDates(locale) }
            }
            return quick
        }

        init(_ zone: TimeZone, locale: String) {
            offsets = ZoneOffsets(zone)
            self.locale = locale
        }

        /// Appends the label of `key` to `out`, made by `make` the first time.
        func append(_ key: LabelKey, to out: inout [UInt8], _ make: () -> [UInt8]) {
            let range: Range<Int>
            if last.key == key {
                range = last.range
            } else {
                if previous.key == key {
                    range = previous.range
                } else if let known = labels[key] {
                    range = known
                } else {
                    let start = bytes.count
                    bytes += make()
                    range = start..<bytes.count
                    labels[key] = range
                }
                previous = last
                last = (key, range)
            }
            bytes.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        }
    }

    /// Days as `DateText.heading` shows them, shared by the threads that render (ICU takes tens of
    /// microseconds a day, and a search can meet thousands of days), by locale and day.
    static let headings = Mutex<[String: [LocalDate: String]]>([:])

    /// `SearchDates` for each locale asked for (nil: ICU writes its days), made once.
    static let quick = Mutex<[String: SearchDates?]>([:])

    static func quickDates(_ locale: String) -> SearchDates? {
        if let known = quick.withLock({ $0[locale] }) { return known }
        let made = SearchDates(locale: locale)
        quick.withLock { $0[locale] = .some(made) }
        return made
    }

    func heading(_ day: LocalDate) -> String {
        if let quick = shownDays.dates() { return quick.day(day) }
        if let known = Self.headings.withLock({ $0[locale]?[day] }) { return known }
        let text = DateText.heading(day, locale: locale)
        Self.headings.withLock { $0[locale, default: [:]][day] = text }
        return text
    }

    /// A role (or none) and a day (its number), as one integer: made for every hit.
    struct LabelKey: Hashable {
        let value: Int
        init(value: Int) { self.value = value }
        init(role: Role?, day: Int) {
            let r: Int
            switch role {
            case nil: r = 0
            case .user: r = 1
            case .assistant: r = 2
            case .system: r = 3
            }
            value = day * 4 + r
        }
    }

    /// An item's heading, hits and context lines, each ended by a line feed, appended as bytes:
    /// a search can print hundreds of thousands of hits. The hits are read where the scan keeps
    /// them (`SearchHits`: no `SearchHit` is made unless it has context lines or something to make
    /// visible), and the hits of one message share its label, made once.
    func render(_ item: SearchItem, into out: inout [UInt8]) {
        // A later part of an item (a file with very many hits) goes on under the same heading.
        if !item.continued {
            appendVisible(item.title, "1", to: &out)
            out += " · ".utf8
            appendVisible(item.path, "35", to: &out)
            out.append(0x0A)
        }
        let pathIsPlain = isPlain(item.path)
        var lastShown = 0
        func line(_ text: String) {
            out += text.utf8
            out.append(0x0A)
        }
        let hits = item.hits
        // The message whose label is in `shownDays.label`.
        var labeled = -1
        for k in hits.indices {
            let number = hits.line(k)
            let (before, after) = hits.contextCounts(k)
            let hasContext = before > 0 || after > 0
            if hasContext {
                let context = hits[k]
                if lastShown > 0, number - before > lastShown + 1 { line(paint("--", "2")) }
                for (j, text) in context.before.enumerated() where number - before + j > lastShown {
                    line(contextLine(item.path, number - before + j, text))
                }
            }
            appendVisible(item.path, "35", plain: pathIsPlain, to: &out)
            out.append(0x3A)
            if colored { out += "\u{1B}[32m".utf8 }
            appendDecimal(number, to: &out)
            if colored { out += "\u{1B}[0m".utf8 }
            out.append(0x3A)
            appendDecimal(hits.column(k), to: &out)
            out += ": ".utf8
            if let m = hits.messageNumber(k), !hits.inFrontMatter(k) {
                if m != labeled {
                    shownDays.label.removeAll(keepingCapacity: true)
                    appendLabel(hits, k, item, to: &shownDays.label)
                    labeled = m
                }
                out += shownDays.label
            } else {
                appendLabel(hits, k, item, to: &out)
            }
            out += " │ ".utf8
            appendHighlighted(hits, k, to: &out)
            out.append(0x0A)
            lastShown = number
            if hasContext {
                for (j, text) in hits[k].after.enumerated() {
                    line(contextLine(item.path, number + 1 + j, text))
                    lastShown = number + 1 + j
                }
            }
        }
    }

    /// `paint(Terminal.visible(text, singleLine: true), code)` as bytes: the text itself when
    /// it holds nothing to make visible.
    func appendVisible(_ text: String, _ code: StaticString, plain: Bool? = nil, to out: inout [UInt8]) {
        guard plain ?? isPlain(text) else {
            out += paint(Terminal.visible(text, singleLine: true), "\(code)").utf8
            return
        }
        if colored {
            out += "\u{1B}[".utf8
            out.append(contentsOf: UnsafeBufferPointer(start: code.utf8Start, count: code.utf8CodeUnitCount))
            out.append(UInt8(ascii: "m"))
        }
        out += text.utf8
        if colored { out += "\u{1B}[0m".utf8 }
    }

    func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        guard value >= 0 && value < 1_000_000_000 else {
            out += String(value).utf8
            return
        }
        var digits: (UInt64, UInt64) = (0, 0)  // room for the ten digits
        var v = value
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[n] = UInt8(0x30 + v % 10)
                v /= 10
                n += 1
            } while v > 0
            for k in stride(from: n - 1, through: 0, by: -1) { out.append(d[k]) }
        }
    }

    /// Who and when (`🧑 user · 2026년 11월 21일 토요일 09:31`, `front-matter`, the entry's day), as
    /// bytes, each day's text made once.
    func appendLabel(_ hits: SearchHits, _ k: Int, _ item: SearchItem, to out: inout [UInt8]) {
        if hits.inFrontMatter(k) {
            out += paint("front-matter", "33").utf8
        } else if let m = hits.message(k) {
            // The local time, as `Timestamp(date:in:)` gives it, in seconds; its day and minute.
            let whole = Int64(m.timestamp.secondsSince1970.rounded(.down))
            let local = whole + Int64(shownDays.offsets.offset(at: whole))
            let day = Int(local >= 0 ? local / 86_400 : (local - 86_399) / 86_400)
            shownDays.append(LabelKey(role: m.role, day: day), to: &out) {
                let date = LocalDate(daysSince1970: day)
                return Array((paint("\(m.role.icon) \(m.role.rawValue)", "36") + " · " + heading(date) + " ").utf8)
            }
            let minutes = Int(local - Int64(day) * 86_400) / 60
            shownDays.appendTime(minutes, locale: locale, to: &out)
            if let author = m.author { out += (" · " + Terminal.visible(author.name, singleLine: true)).utf8 }
        } else if let day = item.day, item.kind == .diaryEntry {
            shownDays.append(LabelKey(role: nil, day: day.daysSince1970), to: &out) {
                Array((paint("📔", "36") + " " + heading(day)).utf8)
            }
        } else {
            out += paint(item.kind == .room ? "room" : "text", "36").utf8
        }
    }

    /// Whether `text` holds nothing `Terminal.visible` would change.
    func isPlain(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { Terminal.isPlainLine(UnsafeRawBufferPointer($0)) } ?? false
    }

    /// `highlighted(hits[k])` as bytes: the line as it is, where the scan keeps it, when it holds
    /// nothing to make visible.
    func appendHighlighted(_ hits: SearchHits, _ k: Int, to out: inout [UInt8]) {
        let done = hits.withText(k) { bytes -> Bool in
            guard Terminal.isPlainLine(UnsafeRawBufferPointer(bytes)) else { return false }
            guard colored else {
                out.append(contentsOf: bytes)
                return true
            }
            var at = 0
            for r in hits.matches(k) where r.lowerBound >= at && r.upperBound <= bytes.count {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[at..<r.lowerBound]))
                out += "\u{1B}[1;31m".utf8
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[r]))
                out += "\u{1B}[0m".utf8
                at = r.upperBound
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[at...]))
            return true
        }
        if !done { out += highlighted(hits[k]).utf8 }
    }

    func paint(_ text: String, _ code: String) -> String {
        colored ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func path(_ p: String) -> String { paint(Terminal.visible(p, singleLine: true), "35") }

    func contextLine(_ p: String, _ n: Int, _ text: String) -> String {
        "\(path(p))-\(paint(String(n), "32"))-  " + Terminal.visible(text, singleLine: true)
    }

    /// The line with its matches in bold red (colored), control characters made visible.
    func highlighted(_ hit: borrowing SearchHit) -> String {
        let bytes = Array(hit.text.utf8)
        var out = ""
        var at = 0
        for r in hit.matches where r.lowerBound >= at && r.upperBound <= bytes.count {
            out += Terminal.visible(String(decoding: bytes[at..<r.lowerBound], as: UTF8.self), singleLine: true)
            out += paint(Terminal.visible(String(decoding: bytes[r], as: UTF8.self), singleLine: true), "1;31")
            at = r.upperBound
        }
        return out + Terminal.visible(String(decoding: bytes[at...], as: UTF8.self), singleLine: true)
    }

    /// One hit as a JSON object on one line, its keys sorted, appended to `out`. Written by hand
    /// (a search can print tens of thousands of hits, and an encoder per hit costs ten times the
    /// scan); `JSONLine.appendString` escapes as `JSONEncoder` does, and C1 controls and DEL too.
    func appendJSON(_ hit: borrowing SearchHit, in item: SearchItem, to out: inout [UInt8]) {
        if let author = hit.message?.author {
            out += #"{"author":"#.utf8
            JSONLine.appendString(author.name, to: &out)
            out += #","column":"#.utf8
        } else {
            out += #"{"column":"#.utf8
        }
        appendDecimal(hit.column, to: &out)
        let day = hit.message.map { Timestamp(date: $0.timestamp.date, in: shownDays.offsets).localDate } ?? item.day
        if let day {
            out += #","day":"#.utf8
            JSONLine.appendString(day.description, to: &out)
        }
        out += #","front_matter":"#.utf8
        out += (hit.inFrontMatter ? "true" : "false").utf8
        out += #","kind":"#.utf8
        out += (item.kind == .room ? #""room""# : #""diary""#).utf8
        out += #","line":"#.utf8
        appendDecimal(hit.line, to: &out)
        out += #","matches":["#.utf8
        for (k, r) in hit.matches.enumerated() {
            if k > 0 { out.append(0x2C) }
            out.append(0x5B)
            appendDecimal(r.lowerBound, to: &out)
            out.append(0x2C)
            appendDecimal(r.upperBound, to: &out)
            out.append(0x5D)
        }
        out.append(0x5D)
        if let m = hit.message {
            out += #","message_id":"#.utf8
            JSONLine.appendString(m.id, to: &out)
            if let kind = m.kind {
                out += #","message_kind":"#.utf8
                JSONLine.appendString(kind, to: &out)
            }
        }
        out += #","path":"#.utf8
        JSONLine.appendString(item.path, to: &out)
        if let m = hit.message {
            out += #","role":"#.utf8
            JSONLine.appendString(m.role.rawValue, to: &out)
        }
        out += #","text":"#.utf8
        JSONLine.appendString(hit.text, to: &out)
        if let m = hit.message {
            out += #","timestamp":"#.utf8
            JSONLine.appendString(m.timestamp.text, to: &out)
        }
        out += #","title":"#.utf8
        JSONLine.appendString(item.title, to: &out)
        out += "}\n".utf8
    }
}
