import VaultChat
import VaultCore
import VaultExport
import VaultImport

// Chat turns, imports and exports: a front end reaches VaultChat, VaultImport and VaultExport
// through these names and `Vault.chatTurn`, never by importing them.

/// What a chat turn's provider says while the server is silent (`Vault.chatTurn`'s `onWait`).
public typealias ServerWait = VaultChat.ServerWait
/// The tools whose exports `vault import` reads.
public typealias ImportSource = VaultImport.ImportSource
/// The import readers: one per source, the source an export is (`detect`), default paths.
public typealias ImportReaders = VaultImport.ImportReaders
/// An import into the vault, with the caps of `VaultSession.importLimits()`.
public typealias Importing = VaultImport.Importing
/// An export of rooms and entries as Markdown, HTML or JSON.
public typealias Exporter = VaultExport.Exporter
/// A room or entry as an export holds it.
public typealias ExportItem = VaultExport.ExportItem

extension Vault {
    /// A chat turn in the room at `path`, from its one read (`ChatTurn.read`), writing through
    /// this vault (the session's, or a request's own: `vault.reporting(to:)`): the provider and
    /// model the caller chose for this turn, else the room's, else `vault.yml`'s, else the
    /// environment's (`ProviderSettings`), with the network limits of the vault's settings
    /// (`ProcessSettings.environment`). `onWait` is the front end's, to show a silent server;
    /// `cancellation` stops the reply and keeps what arrived.
    ///
    ///     let read = try ChatTurn.read(path, in: session.vault)
    ///     let turn = try session.vault.chatTurn(path, read, provider: nil, model: nil)
    ///     let outcome = try turn.run(message: "부산 2박 3일 일정 짜줘") { print($0, terminator: "") }
    public func chatTurn(
        _ path: String, _ room: ChatTurn.RoomVersion, provider: String?, model: String?,
        onWait: (@Sendable (ServerWait) -> Void)? = nil, cancellation: Cancellation = .never
    ) throws(VaultError) -> ChatTurn {
        try ChatTurn.forRoom(
            path, room, in: self, provider: provider, model: model, onWait: onWait, cancellation: cancellation)
    }
}
