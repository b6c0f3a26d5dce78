import Foundation
import VaultCore

/// A provider that speaks the OpenAI chat completions API: OpenAI, Ollama, llama.cpp's
/// server, vLLM, LM Studio, OpenRouter… all through this one code path.
///
/// `POST {base}/chat/completions` with `stream: true`; a Server-Sent Events reply is printed
/// as it arrives, a plain JSON reply (servers that do not stream) is read whole. 429 and 5xx
/// are retried a bounded number of times (429 after `Retry-After`), but only before any
/// text arrived: a reply is never started twice.
public struct OpenAIProvider: ChatProvider {
    public let name: String
    public let baseURL: String
    /// The key, read from the environment variable the configuration names. Never written
    /// anywhere: not into the vault, its history, logs or error messages.
    let apiKey: String?
    public var client: HTTPClient
    public var maxRetries = 3
    /// Longest `Retry-After` honoured; a longer one fails the turn with the wait in the message.
    public var maxRetryWait: Double = 60
    /// Stops a transfer (Ctrl-C).
    public var shouldStop: @Sendable () -> Bool = { false }
    /// Waits between retries (replaced in tests).
    public var sleep: @Sendable (Double) -> Void = { Thread.sleep(forTimeInterval: $0) }

    public init(name: String, baseURL: String, apiKey: String?, client: HTTPClient = HTTPClient()) {
        self.name = name
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiKey = apiKey
        self.client = client
    }

    public func label(model: String) -> String { model }

    public func reply(to request: ChatRequest, onText: (String) -> Void) throws(ProviderFailure) -> String {
        let body = try requestBody(request)
        var headers = ["Content-Type: application/json", "Accept: text/event-stream"]
        if let apiKey, !apiKey.isEmpty { headers.append("Authorization: Bearer \(apiKey)") }
        var attempt = 0
        while true {
            let outcome = try once(url: baseURL + "/chat/completions", headers: headers, body: body, onText: onText)
            switch outcome {
            case .reply(let text):
                return text
            case .retry(let wait, let failure):
                attempt += 1
                guard attempt <= maxRetries else { throw failure }
                guard wait <= maxRetryWait else {
                    throw ProviderFailure(failure.kind, failure.message + " (the server asks to wait \(Int(wait)) s)")
                }
                sleep(wait)
            }
        }
    }

    enum Outcome {
        case reply(String)
        case retry(after: Double, ProviderFailure)
    }

