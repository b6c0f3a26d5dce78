import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// What vault is waiting for while a turn talks to a server, for an indicator on the terminal
/// (`OpenAIProvider.onWait`).
public enum ServerWait: Sendable, Equatable {
    /// The request is out (or going out) to the server at `url`, and no text has come yet.
    case waiting(url: String)
    /// The server asked to wait (429) or failed (5xx): vault asks again in `seconds`, for the
    /// `attempt`th time of at most `attempts`; `reason` is what happened, as the failure says it
    /// (`rate limited (429): …`, `the server failed (500): …`).
    case retrying(url: String, seconds: Double, reason: String, attempt: Int, attempts: Int)
    /// The reply's text is coming.
    case replying
    /// The exchange is over, however it ended.
    case finished
}

/// A provider that speaks the OpenAI chat completions API: OpenAI, Ollama, llama.cpp's
/// server, vLLM, LM Studio, OpenRouter… all through this one code path.
///
/// `POST {base}/chat/completions` with `stream: true`; a Server-Sent Events reply is handed on
/// as it arrives (and never kept: the turn writes it to a file), a plain JSON reply (servers
/// that do not stream) is read whole. A stream is complete at `data: [DONE]`, or when it closes
/// cleanly after a chunk with a `finish_reason`; `finish_reason: length` or `content_filter`
/// marks the reply truncated. 429 and 5xx are retried a bounded number of times (429 after
/// `Retry-After`, a wait Ctrl-C ends at once), but only before any text arrived: a reply is
/// never started twice. A reply longer than `maxReplyBytes` is stopped there.
package struct OpenAIProvider: ChatProvider {
    package let name: String
    package let baseURL: String
    /// The key, read from the environment variable the configuration names. Never written
    /// anywhere: not into the vault, its history, logs or error messages.
    let apiKey: String?
    package var client: HTTPClient
    package var maxRetries = 3
    /// Longest `Retry-After` honoured; a longer one fails the turn with the wait in the message.
    package var maxRetryWait: Double = 60
    /// The longest reply kept, in bytes of text: a longer one (a stream that never ends) is
    /// stopped there, and what came is kept.
    package var maxReplyBytes = OpenAIProvider.defaultMaxReplyBytes
    /// Stops a transfer or a wait (Ctrl-C).
    package var shouldStop: @Sendable () -> Bool = { false }
    /// Told what the turn is waiting for (an indicator on the terminal).
    package var onWait: @Sendable (ServerWait) -> Void = { _ in }

    /// 16 MiB: some four million tokens, far past what any model writes in one reply.
    package static let defaultMaxReplyBytes = 16 << 20

    package init(name: String, baseURL: String, apiKey: String?, client: HTTPClient = HTTPClient()) {
        self.name = name
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiKey = apiKey
        self.client = client
        if let apiKey { Secrets.register(apiKey) }
    }

    package func label(model: String) -> String { model }

    package func reply(to request: ChatRequest, onText: (String) -> Void) throws(ProviderFailure) -> ReplyEnding {
        defer { onWait(.finished) }
        do {
            return try exchange(request, onText: onText)
        } catch {
            // The server's own words can hold the key (careless servers quote it back).
            throw ProviderFailure(error.kind, Secrets.redact(error.message))
        }
    }

    func exchange(_ request: ChatRequest, onText: (String) -> Void) throws(ProviderFailure) -> ReplyEnding {
        let body = try requestBody(request)
        var headers = ["Content-Type: application/json", "Accept: text/event-stream"]
        if let apiKey, !apiKey.isEmpty { headers.append("Authorization: Bearer \(apiKey)") }
        var attempt = 0
        while true {
            onWait(.waiting(url: baseURL))
            let outcome = try once(url: baseURL + "/chat/completions", headers: headers, body: body, onText: onText)
            switch outcome {
            case .reply(let ending):
                return ending
            case .retry(var wait, let failure):
                attempt += 1
                guard attempt <= maxRetries else { throw failure }
                // A failing server is given more time at each try (1, 2, 4 s): asking again at
                // once rarely finds it back. A 429's wait is the server's own (Retry-After).
                if failure.kind == .serverError { wait = min(maxRetryWait, wait * Double(1 << (attempt - 1))) }
                guard wait <= maxRetryWait else {
                    throw ProviderFailure(failure.kind, failure.message + " (the server asks to wait \(Int(wait)) s)")
                }
                Trace.mark("http: waiting \(OpenAIProvider.seconds(wait)) s before retrying (\(failure.message))")
                onWait(
                    .retrying(
                        url: baseURL, seconds: wait, reason: failure.message, attempt: attempt, attempts: maxRetries))
                try pause(wait, during: failure)
            }
        }
    }

    /// Waits `seconds` before asking again; Ctrl-C ends the wait within 50 ms.
    func pause(_ seconds: Double, during failure: ProviderFailure) throws(ProviderFailure) {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1e9)
        while true {
            if shouldStop() {
                throw ProviderFailure(
                    .interrupted,
                    "interrupted while waiting \(OpenAIProvider.seconds(seconds)) s to ask again (\(failure.message))")
            }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return }
            usleep(useconds_t(min(deadline - now, 50_000_000) / 1000))
        }
    }

    enum Outcome {
        case reply(ReplyEnding)
        case retry(after: Double, ProviderFailure)
    }

    func requestBody(_ request: ChatRequest) throws(ProviderFailure) -> [UInt8] {
        let messages = request.turns.map { turn -> [String: Any] in
            guard !turn.images.isEmpty else { return ["role": turn.role.rawValue, "content": turn.content] }
            var parts: [[String: Any]] = [["type": "text", "text": turn.content]]
            for url in turn.images { parts.append(["type": "image_url", "image_url": ["url": url]]) }
            return ["role": turn.role.rawValue, "content": parts]
        }
        var object: [String: Any] = ["model": request.model, "messages": messages, "stream": true]
        // The room's sampling settings; one the room does not set is left to the server.
        let sampling = request.sampling
        if let x = sampling.temperature { object["temperature"] = x }
        if let x = sampling.topP { object["top_p"] = x }
        if let n = sampling.maxTokens { object["max_tokens"] = n }
        if let x = sampling.presencePenalty { object["presence_penalty"] = x }
        if let x = sampling.frequencyPenalty { object["frequency_penalty"] = x }
        if let n = sampling.seed { object["seed"] = n }
        if !sampling.stop.isEmpty { object["stop"] = sampling.stop }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes]) else {
            throw ProviderFailure(.rejected, "cannot encode the request")
        }
        return Array(data)
    }

    /// One HTTP exchange.
    func once(url: String, headers: [String], body: [UInt8], onText: (String) -> Void) throws(ProviderFailure)
        -> Outcome
    {
        var decoder = EventStreamDecoder()
        var stream = CompletionStream()
        var errorBody: [UInt8] = []
        var plainBody: [UInt8] = []
        var isEventStream = false
        var status = 0
        var textBytes = 0
        var tooLong = false
        var protocolFailure: ProviderFailure?
        // An event (or a plain JSON reply) is held whole until it is complete: beyond this, the
        // server is sending something no reply of the cap's size needs.
        let heldLimit = maxReplyBytes * 2 + 65_536
        /// Hands on a piece of text, cut at the cap (between two characters).
        func deliver(_ piece: String) {
            if textBytes == 0 { onWait(.replying) }
            var piece = piece
            if textBytes + piece.utf8.count > maxReplyBytes {
                tooLong = true
                var kept = ""
                var count = textBytes
                for scalar in piece.unicodeScalars {
                    let n = String(scalar).utf8.count
                    if count + n > maxReplyBytes { break }
                    kept.unicodeScalars.append(scalar)
                    count += n
                }
                piece = kept
            }
            textBytes += piece.utf8.count
            if !piece.isEmpty { onText(piece) }
        }
        let response: HTTPClient.Response
        do {
            response = try client.post(
                url: url, headers: headers, body: body,
                onBody: { response, bytes in
                    status = response.status
                    guard (200..<300).contains(response.status) else {
                        if errorBody.count < 65_536 { errorBody += bytes }
                        return true
                    }
                    isEventStream =
                        response.headers["content-type"]?.lowercased().contains("text/event-stream") ?? false
                    guard isEventStream else {
                        plainBody += bytes
                        if plainBody.count > heldLimit {
                            tooLong = true
                            return false
                        }
                        return true
                    }
                    for event in decoder.feed(bytes) {
                        do throws(ProviderFailure) {
                            if let piece = try stream.take(event) { deliver(piece) }
                        } catch {
                            protocolFailure = error
                            return false
                        }
                        if stream.done || tooLong { return false }
                    }
                    if decoder.bufferedByteCount > heldLimit { tooLong = true }
                    return !tooLong
                }, shouldStop: shouldStop)
        } catch {
            // Cut after the chunk that said why the reply finished: every word of it is here.
            if case .cutOff = error, stream.finishReason != nil, protocolFailure == nil, !tooLong {
                return .reply(stream.ending)
            }
            throw failure(error)
        }
        if let protocolFailure { throw protocolFailure }
        if tooLong {
            throw tooLongFailure
        }
        status = response.status
        switch status {
        case 200..<300:
            if isEventStream {
                // `[DONE]`, or a clean end after a chunk that said why the reply finished.
                if stream.done || stream.finishReason != nil { return .reply(stream.ending) }
                decoder.finish()
                throw ProviderFailure(.cutOff, "the reply stream ended before it was complete")
            }
            let (whole, reason) = try CompletionStream.wholeReply(plainBody)
            deliver(whole)
            if tooLong {
                throw tooLongFailure
            }
            return .reply(CompletionStream.ending(reason))
        case 401, 403:
            throw ProviderFailure(
                .unauthorized,
                "the server refused the API key (\(status)): \(serverMessage(errorBody)). "
                    + "Check the key's environment variable.")
        case 404:
            throw ProviderFailure(
                .notFound, "not found (404): \(serverMessage(errorBody)). Is the model name right, and the base URL?")
        case 429:
            let wait = response.headers["retry-after"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? 2
            return .retry(after: wait, ProviderFailure(.rateLimited, "rate limited (429): \(serverMessage(errorBody))"))
        case 500..<600:
            return .retry(
                after: 1, ProviderFailure(.serverError, "the server failed (\(status)): \(serverMessage(errorBody))"))
        default:
            throw ProviderFailure(.rejected, "the server rejected the request (\(status)): \(serverMessage(errorBody))")
        }
    }

    var tooLongFailure: ProviderFailure {
        ProviderFailure(
            .tooLong,
            """
            the reply passed \(OpenAIProvider.size(maxReplyBytes)) and was stopped there \
            (VAULT_MAX_REPLY_BYTES sets the limit)
            """)
    }

    /// A transport failure as one line that names the server and, for a time-out, its setting.
    func failure(_ error: TransportFailure) -> ProviderFailure {
        let host = HTTPClient.host(of: baseURL)
        switch error {
        case .cannotResolve(let host): return ProviderFailure(.unreachable, "cannot find the server \(host) (DNS)")
        case .cannotConnect(let host):
            return ProviderFailure(.unreachable, "cannot connect to \(host): is the server running?")
        case .tls(let why): return ProviderFailure(.unreachable, "the secure connection to \(host) failed: \(why)")
        case .connectTimeout:
            return ProviderFailure(
                .timeout,
                """
                connecting to \(baseURL) took more than \(OpenAIProvider.seconds(client.connectTimeout)) s; \
                gave up (VAULT_CONNECT_TIMEOUT sets the wait)
                """
            )
        case .noAnswer:
            return ProviderFailure(
                .timeout,
                """
                the server at \(baseURL) took the request but sent no answer for \
                \(OpenAIProvider.seconds(client.firstByteTimeout)) s; gave up (VAULT_FIRST_BYTE_TIMEOUT sets the wait)
                """
            )
        case .stalled:
            return ProviderFailure(
                .timeout,
                """
                the server at \(baseURL) sent nothing for \(OpenAIProvider.seconds(client.idleTimeout)) s and was \
                given up on (VAULT_IDLE_TIMEOUT sets the wait)
                """
            )
        case .cutOff(let why):
            return ProviderFailure(.cutOff, "the connection was cut in the middle of the reply (\(why))")
        case .cancelled: return ProviderFailure(.interrupted, "interrupted")
        case .other(let why): return ProviderFailure(.unreachable, "the request failed: \(why)")
        }
    }

    /// `2`, `0.5`: seconds as a person would write them.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    /// `16 MiB`, `100000 bytes`.
    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
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
        text = Secrets.redact(text)
        if let apiKey, !apiKey.isEmpty { text = text.replacingOccurrences(of: apiKey, with: Secrets.placeholder) }
        text = text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return "no details" }
        return text.count > 200 ? String(text.prefix(199)) + "…" : text
    }
}

