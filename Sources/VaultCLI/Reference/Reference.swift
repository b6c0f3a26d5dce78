import ArgumentParser
import Foundation

/// What the manual and README.md say besides the commands' own help: the exit statuses, the
/// environment variables vault reads, and examples. The one place they are written.
///
/// `scripts/generate-manual.py` reads them (`vault reference`, hidden) and writes the manual's
/// EXIT STATUS, ENVIRONMENT and EXAMPLES from them; its `--check` (in `scripts/test.sh`) and
/// `ReferenceTests` compare README.md's tables with them, and the environment list with the
/// variables the code reads.
enum Reference {
    /// A row of an exit-status table: the status as written (`64`, `128 + N`) and its meaning.
    struct Status: Encodable {
        let status: String
        let meaning: String
    }

    /// Every status `ExitStatus` gives, then the statuses of signals (`Termination`).
    static var exitStatuses: [Status] {
        ExitStatus.allCases.map { Status(status: String($0.rawValue), meaning: $0.meaning) } + [
            Status(
                status: "128 + N",
                meaning: "stopped by signal N (129 SIGHUP, 143 SIGTERM) once the change in progress was saved and committed")
        ]
    }

    /// An environment variable vault reads.
    struct Variable: Encodable {
        let name: String
        /// Its default, as written in the table (`15`, `16M`); empty when it has none.
        let fallback: String
        let meaning: String

        enum CodingKeys: String, CodingKey {
            case name, fallback = "default", meaning
        }
    }

    /// Every environment variable vault reads, in the order README.md's "Environment" table
    /// lists them. (`VAULT_CRASH_AT`, read by the tests' crash points, and `VAULT_TEST_VOLUME_SIZES`, their small volumes, are not for people.)
    static let environment: [Variable] = [
        Variable(name: "VAULT_DIR", fallback: "", meaning: "the vault, when `--vault` is not given"),
        Variable(
            name: "VAULT_PAGER", fallback: "",
            meaning: "the pager for long output (before `pager:` in the user configuration, `$PAGER` and `less -FRX`); `cat` or empty: none"),
        Variable(name: "PAGER", fallback: "less -FRX", meaning: "the pager, when neither `VAULT_PAGER` nor `pager:` names one"),
        Variable(name: "NO_COLOR", fallback: "", meaning: "set and not empty: no color, unless `--color` asks for it"),
        Variable(name: "COLUMNS", fallback: "", meaning: "the width listings are fitted to; set, listings are aligned even into a pipe"),
        Variable(name: "LINES", fallback: "24", meaning: "the rows of `vault ui` when the terminal does not say its size"),
        Variable(name: "TERM", fallback: "", meaning: "`dumb`: `vault ui` without colors, as `NO_COLOR`"),
        Variable(
            name: "VAULT_UI_NOW", fallback: "",
            meaning: "a moment (`2026-12-03T09:00:00+09:00`) `vault ui` takes as now for its calendar and \"how long ago\": repeatable screens"),
        Variable(name: "VISUAL", fallback: "", meaning: "the editor, before `EDITOR` and `editor:` in the user configuration"),
        Variable(name: "EDITOR", fallback: "vi", meaning: "the editor, when `VISUAL` is not set"),
        Variable(
            name: "OPENAI_API_KEY", fallback: "",
            meaning: "the key sent to OpenAI or to `OPENAI_BASE_URL` (another server's key is approved in the user configuration)"),
        Variable(
            name: "OPENAI_BASE_URL", fallback: "",
            meaning: "the OpenAI-compatible server to talk to when `vault.yml` names no provider"),
        Variable(name: "VAULT_CONNECT_TIMEOUT", fallback: "15", meaning: "seconds to connect"),
        Variable(name: "VAULT_FIRST_BYTE_TIMEOUT", fallback: "60", meaning: "seconds for the first byte of an answer"),
        Variable(name: "VAULT_IDLE_TIMEOUT", fallback: "120", meaning: "seconds of silence in the middle of an answer"),
        Variable(name: "VAULT_MAX_RETRY_WAIT", fallback: "60", meaning: "longest `Retry-After` waited out"),
        Variable(name: "VAULT_MAX_REPLY_BYTES", fallback: "16M", meaning: "longest reply kept (`512K`, `64M`, `1G`)"),
        Variable(
            name: "VAULT_LOCK_TIMEOUT", fallback: "30",
            meaning: "seconds to wait for another vault's lock (a chat turn, a sync) before giving up"),
        Variable(
            name: "VAULT_WATCH_INTERVAL", fallback: "5",
            meaning: "seconds between the background syncs of the chat prompt in a shared room (`vault watch` takes `--interval`)"),
        Variable(
            name: "VAULT_NO_WATCH", fallback: "",
            meaning: "set and not empty: an indexed search, a sync or a listing starts and asks no background watcher (`--no-watch`)"),
        Variable(name: "VAULT_WATCH_IDLE", fallback: "1800", meaning: "seconds without a search before the watcher ends"),
        Variable(
            name: "VAULT_WATCH_MAX_PATHS", fallback: "10000",
            meaning: "changed paths the watcher keeps; more, and the next search checks every file"),
        Variable(
            name: "VAULT_MACHINE", fallback: "",
            meaning: "this machine's name in commit trailers and conflict copies (default: git config `vault.machine`, else the host name)"),
        Variable(
            name: "VAULT_GIT_TOKEN", fallback: "",
            meaning: "a token that answers an https remote's password prompt during `vault sync` and `vault clone`"),
        Variable(name: "VAULT_GIT_USERNAME", fallback: "vault", meaning: "the user name sent with `VAULT_GIT_TOKEN`"),
        Variable(
            name: "VAULT_PROGRESS_DELAY", fallback: "0.7",
            meaning: "seconds before a progress line appears on a terminal"),
        Variable(name: "VAULT_TRACE", fallback: "", meaning: "`1`: the timings of a command's steps, on standard error"),
        Variable(
            name: "XDG_CONFIG_HOME", fallback: "~/.config",
            meaning: "where the user configuration is (`vault/config.yml`): API key approvals, defaults and this machine's caps on what comes in (`limits:`)"),
        Variable(
            name: "XDG_CACHE_HOME", fallback: "~/.cache",
            meaning: "where search keeps its file list and index (`vault/search/`), and listings what they read (`vault/listing/`)"),
        Variable(
            name: "CLAUDE_CONFIG_DIR", fallback: "~/.claude",
            meaning: "where `vault import claude-code` looks for Claude Code's sessions (`projects/`) when no PATH is given"),
        Variable(
            name: "LLM_USER_PATH", fallback: "~/.config/io.datasette.llm",
            meaning: "where `vault import llm` looks for llm's `logs.db` when no PATH is given"),
        Variable(name: "XDG_STATE_HOME", fallback: "~/.local/state", meaning: "where the chat prompt keeps its history (`vault/history`)"),
        Variable(
            name: "LC_ALL", fallback: "",
            meaning: "with `LC_TIME` and `LANG`: the locale `vault init` writes into `vault.yml`"),
        Variable(
            name: "TZ", fallback: "",
            meaning: "the zone diary times are written in (unset, and the machine's zone plain UTC: the vault's zone)"),
    ]