    func requestBody(_ request: ChatRequest) throws(ProviderFailure) -> [UInt8] {
        let messages = request.turns.map { turn -> [String: Any] in
            guard !turn.images.isEmpty else { return ["role": turn.role.rawValue, "content": turn.content] }
            var parts: [[String: Any]] = [["type": "text", "text": turn.content]]
            for url in turn.images { parts.append(["type": "image_url", "image_url": ["url": url]]) }
            return ["role": turn.role.rawValue, "content": parts]
        }
        let object: [String: Any] = ["model": request.model, "messages": messages, "stream": true]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes]) else {
            throw ProviderFailure(.rejected, "cannot encode the request")
        }
        return Array(data)
    }

    /// One HTTP exchange.
    func once(url: String, headers: [String], body: [UInt8], onText: (String) -> Void) throws(ProviderFailure) -> Outcome {
        var decoder = EventStreamDecoder()
        var stream = CompletionStream()
        var errorBody: [UInt8] = []
        var plainBody: [UInt8] = []
        var isEventStream = false
        var status = 0
        var protocolFailure: ProviderFailure?
        let response: HTTPClient.Response
        do {
            response = try client.post(url: url, headers: headers, body: body, onBody: { response, bytes in
                status = response.status
                guard (200..<300).contains(response.status) else {
                    if errorBody.count < 65_536 { errorBody += bytes }
                    return true
                }
                isEventStream = response.headers["content-type"]?.lowercased().contains("text/event-stream") ?? false
                guard isEventStream else {
                    plainBody += bytes
                    return true
                }
                for event in decoder.feed(bytes) {
                    do throws(ProviderFailure) {
                        if let piece = try stream.take(event) { onText(piece) }
                    } catch {
                        protocolFailure = error
                        return false
                    }
                    if stream.done { return false }
                }
                return true
            }, shouldStop: shouldStop)
        } catch {
            let partial = stream.text
            switch error {
            case .cannotResolve(let host): throw ProviderFailure(.unreachable, "cannot find the server \(host) (DNS)")
            case .cannotConnect(let host): throw ProviderFailure(.unreachable, "cannot connect to \(host): is the server running?")
            case .tls(let why): throw ProviderFailure(.unreachable, "the secure connection to \(HTTPClient.host(of: url)) failed: \(why)")
            case .connectTimeout: throw ProviderFailure(.timeout, "connecting to \(HTTPClient.host(of: url)) timed out")
            case .stalled:
                throw ProviderFailure(.timeout, "the server sent nothing for \(Int(client.idleTimeout)) s and was given up on", partialReply: partial)
            case .cutOff(let why): throw ProviderFailure(.cutOff, "the connection was cut in the middle of the reply (\(why))", partialReply: partial)
            case .cancelled: throw ProviderFailure(.interrupted, "interrupted", partialReply: partial)
            case .other(let why): throw ProviderFailure(.unreachable, "the request failed: \(why)", partialReply: partial)
            }
        }
        if let protocolFailure { throw ProviderFailure(protocolFailure.kind, protocolFailure.message, partialReply: stream.text) }
        status = response.status
        switch status {
        case 200..<300:
            if isEventStream {
                if stream.done { return .reply(stream.text) }
                decoder.finish()
                throw ProviderFailure(.cutOff, "the reply stream ended before it was complete", partialReply: stream.text)
            }
            let whole = try CompletionStream.wholeReply(plainBody)
            onText(whole)
            return .reply(whole)
        case 401, 403:
            throw ProviderFailure(.unauthorized, "the server refused the API key (\(status)): \(serverMessage(errorBody)). Check the key's environment variable.")
        case 404:
            throw ProviderFailure(.notFound, "not found (404): \(serverMessage(errorBody)). Is the model name right, and the base URL?")
        case 429:
            let wait = response.headers["retry-after"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? 2
            return .retry(after: wait, ProviderFailure(.rateLimited, "rate limited (429): \(serverMessage(errorBody))"))
        case 500..<600:
            return .retry(after: 1, ProviderFailure(.serverError, "the server failed (\(status)): \(serverMessage(errorBody))"))
        default:
            throw ProviderFailure(.rejected, "the server rejected the request (\(status)): \(serverMessage(errorBody))")
        }
    }

    /// The server's own error message, on one line, shortened, without the key.
    func serverMessage(_ body: [UInt8]) -> String {
        var text = String(decoding: body, as: UTF8.self)
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] {
            if let error = object["error"] as? [String: Any], let message = error["message"] as? String {
                text = message
            } else if let message = object["error"] as? String {
                text = message
            }
        }
        if let apiKey, !apiKey.isEmpty { text = text.replacingOccurrences(of: apiKey, with: "…") }
        text = text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return "no details" }
        return text.count > 200 ? String(text.prefix(199)) + "…" : text
    }
}

/// The chunks of a streamed chat completion.
struct CompletionStream {
    private(set) var text = ""
    private(set) var done = false

    /// The text an event adds; throws on what is not the protocol.
    mutating func take(_ event: ServerSentEvent) throws(ProviderFailure) -> String? {
        let data = event.data.trimmingCharacters(in: .whitespaces)
        if data == "[DONE]" {
            done = true
            return nil
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else {
            throw ProviderFailure(.malformed, "the server sent something that is not a chat completion chunk")
        }
        if let error = object["error"] {
            let message = (error as? [String: Any])?["message"] as? String ?? "\(error)"
            throw ProviderFailure(.serverError, "the server reported an error in the middle of the reply: \(message)")
        }
        guard let choices = object["choices"] as? [[String: Any]] else {
            throw ProviderFailure(.malformed, "the server sent a chunk without choices")
        }
        var piece = ""
        for choice in choices {
            if let delta = choice["delta"] as? [String: Any], let content = delta["content"] as? String { piece += content }
        }
        text += piece
        return piece.isEmpty ? nil : piece
    }

    /// The reply of a server that answered with one JSON object instead of a stream.
    static func wholeReply(_ body: [UInt8]) throws(ProviderFailure) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let choices = object["choices"] as? [[String: Any]], let first = choices.first,
            let message = first["message"] as? [String: Any], let content = message["content"] as? String
        else {
            throw ProviderFailure(.malformed, "the server's reply is not a chat completion")
        }
        return content
    }
}
