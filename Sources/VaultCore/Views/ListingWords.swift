/// The words `vault rooms` and `vault diary list` put around what the files say, in the
/// vault's language (the rest of a row is the person's own text, and its times are made by
/// ICU in the locale): `(2 new)` / `(새 메시지 2)`, `[interrupted]` / `[중단됨]`.
/// Languages without their own words get English.
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

    public static func of(_ locale: String) -> ListingWords {
        switch locale.split(separator: "_").first.map(String.init) ?? locale {
        case "ko":
            return ListingWords(
                unread: { "(새 메시지 \($0))" }, interrupted: "[중단됨]", conflictCopy: { "[\($0)의 충돌 사본]" },
                markers: "git이 충돌 표시를 남겼습니다: `vault resolve`를 실행하세요",
                unreadable: "읽을 수 없습니다: `vault check`를 실행하세요",
                noRooms: "아직 방이 없습니다. `vault room new 제목`으로 시작하세요.", noEntries: "아직 일기가 없습니다.",
                sections: ["그룹", "1:1 대화", "내 방", "참여하지 않은 방"])
        case "ja":
            return ListingWords(
                unread: { "(新着 \($0))" }, interrupted: "[中断]", conflictCopy: { "[\($0) の競合コピー]" },
                markers: "git が競合マーカーを残しました: `vault resolve` を実行してください",
                unreadable: "読めません: `vault check` を実行してください",
                noRooms: "まだルームがありません。`vault room new タイトル` で始めてください。", noEntries: "まだ日記がありません。",
                sections: ["グループ", "ダイレクトメッセージ", "自分のルーム", "未参加のルーム"])
        case "de":
            return ListingWords(
                unread: { "(\($0) neu)" }, interrupted: "[abgebrochen]", conflictCopy: { "[Konfliktkopie von \($0)]" },
                markers: "git hat Konfliktmarker hinterlassen: `vault resolve` ausführen",
                unreadable: "nicht lesbar: `vault check` ausführen",
                noRooms: "Noch keine Räume. Einen beginnen mit `vault room new TITEL`.",
                noEntries: "Noch keine Tagebucheinträge.",
                sections: ["Gruppen", "Direktnachrichten", "Eigene Räume", "Nicht beigetreten"])
        case "fr":
            return ListingWords(
                unread: { "(\($0) \($0 <= 1 ? "nouveau" : "nouveaux"))" }, interrupted: "[interrompu]",
                conflictCopy: { "[copie en conflit de \($0)]" },
                markers: "git a laissé des marqueurs de conflit : lancez `vault resolve`",
                unreadable: "illisible : lancez `vault check`",
                noRooms: "Aucun salon pour l’instant. Commencez-en un avec `vault room new TITRE`.",
                noEntries: "Aucune entrée de journal pour l’instant.",
                sections: ["Groupes", "Messages directs", "Vos salons", "Salons non rejoints"])
        case "es":
            return ListingWords(
                unread: { "(\($0) \($0 == 1 ? "nuevo" : "nuevos"))" }, interrupted: "[interrumpido]",
                conflictCopy: { "[copia en conflicto de \($0)]" },
                markers: "git dejó marcas de conflicto: ejecute `vault resolve`",
                unreadable: "no se puede leer: ejecute `vault check`",
                noRooms: "Aún no hay salas. Empiece una con `vault room new TÍTULO`.",
                noEntries: "Aún no hay entradas de diario.",
                sections: ["Grupos", "Mensajes directos", "Tus salas", "Salas sin unirse"])
        default:
            return ListingWords(
                unread: { "(\($0) new)" }, interrupted: "[interrupted]", conflictCopy: { "[conflict copy of \($0)]" },
                markers: "git left conflict markers: run `vault resolve`", unreadable: "cannot be read: run `vault check`",
                noRooms: "No rooms yet. Start one with `vault room new TITLE`.", noEntries: "No diary entries yet.")
        }
    }
}