    /// A command line and what it does, for the manual's EXAMPLES.
    struct Example: Encodable {
        let command: String
        let meaning: String
    }

    static let examples: [Example] = [
        Example(command: "vault init ~/vault --locale ko_KR --time-zone Asia/Seoul", meaning: "Make a folder a vault."),
        Example(command: "vault room new \"부산 여행\" --model gpt-4o-mini", meaning: "Start a chat room."),
        Example(command: "vault chat 부산 \"해운대 근처 숙소 추천해줘\"", meaning: "Send a message; the reply streams in and is appended to the room."),
        Example(command: "vault write --tag 겨울 --body \"첫눈이 왔다.\"", meaning: "Write today's diary entry."),
        Example(command: "vault rooms | cut -f1", meaning: "The rooms' paths, one a line: into a pipe each row is its fields separated by tabs."),
        Example(
            command: "vault diary list --since -7 --format '%(date) %(title)'",
            meaning: "The last week's entries, each as a template of your own."),
        Example(command: "vault search 해운대 --role user -c", meaning: "How many of your messages mention it, file by file."),
        Example(command: "vault log --since yesterday -n 5", meaning: "The last five changes since yesterday, with their authors and files."),
        Example(command: "vault export --diary --since 2026-11-01 --format html -o november.html", meaning: "Share a month of the diary as one page."),
        Example(command: "vault sync", meaning: "Commit hand edits, fetch, merge without losing a word, push."),
    ]
}

extension VaultCommand {
    /// `vault reference`: the exit statuses, environment variables and examples as JSON, for
    /// `scripts/generate-manual.py` (hidden: not for people).
    struct ReferenceCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reference",
            abstract: "Print the exit statuses, environment variables and examples as JSON (for the manual).",
            shouldDisplay: false)

        struct Document: Encodable {
            let exitStatuses: [Reference.Status]
            let environment: [Reference.Variable]
            let examples: [Reference.Example]

            enum CodingKeys: String, CodingKey {
                case exitStatuses = "exit_statuses", environment, examples
            }
        }

        func run() throws {
            try Terminal.json(
                Document(
                    exitStatuses: Reference.exitStatuses, environment: Reference.environment,
                    examples: Reference.examples))
        }
    }
}
