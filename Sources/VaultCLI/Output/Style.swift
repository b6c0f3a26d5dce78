import ArgumentParser
import Foundation
import VaultCore

/// `--color` and `--no-pager`, for every command that prints a listing or a document.
struct OutputOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Color: auto, always or never; default: the user configuration's, else auto."))
    var color: String?

    @Flag(name: .customLong("no-pager"), help: "Never send the output through a pager.")
    var noPager = false

    /// The style to print with: `--color`, else `NO_COLOR` (none), else the user configuration's
    /// `color`, else colored when standard output is a terminal.
    func style(environment: [String: String] = ProcessInfo.processInfo.environment) throws(UsageError) -> Style {
        try Style.resolve(flag: color, environment: environment)
    }
}

/// How text is colored on a terminal: roles in their colors, dates dim, titles bold, hits in
/// bold red (as `search` shows them). Plain when not `colored`.
///
/// Every piece is made visible (`Terminal.visible`, on one line) before it is painted: only
/// the escape sequences added here reach the terminal. Lines built from painted pieces are
/// written with `Terminal.line`, never `print` (which would make the colors visible too).
struct Style: Sendable {
    let colored: Bool

    static let plain = Style(colored: false)

    static func resolve(flag: String?, environment: [String: String]) throws(UsageError) -> Style {
        let choice: String
        if let flag {
            guard UserConfig.Color(rawValue: flag) != nil else { throw UsageError.unknownColor(flag) }
            choice = flag
        } else if !(environment["NO_COLOR"] ?? "").isEmpty {
            choice = "never"
        } else {
            choice = (try? UserConfig.load(environment: environment).color)?.rawValue ?? "auto"
        }
        return Style(colored: choice == "always" || (choice == "auto" && Terminal.stdoutIsTerminal))
    }

    /// `text` (made visible, on one line) in the SGR `code`, when colored.
    func paint(_ text: String, _ code: String) -> String {
        painted(Terminal.visible(text, singleLine: true), code)
    }

    /// `text`, already visible, in the SGR `code`, when colored.
    func painted(_ text: String, _ code: String) -> String {
        colored && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func title(_ text: String) -> String { paint(text, "1") }
    func date(_ text: String) -> String { paint(text, "2") }
    func warning(_ text: String) -> String { paint(text, "33") }
    func hit(_ text: String) -> String { paint(text, "1;31") }
    func commit(_ text: String) -> String { paint(text, "33") }

    /// A role's label (`🧑 user`) in its color: user green, assistant cyan, system yellow.
    func role(_ role: Role, _ text: String) -> String {
        switch role {
        case .user: paint(text, "32")
        case .assistant: paint(text, "36")
        case .system: paint(text, "33")
        }
    }

    /// A line of a unified diff: additions green, removals red, hunk headers cyan.
    func diffLine(_ line: String) -> String {
        if line.hasPrefix("+++") || line.hasPrefix("---") { return paint(line, "1") }
        if line.hasPrefix("+") { return paint(line, "32") }
        if line.hasPrefix("-") { return paint(line, "31") }
        if line.hasPrefix("@@") { return paint(line, "36") }
        return Terminal.visible(line, singleLine: true)
    }
}

extension Terminal {
    /// Writes `text` and a line feed to standard output as it is: for lines built from `Style`'s
    /// pieces, which made their text visible themselves.
    static func line(_ text: String) {
        write(text + "\n", to: 1)
    }
}
