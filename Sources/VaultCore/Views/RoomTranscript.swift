import Foundation

/// What `vault show ROOM` shows of a room's messages: a divider with the date wherever the
/// day changes, and each message with its time only.
///
/// Days are calendar days in the zone the room is read in (the vault's, or `--time-zone`):
/// two messages written on one evening in Seoul fall on two days when read in Berlin if
/// midnight in Berlin lies between them. The first message always opens with a divider, so
/// every time shown has its day above it.
///
///     let transcript = RoomTranscript(room.messages, locale: "ko_KR", timeZone: seoul)
///     for item in transcript.items {
///         switch item {
///         case .day(_, let text): print("──── \(text) ────")   // 2026년 11월 23일 월요일
///         case .message(let m): print("\(m.message.role.rawValue) · \(m.time)")  // 오후 3:12
///         }
///     }
public struct RoomTranscript: Sendable {
    /// One thing shown, in order.
    public enum Item: Sendable, Hashable {
        /// The day the following messages were written on, and its date in the locale.
        case day(LocalDate, String)
        /// A message.
        case message(MessageView)
    }

    /// A message as shown: its time of day and what its header says about it.
    public struct MessageView: Sendable, Hashable {
        /// The message as read.
        package let message: Message
        /// Its time of day in the locale and zone (`오후 3:12`, `3:12 PM`).
        package let time: String
        /// Who wrote it: the header's `author=` (a person in a shared room), else for a reply the
        /// model, or `offline, no model` (`ListingWords.offline`) for the built-in provider.
        package let author: String?
        /// Whether it is complete, stopped, or cut off by the server.
        package let completion: Completion
        /// What the header line says of how it ended, in the locale (`ListingWords.note`); nil
        /// for a complete message.
        package let note: String?

        /// The header line's parts after the role: the time, the author, how it ended.
        package var facts: [String] {
            var parts = [time]
            if let author { parts.append(author) }
            if let note { parts.append(note) }
            return parts
        }
    }

    /// How a message ended (FORMAT.md: `status=interrupted`, `truncated=<reason>`).
    public enum Completion: Sendable, Hashable {
        /// Written whole.
        case complete
        /// The reply stopped before it was complete (Ctrl-C, a cut connection, a time-out,
        /// the reply cap): what arrived is kept, and it is never sent back to a model.
        case interrupted
        /// The server ended the reply before the model was done, with its reason (`length`).
        case truncated(String)
        /// Another `status=` value, shown as written.
        case other(String)

        /// The completion of a message, from its header.
        package init(_ message: Message) {
            if let status = message.status {
                self = status == "interrupted" ? .interrupted : .other(status)
            } else if let reason = message.header.attribute("truncated") {
                self = .truncated(reason)
            } else {
                self = .complete
            }
        }

    }

    /// The dividers and messages, in the room's order.
    public let items: [Item]

    /// The transcript of `messages` with days, times and words (`ListingWords`) in `locale`, and
    /// times in `timeZone`.
    public init(_ messages: [Message], locale: String, timeZone: TimeZone) {
        let words = ListingWords.of(locale)
        var items: [Item] = []
        items.reserveCapacity(messages.count + 8)
        var current: LocalDate?
        for m in messages {
            let day = Timestamp(date: m.timestamp.date, timeZone: timeZone).localDate
            if day != current {
                let text = DateText.string(for: m.timestamp.date, style: .day, locale: locale, timeZone: timeZone)
                items.append(.day(day, text))
                current = day
            }
            var author = m.author?.name
            if author == nil, m.role == .assistant, let model = m.header.attribute("model") {
                author = m.header.attribute("provider") == "offline" ? words.offline : model
            }
            let time = DateText.string(for: m.timestamp.date, style: .time, locale: locale, timeZone: timeZone)
            let completion = Completion(m)
            items.append(
                .message(
                    MessageView(
                        message: m, time: time, author: author, completion: completion, note: words.note(completion))))
        }
        self.items = items
    }

    /// A day divider drawn `──── text ────`.
    public static func divider(_ text: String) -> String { "──── \(text) ────" }
}
