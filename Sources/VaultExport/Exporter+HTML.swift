import Foundation
import VaultCore

/// An exported HTML page and what could not be put in it.
public struct HTMLExport: Sendable {
    /// A complete HTML5 document, UTF-8.
    public var html: String
    /// Attachments left as links (missing, or not an image): one line each for standard error.
    public var warnings: [ExportWarning]
}

extension Exporter {
    /// The items as one self-contained HTML page: the Markdown of `markdown(_:)`
    /// rendered by cmark-gfm (raw HTML omitted), inline CSS, and images from
    /// `attachments/` embedded as `data:` URLs.
    ///
    /// Each block of the Markdown (an item's headings, one message, an entry's body)
    /// is rendered on its own and wrapped in an element that says what it is
    /// (`<section class="message assistant">`), so the page can style user and
    /// assistant apart and an unclosed code fence in one message cannot swallow
    /// the rest of the page.
    ///
    /// - Parameter title: the page's `<title>`; by default the item's title, or the
    ///   first titles of several.
    public func html(_ items: [ExportItem], title: String? = nil) -> HTMLExport {
        var embedder = AttachmentEmbedder(vaultRoot: vaultRoot)
        var body = ""
        for (k, item) in items.enumerated() {
            if k > 0 { body += "<hr class=\"between-items\" />\n" }
            let kind: String
            switch item {
            case .diaryEntry: kind = "diary-entry"
            case .room: kind = "room"
            }
            body += "<article class=\"\(kind)\">\n"
            for part in parts(of: item) {
                if case .message(let role) = part.kind, let folded = part.folded {
                    // Reasoning and tool calls: there, one click away, not in the conversation's way.
                    let inner = MarkdownRenderer.html(folded.body) { target in
                        embedder.placeholder(for: target, in: item.path)
                    }
                    body += "<details class=\"message \(role.rawValue) \(Exporter.escapeHTML(folded.kind))\">\n"
                        + "<summary>\(Exporter.escapeHTML(folded.heading))</summary>\n\(inner)</details>\n"
                    continue
                }
                let fragment = MarkdownRenderer.html(part.markdown) { target in
                    embedder.placeholder(for: target, in: item.path)
                }
                switch part.kind {
                case .head: body += "<header>\n\(fragment)</header>\n"
                case .message(let role): body += "<section class=\"message \(role.rawValue)\">\n\(fragment)</section>\n"
                case .body: body += "<div class=\"entry-body\">\n\(fragment)</div>\n"
                }
            }
            body += "</article>\n"
            reportProgress(k + 1, of: items.count)
        }
        let pageTitle = title ?? Exporter.defaultTitle(items)
        let language = locale.split(separator: ".").first.map { $0.replacingOccurrences(of: "_", with: "-") } ?? "en"
        let page = """
            <!DOCTYPE html>
            <html lang="\(Exporter.escapeHTML(language))">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="vault export">
            <title>\(Exporter.escapeHTML(pageTitle))</title>
            <style>
            \(Exporter.stylesheet)</style>
            </head>
            <body>
            <main>
            \(embedder.fillingIn(body))</main>
            </body>
            </html>

            """
        return HTMLExport(html: page, warnings: embedder.warnings)
    }

    /// The item's title, or the first three titles of several.
    static func defaultTitle(_ items: [ExportItem]) -> String {
        let titles = items.prefix(3).map(\.title)
        if items.isEmpty { return "vault" }
        return titles.joined(separator: " · ") + (items.count > 3 ? " · …" : "")
    }

    /// Text for an HTML attribute or element.
    static func escapeHTML(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(ch)
            }
        }
        return out
    }
}
