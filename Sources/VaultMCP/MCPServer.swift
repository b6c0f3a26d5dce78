import Foundation
import Synchronization
import VaultCore
import VaultKit

#if canImport(Glibc)
import Glibc
#endif

/// `vault mcp`: the Model Context Protocol over standard input and output, written by hand.
///
/// Each message is one line of JSON-RPC 2.0 (the stdio transport of the spec's revision
/// 2025-11-25, the newest the `initialize` handshake reaches). Standard output carries protocol
/// only; what a person should read goes to standard error (`log`).
///
/// Requests are answered in the order they finish: `ping`, `notifications/cancelled` and the
/// lists are answered on the reading thread at once; tool calls run one after another on a
/// work queue (the vault's lock orders them against other `vault` processes anyway), a chat
/// turn on a thread of its own so that it can be cancelled while it streams.
///
/// ```swift
/// let server = MCPServer(vault: vault, readOnly: false, log: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
/// exit(server.serve())  // until the client closes standard input
/// ```
package final class MCPServer: @unchecked Sendable {
    /// The protocol revisions the `initialize` handshake accepts, oldest first; the last is answered
    /// when the client asks for one not listed.
    package static let protocolVersions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
    /// The longest message read, in bytes: a longer one is answered with an error and dropped
    /// unread (a line is held whole in memory until its end).
    package static let maximumMessageBytes = 1 << 20

    /// The session the server was made for (nil: made from a vault, as tests do).
    let session: VaultSession?
    let vault: Vault
    let readOnly: Bool
    let log: @Sendable (String) -> Void
    let tools: [Tool]
    let resources: ResourceWatch
    /// Who the client said it is (`initialize`'s `clientInfo.name`), once it said.
    let client = Mutex<String?>(nil)
    /// Requests under way, by their id as JSON text: each one's cancellation, and whether it
    /// stops when the client closes its input (a chat turn).
    private let running = Mutex<[String: (cancellation: Cancellation, stopsAtEndOfInput: Bool)]>([:])
    private let outputLock = Mutex<Bool>(true)
    private let work = DispatchQueue(label: "vault.mcp.work")
    /// Tool calls started and not finished.
    private let active = Atomic<Int>(0)
    private let turns = DispatchGroup()
    /// What the commit messages of this session's changes name (`ClientNamedHistory`).
    let naming: ClientNamedHistory?

    /// - Parameters:
    ///   - vault: the vault, with its history attached (every change a commit) unless `readOnly`.
    ///   - naming: the history that names the client in commit messages, when writes are allowed.
    ///   - readOnly: no write tool is listed or run.
    ///   - watcher: what tells which rooms and entries changed (`vault search`'s watcher); nil:
    ///     subscribed files are compared by their stamps, and the list's changes are not told.
    package convenience init(
        vault: Vault, naming: ClientNamedHistory?, readOnly: Bool, watcher: (any WorkTreeWatcher)?,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.init(session: nil, vault: vault, naming: naming, readOnly: readOnly, watcher: watcher, log: log)
    }

    /// The server for `session`'s vault: a read-only session offers only the tools that read;
    /// otherwise every commit the server makes names the client (`ClientNamedHistory`). The
    /// session's watcher tells which rooms and entries changed, and each request that reads
    /// the history opens the repository for itself (`VaultSession.openRepository`).
    package convenience init(session: VaultSession, log: @escaping @Sendable (String) -> Void) {
        let naming = session.vault.history.map { ClientNamedHistory($0) }
        self.init(
            session: session, vault: naming.map { session.vault.with(history: $0) } ?? session.vault, naming: naming,
            readOnly: session.access == .readOnly, watcher: session.watcher, log: log)
    }

    private init(
        session: VaultSession?, vault: Vault, naming: ClientNamedHistory?, readOnly: Bool,
        watcher: (any WorkTreeWatcher)?, log: @escaping @Sendable (String) -> Void
    ) {
        self.session = session
        self.vault = vault
        self.naming = naming
        self.readOnly = readOnly
        self.log = log
        self.tools = VaultTools.all.filter { !readOnly || !$0.writes }
        self.resources = ResourceWatch(vault: vault, watcher: watcher)
    }

    /// The vault's repository for one request (on its thread), never made.
    func repository() throws(VaultError) -> GitHistory {
        if let session { return try session.openRepository() }
        return try GitHistory(vault: vault.root, config: vault.config, settings: vault.settings)
    }

    /// Reads requests from `input` until it closes, answering each on `output`; returns the
    /// exit status (0). A call under way when the input closes is finished (a write is
    /// committed) before it returns.
    package func serve(input: Int32 = 0) -> Int32 {
        resources.notify = { [weak self] uri in
            self?.send(["jsonrpc": "2.0", "method": "notifications/resources/updated", "params": ["uri": .string(uri)]])
        }
        resources.listChanged = { [weak self] in
            self?.send(["jsonrpc": "2.0", "method": "notifications/resources/list_changed"])
        }
        var pending: [UInt8] = []
        var dropping = false
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            var start = 0
            for i in 0..<n where buffer[i] == 0x0A {
                if dropping {
                    dropping = false
                } else {
                    pending += buffer[start..<i]
                    let line = pending
                    pending.removeAll(keepingCapacity: true)
                    handle(line)
                }
                start = i + 1
            }
            if !dropping {
                pending += buffer[start..<n]
                if pending.count > Self.maximumMessageBytes {
                    // Answered now, by the id its start names; the rest is read and dropped.
                    tooLarge(pending)
                    pending.removeAll(keepingCapacity: false)
                    dropping = true
                }
            }
        }
        if !pending.isEmpty && !dropping { handle(pending) }
        // The input closed: calls already read are answered (a client may close its end
        // and still read); a chat turn is stopped, what arrived of its reply committed.
        running.withLock { for call in $0.values where call.stopsAtEndOfInput { call.cancellation.cancel() } }
        work.sync {}
        turns.wait()
        resources.stop()
        return 0
    }

    // MARK: - Messages

    private func handle(_ line: [UInt8]) {
        let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        guard !trimmed.isEmpty else { return }
        guard let message = JSONValue.parse(Array(trimmed)) else {
            return send(error: .parseError, "not JSON: each line must be one JSON-RPC message", id: .null)
        }
        if case .array = message {
            return send(error: .invalidRequest, "batches are not part of this protocol revision", id: .null)
        }
        guard case .object(let fields) = message, fields["jsonrpc"] == "2.0" else {
            return send(error: .invalidRequest, "not a JSON-RPC 2.0 message", id: message["id"] ?? .null)
        }
        let id = fields["id"]
        guard let method = fields["method"]?.string else {
            // A response to a request of ours: the server makes none.
            if id == nil || fields["result"] != nil || fields["error"] != nil { return }
            return send(error: .invalidRequest, "a request needs a method", id: id ?? .null)
        }
        if let id {
            switch id {
            case .string, .int: break
            default: return send(error: .invalidRequest, "a request's id is a string or an integer", id: .null)
            }
        }
        let params = fields["params"] ?? .object([:])
        guard case .object = params else {
            return send(error: .invalidParams, "params must be an object", id: id ?? .null)
        }
        guard let id else { return notification(method, params) }
        request(method, params, id: id)
    }

    private func notification(_ method: String, _ params: JSONValue) {
        switch method {
        case "notifications/cancelled":
            guard let id = params["requestId"] else { return }
            let call = running.withLock { $0[id.serialized] }
            call?.cancellation.cancel()
        default:
            // notifications/initialized, roots/list_changed, progress of ours: nothing to do.
            break
        }
    }

    private func request(_ method: String, _ params: JSONValue, id: JSONValue) {
        switch method {
        case "initialize":
            let asked = params["protocolVersion"]?.string ?? ""
            let version = Self.protocolVersions.contains(asked) ? asked : Self.protocolVersions.last!
            if let name = params["clientInfo"]?["name"]?.string, let author = Author(name: name) {
                client.withLock { $0 = author.name }
                naming?.client.withLock { $0 = author.name }
            }
            let capabilities: [String: JSONValue] = [
                "resources": ["subscribe": true, "listChanged": .bool(resources.watcher != nil)],
                "prompts": ["listChanged": false],
                "tools": ["listChanged": false],
            ]
            reply(
                id,
                [
                    "protocolVersion": .string(version),
                    "capabilities": .object(capabilities),
                    "serverInfo": ["name": "vault", "title": "vault: rooms and diary", "version": .string(VaultVersion.current)],
                    "instructions": .string(VaultTools.instructions(readOnly: readOnly)),
                ])
        case "ping":
            reply(id, [:])
        case "tools/list":
            reply(id, ["tools": .array(tools.map(\.listing))])
        case "tools/call":
            call(params, id: id)
        case "resources/list":
            work.async { [self] in
                do throws(ToolFailure) {
                    reply(id, try resources.list(cursor: params["cursor"]?.string))
                } catch {
                    send(error: error.code, error.message, id: id)
                }
            }
        case "resources/templates/list":
            reply(id, ["resourceTemplates": []])
        case "resources/read":
            work.async { [self] in
                do throws(ToolFailure) {
                    session?.checkArrivals()
                    reply(id, try resources.read(params["uri"]?.string))
                } catch {
                    send(error: error.code, error.message, id: id)
                }
            }
        case "resources/subscribe", "resources/unsubscribe":
            do throws(ToolFailure) {
                try resources.subscribe(params["uri"]?.string, on: method == "resources/subscribe")
                reply(id, [:])
            } catch {
                send(error: error.code, error.message, id: id)
            }
        case "prompts/list":
            reply(id, ["prompts": .array(VaultPrompts.all.map(\.listing))])
        case "prompts/get":
            work.async { [self] in
                do throws(ToolFailure) {
                    reply(id, try VaultPrompts.get(params, vault: vault))
                } catch {
                    send(error: error.code, error.message, id: id)
                }
            }
        case "logging/setLevel":
            reply(id, [:])
        default:
            send(error: .methodNotFound, "no method \(method.debugDescription) (vault mcp answers initialize, ping, tools/*, resources/*, prompts/*)", id: id)
        }
    }

    private func call(_ params: JSONValue, id: JSONValue) {
        guard let name = params["name"]?.string else {
            return send(error: .invalidParams, "tools/call needs the tool's name", id: id)
        }
        guard let tool = tools.first(where: { $0.name == name }) else {
            let known = VaultTools.all.contains { $0.name == name }
            let why = known && readOnly ? "\(name) writes, and this server is read-only (--read-only)" : "no tool named \(name.debugDescription)"
            return send(error: .invalidParams, why, id: id)
        }
        let arguments = params["arguments"] ?? .object([:])
        guard case .object = arguments else {
            return send(error: .invalidParams, "arguments must be an object", id: id)
        }
        // Stopped by the client (`notifications/cancelled`), or by a signal (held off by
        // `Termination` while a change is under way, which then ends as Ctrl-C ends one).
        let cancellation = Cancellation(whenever: { Termination.requested })
        running.withLock { $0[id.serialized] = (cancellation, tool.longRunning) }
        // The call's own notes (a repository made, a file shown from one side of a conflict),
        // handed back with its result.
        let notes = NoteList()
        let context = ToolContext(
            vault: vault.reporting(to: notes.sink), client: client.withLock { $0 }, cancellation: cancellation,
            progressToken: params["_meta"]?["progressToken"], server: self)
        active.add(1, ordering: .sequentiallyConsistent)
        let body: @Sendable () -> Void = { [self] in
            defer { finished(id) }
            // Commits a `git pull` brought meanwhile are checked before anything is read.
            session?.checkArrivals()
            var result: JSONValue
            do throws(ToolFailure) {
                result = try tool.run(try Arguments(arguments, allowed: tool.properties.keys), context)
            } catch {
                result = ["content": [["type": "text", "text": .string(error.message)]], "isError": true]
            }
            result = result.adding(notes: notes.all.map(\.description))
            // A cancelled request is not answered (the spec's cancellation rule).
            if !cancellation.isCancelled { reply(id, result) }
        }
        if tool.longRunning {
            turns.enter()
            Thread.detachNewThread { [turns] in
                body()
                turns.leave()
            }
        } else {
            work.async(execute: body)
        }
    }

    /// A call is done. A SIGTERM, SIGINT or SIGHUP that came while calls were under way (held
    /// off by `Termination` until their commits) ends the server once the last of them is done.
    private func finished(_ id: JSONValue) {
        running.withLock { $0[id.serialized] = nil }
        if active.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 { Termination.exitIfRequested() }
    }

    private func tooLarge(_ start: [UInt8]) {
        // The id, when the message starts by naming it (`{"jsonrpc":"2.0","id":7,…`).
        let head = String(decoding: start.prefix(4096), as: UTF8.self)
        var id = JSONValue.null
        if let r = head.range(of: #""id"\s*:\s*(-?[0-9]+|"[^"\\]{0,200}")"#, options: .regularExpression) {
            let text = head[r].split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
            id = JSONValue.parse(Array(text.utf8)) ?? .null
        }
        send(
            error: .invalidRequest,
            "the message is larger than \(Self.maximumMessageBytes / 1024) KiB; it was not read, and nothing changed",
            id: id)
    }

    // MARK: - Output

    enum ErrorCode: Int {
        case parseError = -32700
        case invalidRequest = -32600
        case methodNotFound = -32601
        case invalidParams = -32602
        case internalError = -32603
        case resourceNotFound = -32002
    }

    func reply(_ id: JSONValue, _ result: JSONValue) {
        send(["jsonrpc": "2.0", "id": id, "result": result])
    }

    func send(error code: ErrorCode, _ message: String, id: JSONValue) {
        send(["jsonrpc": "2.0", "id": id, "error": ["code": .int(code.rawValue), "message": .string(message)]])
    }

    /// Writes one message as one line. A client that went away (EPIPE) is no failure: the
    /// server goes on until its input closes.
    func send(_ message: JSONValue) {
        var bytes: [UInt8] = []
        message.append(to: &bytes)
        bytes.append(0x0A)
        outputLock.withLock { open in
            guard open else { return }
            var at = 0
            while at < bytes.count {
                let n = bytes[at...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    open = false
                    return
                }
                at += n
            }
        }
    }

    /// Sends `notifications/progress` for a call that asked for progress.
    func progress(_ token: JSONValue?, _ done: Int, message: String) {
        guard let token else { return }
        send([
            "jsonrpc": "2.0", "method": "notifications/progress",
            "params": ["progressToken": token, "progress": .int(done), "message": .string(message)],
        ])
    }
}
