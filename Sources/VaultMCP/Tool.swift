import Foundation
import VaultCore

/// One tool a client can call: its name, what it is for (read by a model), the JSON schema of
/// its arguments, and what it does.
struct Tool: Sendable {
    var name: String
    var title: String
    var description: String
    /// The `inputSchema`'s `properties`, and which of them are required.
    var properties: [String: JSONValue]
    var required: [String] = []
    /// Whether it changes the vault: a read-only server lists none of these.
    var writes = false
    /// Whether it runs for long (a chat turn): on a thread of its own, so it can be cancelled.
    var longRunning = false
    var run: @Sendable (Arguments, ToolContext) throws(ToolFailure) -> JSONValue

    var listing: JSONValue {
        [
            "name": .string(name),
            "title": .string(title),
            "description": .string(description),
            "inputSchema": [
                "type": "object", "properties": .object(properties),
                "required": .array(required.map(JSONValue.string)), "additionalProperties": false,
            ],
            "annotations": [
                "title": .string(title), "readOnlyHint": .bool(!writes), "destructiveHint": false,
                "idempotentHint": .bool(!writes), "openWorldHint": .bool(longRunning),
            ],
        ]
    }
}

/// What a tool call is run with.
struct ToolContext: Sendable {
    /// The vault, its notes going to this call's list.
    let vault: Vault
    /// The client's name (`initialize`), as messages and commits name it.
    let client: String?
    /// Cancelled when the client cancels the call, or a signal asks the server to end.
    let cancellation: Cancellation
    let progressToken: JSONValue?
    let server: MCPServer

    func progress(_ done: Int, _ message: String) { server.progress(progressToken, done, message: message) }
}

/// Why a call failed: said to the client as a tool error (`isError`), or for a request that is
/// not a tool call, as a JSON-RPC error with `code`.
struct ToolFailure: Error, Sendable {
    var message: String
    var code: MCPServer.ErrorCode = .invalidParams

    init(_ message: String, code: MCPServer.ErrorCode = .invalidParams) {
        self.message = message
        self.code = code
    }

    /// The library's error, as the command line words it (no API key is ever in one: the
    /// library redacts them, `Secrets`).
    init(_ error: VaultError) {
        self.message = error.description
    }
}

/// A call's arguments, read with the checks every tool needs: a missing or mistyped argument is
/// a tool error naming it.
struct Arguments: Sendable {
    let values: [String: JSONValue]

    init(_ value: JSONValue) { values = value.object ?? [:] }

    /// The arguments of a tool that takes `allowed`: another one (a misspelt name) is refused,
    /// naming those it takes.
    init(_ value: JSONValue, allowed: some Collection<String>) throws(ToolFailure) {
        self.init(value)
        if let unknown = values.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ToolFailure(
                "unknown argument '\(unknown)'; this tool takes \(allowed.sorted().map { "'\($0)'" }.joined(separator: ", "))")
        }
    }

    /// The longest text argument, in bytes (a message is capped at `MCPServer.maximumMessageBytes` anyway).
    static let maximumTextBytes = 512 * 1024

    func text(_ key: String) throws(ToolFailure) -> String {
        guard let v = values[key] else { throw ToolFailure("missing argument '\(key)'") }
        guard let s = v.string else { throw ToolFailure("'\(key)' must be a string") }
        guard s.utf8.count <= Self.maximumTextBytes else {
            throw ToolFailure("'\(key)' is longer than \(Self.maximumTextBytes / 1024) KiB")
        }
        return s
    }

    func optionalText(_ key: String) throws(ToolFailure) -> String? {
        guard let v = values[key], v != .null else { return nil }
        return try text(key)
    }

    func integer(_ key: String, default value: Int, in range: ClosedRange<Int>) throws(ToolFailure) -> Int {
        guard let v = values[key], v != .null else { return value }
        guard let i = v.int, range.contains(i) else {
            throw ToolFailure("'\(key)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return i
    }

    func flag(_ key: String) throws(ToolFailure) -> Bool {
        guard let v = values[key], v != .null else { return false }
        guard let b = v.bool else { throw ToolFailure("'\(key)' must be true or false") }
        return b
    }

    func texts(_ key: String) throws(ToolFailure) -> [String] {
        guard let v = values[key], v != .null else { return [] }
        guard let a = v.array, a.allSatisfy({ $0.string != nil }) else {
            throw ToolFailure("'\(key)' must be a list of strings")
        }
        return a.compactMap(\.string)
    }

    /// A day (`2026-11-21`, `today`, `yesterday`, `-7`) in the vault's zone.
    func day(_ key: String, zone: TimeZone) throws(ToolFailure) -> LocalDate? {
        guard let text = try optionalText(key) else { return nil }
        guard let d = DateArgument.day(text, timeZone: zone) else {
            throw ToolFailure("'\(key)': \(text.debugDescription) is not a day (2026-11-21, today, yesterday, or -N for N days ago)")
        }
        return d
    }
}

extension JSONValue {
    /// A tool's result with the library's notes for the call (`notes` in `structuredContent`,
    /// and a text of their own), when there are any.
    func adding(notes: [String]) -> JSONValue {
        guard !notes.isEmpty, case .object(var result) = self else { return self }
        if case .object(var structured) = result["structuredContent"] ?? .object([:]) {
            structured["notes"] = .array(notes.map(JSONValue.string))
            result["structuredContent"] = .object(structured)
        }
        let content = result["content"]?.array ?? []
        result["content"] = .array(content + [["type": "text", "text": .string(notes.joined(separator: "\n"))]])
        return .object(result)
    }

    /// A tool's result: `structured` as `structuredContent`, and as JSON text for clients that
    /// read only `content`.
    static func toolResult(_ structured: JSONValue, text: String? = nil) -> JSONValue {
        ["content": [["type": "text", "text": .string(text ?? structured.serialized)]], "structuredContent": structured]
    }
}

/// A JSON schema property.
func property(_ type: String, _ description: String, extra: [String: JSONValue] = [:]) -> JSONValue {
    var o: [String: JSONValue] = ["type": .string(type), "description": .string(description)]
    for (k, v) in extra { o[k] = v }
    return .object(o)
}
