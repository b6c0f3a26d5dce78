import Foundation
import VaultKit

/// A command line that is wrong before any vault is read: options that do not go together,
/// a value an option does not take, nothing named where something must be.
///
/// Only the CLI raises these (the library never sees a command line; the values it rejects
/// are `InputProblem`s). Like ArgumentParser's own usage errors (an unknown option, a missing
/// argument), they exit with status 64, `EX_USAGE` (`ExitStatus.usage`). Nothing was read or
/// written when one is thrown; the message says what to write instead.
///
///     throw UsageError.unknownFormat("pdf")
///     // vault: error: unknown format 'pdf': write md, html or json
enum UsageError: Error, CustomStringConvertible {
    /// `--locale` names no locale vault can write dates in.
    case unknownLocale(String)
    /// `--time-zone` is not an IANA zone name; `example` is one to show.
    case unknownTimeZone(String, example: String)
    /// `--format` of `vault export` is not md, html or json.
    case unknownFormat(String)
    /// `vault export` with nothing to export named.
    case nothingToExport
    /// `vault export` with more than one of: items, `--diary`, `--room`.
    case severalExportSources
    /// `--since`, `--until` or `--tag` of `vault export` without `--diary`.
    case diaryFilterWithoutDiary
    /// `--since` is a later day than `--until`.
    case sinceAfterUntil(since: String, until: String)
    /// `vault sync --undo` with a remote or `--dry-run`.
    case undoWithOptions
    /// `vault resolve ROOM` without `--keep ID` or `--keep-both`, both, or either without a room.
    case settleHow
    /// `vault search --role` is not user, assistant or system.
    case unknownRole(String)
    /// More than one of `vault search`'s `--room`, `--rooms` and `--diary`.
    case severalSearchScopes
    /// `vault search --since`/`--until` (`option`) is not a day.
    case notADay(option: String, text: String)
    /// `--color` is not auto, always or never.
    case unknownColor(String)
    /// `vault room set ROOM KEY` with neither a value nor `--unset`.
    case missingValue(key: String)
    /// `vault room set ROOM KEY` with more than one value (an unquoted text, an unknown option).
    case severalValues(key: String, values: [String])
    /// `vault tag ITEM` with no `+tag` or `-tag`.
    case noTagChanges
    /// A `vault tag` argument that is not `+tag` or `-tag` with a usable tag.
    case notATagChange(String)
    /// `vault rm` with standard input not a terminal (no one to ask) and no `--yes`.
    case confirmationNeeded(path: String)
    /// `vault import` could not tell what made the files (no SOURCE given, none recognized).
    case unknownImportSource(path: String)
    /// `vault import` was given no file and its source has no default place.
    case nothingToImport(source: String)
    /// A listing's `--format` template that cannot be read: an unknown `%(field)` (`known` lists
    /// the listing's), or a `%` that starts no placeholder (`problem` says which).
    case unusableTemplate(problem: String, known: [String])
    /// A listing's `--json` and `--format` together.
    case jsonAndFormat
    /// `-n` below 0.
    case negativeCount(Int)

    var description: String {
        switch self {
        case .unknownLocale(let raw):
            return "unknown locale '\(raw)' (try ko_KR, ja_JP, de_DE, en_US)"
        case .unknownTimeZone(let raw, let example):
            return "unknown time zone '\(raw)' (write an IANA name like \(example))"
        case .unknownFormat(let format):
            return "unknown format '\(format)': write md, html or json"
        case .nothingToExport:
            return "name what to export: rooms or diary entries, --diary, or --room ROOM"
        case .severalExportSources:
            return "export either named items, --diary or --room ROOM, not several of them"
        case .diaryFilterWithoutDiary:
            return "--since, --until and --tag choose diary entries: use them with --diary"
        case .sinceAfterUntil(let since, let until):
            return "--since \(since) is after --until \(until): no day is in between"
        case .undoWithOptions:
            return "--undo takes no remote and no --dry-run"
        case .unknownRole(let role):
            return "unknown role '\(role)': use user, assistant or system"
        case .severalSearchScopes:
            return "give one of --room, --rooms and --diary"
        case .notADay(let option, let text):
            return "\(option) '\(text)' is not a day: write 2026-11-21, 2026-11-21T22:30, today, yesterday or -N"
        case .unknownColor(let color):
            return "--color takes auto, always or never, not '\(color)'"
        case .missingValue(let key):
            return "give a value for '\(key)', or --unset"
        case .severalValues(let key, let values):
            return "give one value for '\(key)', not \(values.count) (\(values.joined(separator: " "))): quote a text"
                + " with spaces, \"like this\""
        case .noTagChanges:
            return "give tags to change: +tag adds, -tag removes"
        case .settleHow:
            return "name a room and one of --keep ID (the version to keep) or --keep-both: `vault resolve 부산 --keep m-01JPA3K8Z4QX`"
        case .notATagChange(let change):
            return "'\(change)' is not a tag (write +tag or -tag)"
        case .confirmationNeeded(let path):
            return "not removing \(path) without confirmation: add --yes"
        case .unknownImportSource(let path):
            return "cannot tell which tool made \(path): name it first (`vault import SOURCE \(path)`;"
                + " SOURCE is one of " + ImportSource.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        case .nothingToImport(let source):
            return "`vault import \(source)` needs the export's file or folder: `vault import \(source) PATH`"
        case .unusableTemplate(let problem, let known):
            return "--format: \(problem); the fields are " + known.map { "%(\($0))" }.joined(separator: " ")
        case .jsonAndFormat:
            return "--json and --format do not go together: give one"
        case .negativeCount(let n):
            return "-n takes a count of 0 or more, not \(n)"
        }
    }
}
