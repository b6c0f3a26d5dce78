/// A size a person writes in a setting: `16777216`, `16M`, `16MiB`, `512K`, `1G`.
package enum ByteCount {
    /// The number of bytes; nil for anything else (or less than one).
    package static func parse(_ text: String) -> Int? {
        var digits = Substring(text.trimmingCharacters(in: .whitespaces))
        var unit = 1
        for (suffixes, scale) in [(["GiB", "G"], 1 << 30), (["MiB", "M"], 1 << 20), (["KiB", "K"], 1 << 10)] {
            if let suffix = suffixes.first(where: { digits.uppercased().hasSuffix($0.uppercased()) }) {
                digits = digits.dropLast(suffix.count)
                unit = scale
                break
            }
        }
        guard let n = Int(digits.trimmingCharacters(in: .whitespaces)), n > 0 else { return nil }
        let (total, overflow) = n.multipliedReportingOverflow(by: unit)
        return overflow ? nil : total
    }

    /// `bytes` as a person reads it: `64 MiB`, `1.5 MiB`, `12 KiB`, `300 bytes`.
    package static func text(_ bytes: Int) -> String {
        if bytes >= 1 << 30 && bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20 {
            return bytes % (1 << 20) == 0
                ? "\(bytes >> 20) MiB" : String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
        }
        if bytes >= 1 << 10 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}