/// The chunks of a streamed chat completion. It keeps none of the text (a reply can be longer
/// than memory); only how the stream ends.
struct CompletionStream {
    /// `data: [DONE]` came.
    private(set) var done = false
    /// The last `finish_reason` a chunk gave.
    private(set) var finishReason: String?

    /// How the reply ended, from its `finish_reason`.
    var ending: ReplyEnding { CompletionStream.ending(finishReason) }

    /// The `finish_reason`s that mean the model did not finish: its length limit (`length`,
    /// `max_tokens` on some servers) or its content filter.
    static let truncations: Set<String> = ["length", "max_tokens", "content_filter"]

    static func ending(_ reason: String?) -> ReplyEnding {
        guard let reason, truncations.contains(reason) else { return .complete }
        return ReplyEnding(truncation: reason)
    }

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
            if let delta = choice["delta"] as? [String: Any], let content = delta["content"] as? String {
                piece += content
            }
            if let reason = choice["finish_reason"] as? String, !reason.isEmpty { finishReason = reason }
        }
        return piece.isEmpty ? nil : piece
    }

    /// The reply of a server that answered with one JSON object instead of a stream, and its
    /// `finish_reason`.
    static func wholeReply(_ body: [UInt8]) throws(ProviderFailure) -> (text: String, finishReason: String?) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let choices = object["choices"] as? [[String: Any]], let first = choices.first,
            let message = first["message"] as? [String: Any], let content = message["content"] as? String
        else {
            throw ProviderFailure(.malformed, "the server's reply is not a chat completion")
        }
        return (content, first["finish_reason"] as? String)
    }
}
