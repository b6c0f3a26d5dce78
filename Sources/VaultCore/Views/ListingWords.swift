/// Every word vault puts around what the files say, in the vault's language (the rest is the
/// person's own text, and dates and times are made by ICU in the locale): the listings'
/// `(2 new)` / `(새 메시지 2)`, `[interrupted]` / `[중단됨]`; `vault show`'s notes on a message;
/// the display part of a reply's header in the room file (`· interrupted` / `· 중단됨`: never
/// read back, FORMAT.md); an imported room's `Untitled` and `· branch 2`; an export's titles
/// and message labels. One table: a word vault writes or shows is added here, for every
/// language. Languages without their own words get English.
///
///     ListingWords.of("ko_KR").interruptedNote   // "⚠️ 중단됨: 완성되지 않은 답변"
public struct ListingWords: Sendable {
    /// Before a room's preview when messages came in by sync and were not shown yet.
    public let unread: @Sendable (Int) -> String
    /// Before the preview of a room whose last reply stopped before it was complete.
    public let interrupted: String
    /// Before the preview of a conflict copy: `[conflict copy of rooms/x.md]`.
    public let conflictCopy: @Sendable (String) -> String
    /// A room git left conflict markers in.
    public let markers: String
    /// A room that cannot be read.
    public let unreadable: String
    /// No room at all.
    public let noRooms: String
    /// No diary entry at all.
    public let noEntries: String
    /// The headings of a shared vault's room list: groups, direct messages, one's own rooms,
    /// rooms not joined (`RoomSections`).
    public var sections: [String] = ["Groups", "Direct messages", "Your rooms", "Not joined"]

    // What is said of a message (`vault show`, the room file, exports).

    /// A reply that stopped before it was complete, in `vault show` (`RoomTranscript.Completion`).
    public var interruptedNote = "⚠️ interrupted: incomplete reply"
    /// A reply the server cut short, with its reason (`length`), in `vault show`.
    public var truncatedNote: @Sendable (String) -> String = { "⚠️ cut off by the server (\($0))" }
    /// After the date in the room file's header of such a reply, and in an export's heading:
    /// `· interrupted`, `· truncated`. Display only: `status=` and `truncated=` say it for readers.
    public var interruptedMark = "interrupted"
    public var truncatedMark = "truncated"
    /// Who wrote a reply of the built-in offline provider (`vault show`, exports).
    public var offline = "offline, no model"
    /// The title of an imported conversation with none and no line of its own to be titled by.
    public var untitled = "Untitled"
    /// After the title of an imported conversation's other branch: `TITLE · branch 2`.
    public var branch: @Sendable (Int) -> String = { "branch \($0)" }
    /// An exported diary's title, before its days: `Diary · 2026-11-28 – 2026-12-02`.
    public var diary = "Diary"
    /// The rooms' tab in `vault ui`, beside the diary's.
    public var rooms = "Rooms"
    /// The roles in an export's message headings (`🧑 user · …`); the room file keeps the
    /// machine's `user`, `assistant`, `system` (FORMAT.md).
    public var roles: [Role: String] = [.user: "user", .assistant: "assistant", .system: "system"]

    /// A role's word (`roles`).
    public func role(_ role: Role) -> String { roles[role] ?? role.rawValue }

    /// The note `vault show` gives a message that did not end whole; nil for one that did.
    public func note(_ completion: RoomTranscript.Completion) -> String? {
        switch completion {
        case .complete: return nil
        case .interrupted: return interruptedNote
        case .truncated(let reason): return truncatedNote(reason)
        case .other(let status): return status
        }
    }

    /// Before a room's preview when messages that came in claim an author their commit does not
    /// bear out (`UnverifiedMarks`): `(1 unverified)`.
    public static func unverified(_ count: Int, locale: String) -> String {
        switch locale.split(separator: "_").first.map(String.init) ?? locale {
        case "ko": return "(확인되지 않은 작성자 \(count))"
        case "ja": return "(未確認の作成者 \(count))"
        case "de": return "(\(count) nicht bestätigt)"
        case "fr": return "(\(count) non vérifié\(count <= 1 ? "" : "s"))"
        case "es": return "(\(count) sin verificar)"
        default: return "(\(count) unverified)"
        }
    }

