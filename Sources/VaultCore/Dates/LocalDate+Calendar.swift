extension LocalDate {
    /// Whole calendar days from `other` to this day (positive when this day is later).
    public func days(since other: LocalDate) -> Int {
        LocalDate.daysSince1970(year: year, month: month, day: day)
            - LocalDate.daysSince1970(year: other.year, month: other.month, day: other.day)
    }

    /// The day of the week, 1 for Sunday to 7 for Saturday (Foundation's numbering).
    public var weekday: Int {
        // 1970-01-01 was a Thursday (5).
        let d = LocalDate.daysSince1970(year: year, month: month, day: day)
        return ((d % 7 + 7) % 7 + 4) % 7 + 1
    }

    /// The number of days in this day's month.
    public var daysInMonth: Int { LocalDate.daysIn(month: month, year: year) }
}
