import Foundation

/// The aligned columns of `vault rooms` and `vault diary list` on a terminal of a given width:
/// a date column as wide as the widest date the locale writes there (so no date is ever cut,
/// `2024년 12월 1…`), a title column that grows with the width, and what is left for the
/// preview.
///
/// The widths depend on the locale and the terminal only, never on the rows: a listing prints
/// its first screen before it has read the rest.
///
///     let layout = ListingLayout(columns: 80, fixed: 7, date: ListingLayout.roomDateWidth(locale: "ko_KR", timeZone: seoul))
///     layout.title   // 22
///     layout.rest    // 33: the preview's columns
public struct ListingLayout: Sendable, Hashable {
    /// The date column: the widest date of the locale.
    public let date: Int
    /// The title column.
    public let title: Int
    /// The columns left for the last column (the preview), nil for no limit.
    public let rest: Int?

    /// The layout of a row of `columns` (nil: no limit) that has `fixed` columns of marks and
    /// spaces besides its date, title and preview.
    ///
    /// The title takes two fifths of what the date and the marks leave, between 20 and 60
    /// columns; in a terminal too narrow for a preview beside it (less than 10 columns after a
    /// 20-column title) the title takes the rest.
    public init(columns: Int?, fixed: Int, date: Int) {
        self.date = date
        guard let columns else {
            (title, rest) = (ListingLayout.widestTitle, nil)
            return
        }
        let left = max(0, columns - fixed - date)
        if left < ListingLayout.narrowestTitle + 10 {
            (title, rest) = (left, 0)
        } else {
            let title = min(ListingLayout.widestTitle, max(ListingLayout.narrowestTitle, left * 2 / 5))
            (self.title, rest) = (title, left - title)
        }
    }

    static let narrowestTitle = 20
    static let widestTitle = 60

    /// The widest "when" `vault rooms` writes in `locale` (`RelativeTime`): `59분 전`, `23 hours
    /// ago`, `yesterday`, a day of this year (`Sep 28`), or of another (`September 28, 2024`).
    public static func roomDateWidth(locale: String, timeZone: TimeZone) -> Int {
        let utc = TimeZone(identifier: "UTC")!
        // A late evening, so 23 hours ago is still today.
        let now = Timestamp(rfc3339: "2025-06-15T23:59:00Z")!.date
        let recent = [0, 59 * 60, 23 * 3600, 86400, 6 * 86400].map {
            RelativeTime.string(for: now.addingTimeInterval(-Double($0)), now: now, locale: locale, timeZone: utc)
        }
        return max(
            recent.map(DisplayWidth.of).max() ?? 0,
            widestDay(.monthDay, locale: locale), widestDay(.shortDay, locale: locale))
    }

    /// The widest day `vault diary list` writes in `locale` (the long date: `2026년 11월 21일`).
    public static func diaryDateWidth(locale: String) -> Int { widestDay(.shortDay, locale: locale) }

    /// The widest the 28th of every month of 2024 is written in `style`: the longest month's
    /// name, and a day of two digits.
    static func widestDay(_ style: DateText.Style, locale: String) -> Int {
        let utc = TimeZone(identifier: "UTC")!
        return (1...12).map { month in
            let date = LocalDate(year: 2024, month: month, day: 28).noonUTC
            return DisplayWidth.of(DateText.string(for: date, style: style, locale: locale, timeZone: utc))
        }.max() ?? 0
    }

    /// `title` cut to `columns` (ending in `…`) or padded to exactly `columns`. With `keepingTail`
    /// (a branch room: `긴 대화 · branch 2`), its last part after ` · ` stays whole and the part
    /// before it is cut (`긴… · branch 2`), so two branches of one conversation stay apart.
    public static func fit(_ title: String, _ columns: Int, keepingTail: Bool = false) -> String {
        guard keepingTail, DisplayWidth.of(title) > columns, let dot = title.range(of: " · ", options: .backwards)
        else { return DisplayWidth.fit(title, columns) }
        let tail = String(title[dot.lowerBound...])
        let room = columns - DisplayWidth.of(tail)
        guard room >= 2 else { return DisplayWidth.fit(title, columns) }
        return DisplayWidth.fit(DisplayWidth.clip(String(title[..<dot.lowerBound]), room) + tail, columns)
    }

    /// `preview` and then `tags` (`#여행 #friends`, after two spaces) in `columns` (nil: no limit):
    /// every tag shown is whole, never cut (`#frie…`), those that do not fit are left out (`…`),
    /// and the preview takes what the tags leave.
    public static func previewAndTags(_ preview: String, tags: [String], _ columns: Int?) -> String {
        let shown = tags.map { "#" + $0 }
        guard !shown.isEmpty else { return columns.map { DisplayWidth.clip(preview, $0) } ?? preview }
        var tagText = shown.joined(separator: " ")
        guard let columns else { return preview + "  " + tagText }
        var n = shown.count
        while n > 0, DisplayWidth.of(tagText) + 2 > columns {
            n -= 1
            tagText = (shown.prefix(n) + ["…"]).joined(separator: " ")
        }
        let left = columns - DisplayWidth.of(tagText) - 2
        return DisplayWidth.clip(DisplayWidth.clip(preview, max(0, left)) + "  " + tagText, columns)
    }
}
