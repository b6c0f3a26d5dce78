import Foundation
import VaultCore
import VaultGit

/// The chat prompt in a room shared with people (`members:`): what is typed is a message to
/// them (`Posting`, as `vault say`), `@assistant …` (or `@` and the room's model) asks the
/// model; and when the vault has a remote, each message is sent at once by a sync, which shows
/// what the others wrote meanwhile (and marks it read).
extension ChatPrompt {
    /// Sends `entry`: to the model in a room of one's own, or as said above in a shared one.
    func sendOrPost(_ entry: String) throws(VaultError) {
        let members = Workspace.members(of: try vault.readRoomFrontMatter(path))
        guard !members.isEmpty else { return try send(try turn(), entry, files) }
        if entry.hasPrefix("@") {
            // `@assistant` in a room no model can answer says why; `@name` is for people.
            var turn: ChatTurn?
            do {
                turn = try self.turn()
            } catch {
                if Posting.asksModel(entry, model: nil) { throw error }
            }
            if let turn, Posting.asksModel(entry, model: turn.model) {
                try send(turn, entry, files)
                syncNow()
                return
            }
        }
        let posted = try Posting(vault: vault).post(
            entry, to: path, attachments: files, environment: ProcessInfo.processInfo.environment)
        Terminal.standardError("(saved to \(posted.path), line \(posted.message.line))\n")
        syncNow()
    }

    /// Syncs now when the vault has a remote: what was said goes out, what others wrote comes in
    /// and is shown. A sync that fails (offline) is said, and the prompt goes on.
    private func syncNow() {
        guard FileIO.exists(vault.root + "/.git"),
            let history = try? GitHistoryOnDemand(vault: vault.root, config: vault.config, report: { _ in }).history(),
            let remotes = try? history.remotes(), !remotes.isEmpty
        else { return }
        let live = LiveSync(vault: vault, history: history)
        live.prepare = VaultCommand.Watch.preparation(root: vault.root)
        let step = live.step(room: path)
        if let failure = step.failure {
            Terminal.note("not sent yet (\(failure.description)); it goes with the next sync")
        }
        for arrival in step.arrivals {
            for message in arrival.messages {
                Terminal.line(Terminal.visible(Posting.writer(of: message), singleLine: true) + ":")
                Terminal.write(Terminal.visible(message.body) + "\n\n", to: 1)
            }
            live.shown(arrival)
        }
    }
}
