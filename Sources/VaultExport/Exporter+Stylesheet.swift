extension Exporter {
    /// The page's CSS, inline so the file stands alone.
    ///
    /// A readable column (42em), the platform's own sans-serif with Korean and
    /// Japanese fallbacks (Apple SD Gothic Neo on macOS, Malgun Gothic on Windows,
    /// Noto Sans KR/CJK on Linux and Android), `word-break: keep-all` so Hangul
    /// wraps between words, bordered tables, code blocks on a tinted panel, a
    /// coloured left rule per speaker, and a dark palette when the system asks.
    static let stylesheet = """
        :root {
          color-scheme: light dark;
          --text: #1f2328;
          --muted: #636c76;
          --bg: #ffffff;
          --panel: #f6f8fa;
          --border: #d1d9e0;
          --link: #0969da;
          --user: #0969da;
          --user-bg: #f1f7fe;
          --assistant: #8250df;
          --system: #9a6700;
          --tag-bg: #ddf4ff;
          --tag-text: #0550ae;
          --stripe: #f9fafb;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --text: #e6edf3;
            --muted: #9198a1;
            --bg: #0d1117;
            --panel: #151b23;
            --border: #3d444d;
            --link: #4493f8;
            --user: #4493f8;
            --user-bg: #111d2e;
            --assistant: #ab7df8;
            --system: #d29922;
            --tag-bg: #12263f;
            --tag-text: #9ecbff;
            --stripe: #11161d;
          }
        }
        * { box-sizing: border-box; }
        html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
        body {
          margin: 0;
          background: var(--bg);
          color: var(--text);
          font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial,
            "Apple SD Gothic Neo", "Noto Sans KR", "Noto Sans CJK KR", "Malgun Gothic", "Nanum Gothic",
            "Hiragino Sans", "Noto Sans JP", "Noto Sans CJK JP", "Yu Gothic", sans-serif,
            "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji";
          font-size: 17px;
          line-height: 1.75;
          word-break: keep-all;
          overflow-wrap: break-word;
        }
        main { max-width: 42em; margin: 0 auto; padding: 3.5rem 1.5rem 5rem; }
        h1, h2, h3, h4, h5, h6 { line-height: 1.35; margin: 1.8em 0 0.6em; font-weight: 700; }
        h1 { font-size: 1.85em; letter-spacing: -0.015em; }
        h2 { font-size: 1.4em; }
        h3 { font-size: 1.15em; }
        h4, h5, h6 { font-size: 1em; }
        p, ul, ol, dl, blockquote, pre, table { margin: 0 0 1.1em; }
        ul, ol { padding-left: 1.6em; }
        li + li, li > ul, li > ol { margin-top: 0.25em; }
        a { color: var(--link); text-underline-offset: 0.18em; }
        strong { font-weight: 700; }
        del { color: var(--muted); }
        hr { border: 0; border-top: 1px solid var(--border); margin: 2.2em 0; }
        hr.between-items { margin: 4rem 0; border-top: 2px dashed var(--border); }
        blockquote { margin-left: 0; padding: 0.1em 1.1em; border-left: 0.25em solid var(--border); \
        color: var(--muted); }
        img { max-width: 100%; height: auto; border-radius: 6px; }
        code, kbd, samp, pre {
          font-family: ui-monospace, "SF Mono", SFMono-Regular, Menlo, Consolas, "Cascadia Mono", "Liberation Mono",
            "DejaVu Sans Mono", "D2Coding", "Noto Sans Mono CJK KR", monospace;
        }
        code { font-size: 0.86em; background: var(--panel); border: 1px solid var(--border); border-radius: 5px; \
        padding: 0.1em 0.35em; }
        pre {
          background: var(--panel);
          border: 1px solid var(--border);
          border-radius: 8px;
          padding: 0.9em 1.1em;
          overflow-x: auto;
          line-height: 1.55;
          word-break: normal;
          overflow-wrap: normal;
        }
        pre code { font-size: 0.84em; background: none; border: 0; padding: 0; white-space: pre; }
        table { border-collapse: collapse; display: block; max-width: 100%; overflow-x: auto; font-size: 0.94em; \
        line-height: 1.5; }
        th, td { border: 1px solid var(--border); padding: 0.4em 0.8em; text-align: left; vertical-align: top; }
        tbody tr:nth-child(2n) td { background: var(--stripe); }
        th { background: var(--panel); font-weight: 600; }
        th[align="center"], td[align="center"] { text-align: center; }
        th[align="right"], td[align="right"] { text-align: right; }
        li:has(> input[type="checkbox"]) { list-style: none; }
        li > input[type="checkbox"] { margin: 0 0.45em 0 -1.35em; vertical-align: -0.1em; }
        article > header h1 { margin-top: 0; }
        article > header h2 { margin-top: -0.2em; }
        article > header code {
          display: inline-block;
          font-family: inherit;
          font-size: 0.8em;
          background: var(--tag-bg);
          color: var(--tag-text);
          border: 0;
          border-radius: 999px;
          padding: 0.05em 0.7em;
          margin: 0 0.15em 0.3em 0;
        }
        .diary-entry > header h1:has(+ h2) { color: var(--muted); font-size: 1.05em; font-weight: 600; \
        letter-spacing: 0; margin-bottom: 0.2em; }
        .diary-entry > header h1 + h2 { font-size: 1.85em; margin-top: 0; }
        .message { margin: 1.6rem 0; padding: 0.2em 0 0.2em 1.15em; border-left: 3px solid var(--assistant); }
        .message.user { border-left-color: var(--user); background: var(--user-bg); border-radius: 0 10px 10px 0; \
        padding: 0.8em 1.15em; }
        .message.system { border-left-color: var(--system); }
        details.message > summary { font-size: 0.82em; font-weight: 600; color: var(--muted); cursor: pointer; }
        details.message { opacity: 0.85; }
        .message > h3:first-child { font-size: 0.82em; font-weight: 600; color: var(--muted); margin: 0 0 0.55em; \
        letter-spacing: 0.01em; }
        .message.user > h3:first-child { color: var(--user); }
        .message.assistant > h3:first-child { color: var(--assistant); }
        .message h1, .message h2 { font-size: 1.2em; margin-top: 1.4em; }
        .message h3 { font-size: 1.05em; }
        .message > :last-child, .entry-body > :last-child { margin-bottom: 0; }
        @media print {
          main { max-width: none; padding: 0; }
          pre { white-space: pre-wrap; }
          pre code { white-space: pre-wrap; }
          hr.between-items { break-after: page; border: 0; margin: 0; }
        }

        """
}
