import CCmark

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Markdown to HTML with cmark-gfm: CommonMark plus GitHub's tables,
/// strikethrough, autolinks and task lists.
///
/// Safe mode (no `CMARK_OPT_UNSAFE`): raw HTML in the text is replaced by an
/// `<!-- raw HTML omitted -->` comment and `javascript:`-style link targets are
/// dropped, so a `<script>` typed in a message never runs in the exported page.
///
///     let html = MarkdownRenderer.html("| a | b |\n| - | - |\n| 1 | 2 |") { url in nil }
///     // "<table>\n<thead>…"
enum MarkdownRenderer {
    /// The extensions `vault export` turns on.
    static let extensionNames = ["table", "strikethrough", "autolink", "tasklist"]

    /// Registers the core extensions once per process (Swift runs a static's
    /// initializer exactly once, even from several threads).
    private static let registered: Bool = {
        cmark_gfm_core_extensions_ensure_registered()
        return true
    }()

    /// Renders `markdown` to an HTML fragment.
    ///
    /// - Parameter rewriteImage: called with each image's target as written; a non-nil
    ///   result replaces it (used to point attachments at embedded data).
    static func html(_ markdown: String, rewriteImage: (String) -> String?) -> String {
        _ = registered
        let options = CMARK_OPT_DEFAULT
        guard let parser = cmark_parser_new(options) else { return "" }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let ext = cmark_find_syntax_extension(name) {
                cmark_parser_attach_syntax_extension(parser, ext)
            }
        }
        var text = markdown
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                cmark_parser_feed(parser, chars.baseAddress, chars.count)
            }
        }
        guard let document = cmark_parser_finish(parser) else { return "" }
        defer { cmark_node_free(document) }
        rewriteImages(in: document, rewriteImage)
        guard let rendered = cmark_render_html(document, options, cmark_parser_get_syntax_extensions(parser)) else {
            return ""
        }
        defer { free(rendered) }
        return String(cString: rendered)
    }

    /// Walks the tree and replaces the targets of images `rewrite` knows.
    private static func rewriteImages(in document: OpaquePointer, _ rewrite: (String) -> String?) {
        guard let iterator = cmark_iter_new(document) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator),
                cmark_node_get_type(node) == CMARK_NODE_IMAGE, let url = cmark_node_get_url(node)
            else { continue }
            if let replacement = rewrite(String(cString: url)) {
                cmark_node_set_url(node, replacement)
            }
        }
    }
}