    public static func of(_ locale: String) -> ListingWords {
        switch locale.split(separator: "_").first.map(String.init) ?? locale {
        case "ko":
            return ListingWords(
                unread: { "(새 메시지 \($0))" }, interrupted: "[중단됨]", conflictCopy: { "[\($0)의 충돌 사본]" },
                markers: "git이 충돌 표시를 남겼습니다: `vault resolve`를 실행하세요",
                unreadable: "읽을 수 없습니다: `vault check`를 실행하세요",
                noRooms: "아직 방이 없습니다. `vault room new 제목`으로 시작하세요.", noEntries: "아직 일기가 없습니다.",
                sections: ["그룹", "1:1 대화", "내 방", "참여하지 않은 방"],
                interruptedNote: "⚠️ 중단됨: 완성되지 않은 답변", truncatedNote: { "⚠️ 서버가 답변을 끊었습니다 (\($0))" },
                interruptedMark: "중단됨", truncatedMark: "잘림", offline: "오프라인, 모델 없음", untitled: "제목 없음",
                branch: { "분기 \($0)" }, diary: "일기", rooms: "방", roles: [.user: "사용자", .assistant: "어시스턴트", .system: "시스템"])
        case "ja":
            return ListingWords(
                unread: { "(新着 \($0))" }, interrupted: "[中断]", conflictCopy: { "[\($0) の競合コピー]" },
                markers: "git が競合マーカーを残しました: `vault resolve` を実行してください",
                unreadable: "読めません: `vault check` を実行してください",
                noRooms: "まだルームがありません。`vault room new タイトル` で始めてください。", noEntries: "まだ日記がありません。",
                sections: ["グループ", "ダイレクトメッセージ", "自分のルーム", "未参加のルーム"],
                interruptedNote: "⚠️ 中断: 未完の返答", truncatedNote: { "⚠️ サーバーが返答を打ち切りました (\($0))" },
                interruptedMark: "中断", truncatedMark: "打ち切り", offline: "オフライン、モデルなし", untitled: "無題",
                branch: { "分岐 \($0)" }, diary: "日記", rooms: "ルーム", roles: [.user: "ユーザー", .assistant: "アシスタント", .system: "システム"])
        case "de":
            return ListingWords(
                unread: { "(\($0) neu)" }, interrupted: "[abgebrochen]", conflictCopy: { "[Konfliktkopie von \($0)]" },
                markers: "git hat Konfliktmarker hinterlassen: `vault resolve` ausführen",
                unreadable: "nicht lesbar: `vault check` ausführen",
                noRooms: "Noch keine Räume. Einen beginnen mit `vault room new TITEL`.",
                noEntries: "Noch keine Tagebucheinträge.",
                sections: ["Gruppen", "Direktnachrichten", "Eigene Räume", "Nicht beigetreten"],
                interruptedNote: "⚠️ abgebrochen: unvollständige Antwort", truncatedNote: { "⚠️ vom Server abgeschnitten (\($0))" },
                interruptedMark: "abgebrochen", truncatedMark: "abgeschnitten", offline: "offline, kein Modell",
                untitled: "Ohne Titel", branch: { "Zweig \($0)" }, diary: "Tagebuch", rooms: "Räume",
                roles: [.user: "Nutzer", .assistant: "Assistent", .system: "System"])
        case "fr":
            return ListingWords(
                unread: { "(\($0) \($0 <= 1 ? "nouveau" : "nouveaux"))" }, interrupted: "[interrompu]",
                conflictCopy: { "[copie en conflit de \($0)]" },
                markers: "git a laissé des marqueurs de conflit : lancez `vault resolve`",
                unreadable: "illisible : lancez `vault check`",
                noRooms: "Aucun salon pour l’instant. Commencez-en un avec `vault room new TITRE`.",
                noEntries: "Aucune entrée de journal pour l’instant.",
                sections: ["Groupes", "Messages directs", "Vos salons", "Salons non rejoints"],
                interruptedNote: "⚠️ interrompu : réponse incomplète", truncatedNote: { "⚠️ coupé par le serveur (\($0))" },
                interruptedMark: "interrompu", truncatedMark: "tronqué", offline: "hors ligne, aucun modèle",
                untitled: "Sans titre", branch: { "branche \($0)" }, diary: "Journal", rooms: "Salons",
                roles: [.user: "utilisateur", .assistant: "assistant", .system: "système"])
        case "es":
            return ListingWords(
                unread: { "(\($0) \($0 == 1 ? "nuevo" : "nuevos"))" }, interrupted: "[interrumpido]",
                conflictCopy: { "[copia en conflicto de \($0)]" },
                markers: "git dejó marcas de conflicto: ejecute `vault resolve`",
                unreadable: "no se puede leer: ejecute `vault check`",
                noRooms: "Aún no hay salas. Empiece una con `vault room new TÍTULO`.",
                noEntries: "Aún no hay entradas de diario.",
                sections: ["Grupos", "Mensajes directos", "Tus salas", "Salas sin unirse"],
                interruptedNote: "⚠️ interrumpido: respuesta incompleta", truncatedNote: { "⚠️ cortado por el servidor (\($0))" },
                interruptedMark: "interrumpido", truncatedMark: "truncado", offline: "sin conexión, sin modelo",
                untitled: "Sin título", branch: { "rama \($0)" }, diary: "Diario", rooms: "Salas",
                roles: [.user: "usuario", .assistant: "asistente", .system: "sistema"])
        default:
            return ListingWords(
                unread: { "(\($0) new)" }, interrupted: "[interrupted]", conflictCopy: { "[conflict copy of \($0)]" },
                markers: "git left conflict markers: run `vault resolve`", unreadable: "cannot be read: run `vault check`",
                noRooms: "No rooms yet. Start one with `vault room new TITLE`.", noEntries: "No diary entries yet.")
        }
    }
}

extension RoomSummary {
    /// What a room's row shows after its title, in `locale` (`words`): how many new messages,
    /// the marks (unverified authors, a conflict copy, an interrupted reply), then whose words
    /// and the last message's first line (`Ada Kim: 10시!`), or why the file cannot be read.
    /// `vault rooms` and `vault ui` show the same row.
    package func listingPreview(words: ListingWords, locale: String) -> String {
        var preview = problem.map { $0.contains("conflict markers") ? words.markers : words.unreadable } ?? self.preview
        // In a shared room, whose words they are: `Ada Kim: 10시!`.
        if problem == nil, !hasPendingPrompt, let author = lastAuthor {
            preview = author + ": " + preview
        }
        if problem == nil, !hasPendingPrompt, lastIsInterrupted {
            preview = words.interrupted + " " + preview
        }
        // A Syncthing or Dropbox copy has its original's title: marked, never an unmarked twin.
        if let original = conflictCopyOf { preview = words.conflictCopy(original) + " " + preview }
        // Messages whose author their commit does not bear out: said before anything else.
        if unverified > 0 { preview = ListingWords.unverified(unverified, locale: locale) + " " + preview }
        return (unread > 0 ? words.unread(unread) + " " : "") + preview
    }
}
