import CCurl
import CCurlShims
import Foundation
import VaultCore

/// Why an HTTP exchange failed before a response could be read.
package enum TransportFailure: Error, Sendable, Equatable {
    case cannotResolve(String)
    case cannotConnect(String)
    case tls(String)
    case connectTimeout
    /// Connected and the request sent, then not a byte of an answer for the first-byte time-out.
    case noAnswer
    /// No byte arrived for the no-data time-out, in the middle of the answer.
    case stalled
    /// The connection closed in the middle of the response.
    case cutOff(String)
    /// The person pressed Ctrl-C (or the caller stopped the transfer).
    case cancelled
    case other(String)
}

/// A POST over libcurl whose response body is handed over as it arrives.
///
/// The transfer runs on the calling thread (libcurl's multi interface, polled every 100 ms);
/// the write callback gets each piece of the body, and between polls `shouldStop` (Ctrl-C) and
/// the time-outs are checked, so either stops the transfer within a tenth of a second. Three
/// time-outs, each for one kind of silence: connecting, the server's first byte after the
/// request went out (a server that takes a request and never answers), and a pause in the
/// middle of an answer. None caps the whole transfer: a long reply that keeps streaming is
/// never cut. Every curl handle and header list is freed before `post` returns.
package struct HTTPClient: Sendable {
    /// Time allowed to connect (TCP and TLS).
    package var connectTimeout: Double = 15
    /// Time allowed, once the request is sent, for the first byte of the answer.
    package var firstByteTimeout: Double = 60
    /// Time allowed without a single byte arriving, once the answer has started.
    package var idleTimeout: Double = 120
    /// What the requests say they come from (some gateways refuse requests without one).
    package var userAgent = "vault/" + VaultVersion.current

    /// Loads libcurl on another core now (it and its libraries take a few milliseconds to
    /// load), for a command that is about to talk to a server.
    package static func warmUp() {
        DispatchQueue.global(qos: .userInitiated).async { _ = cvault_curl_load() }
    }

    package init(connectTimeout: Double = 15, firstByteTimeout: Double = 60, idleTimeout: Double = 120) {
        self.connectTimeout = connectTimeout
        self.firstByteTimeout = firstByteTimeout
        self.idleTimeout = idleTimeout
    }

    package struct Response: Sendable {
        package var status: Int
        /// Header names lower-cased.
        package var headers: [String: String]
    }

    /// Sends `body` to `url`; `onBody` gets the status and headers with each piece of the
    /// body; it returns false to stop the transfer. `shouldStop` is polled while waiting.
    package func post(
        url: String, headers: [String], body: [UInt8],
        onBody: (Response, [UInt8]) -> Bool,
        shouldStop: @escaping () -> Bool = { false }
    ) throws(TransportFailure) -> Response {
        if let problem = cvault_curl_load() { throw .other("cannot load libcurl: " + String(cString: problem)) }
        guard let handle = cvault_curl_easy_init() else { throw .other("libcurl could not start") }
        defer { cvault_curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        for h in headers { list = cvault_curl_slist_append(list, h) }
        defer { cvault_curl_slist_free_all(list) }
        // Secrets in the headers (the key) are never shown: Trace hides them.
        Trace.mark(
            "http: POST \(url) (\(body.count) bytes; User-Agent: \(userAgent); \(headers.joined(separator: "; ")))")

        return try withoutActuallyEscaping(onBody) { (onBody) throws(TransportFailure) -> Response in
            try perform(handle, url: url, list: list, body: body, onBody: onBody, shouldStop: shouldStop)
        }
    }

    private func perform(
        _ handle: UnsafeMutableRawPointer, url: String, list: UnsafeMutablePointer<curl_slist>?, body: [UInt8],
        onBody: @escaping (Response, [UInt8]) -> Bool, shouldStop: @escaping () -> Bool
    ) throws(TransportFailure) -> Response {
        let transfer = Transfer(
            handle: handle, onBody: onBody, shouldStop: shouldStop, firstByteTimeout: firstByteTimeout,
            idleTimeout: idleTimeout)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        _ = cvault_curl_setopt_string(handle, CURLOPT_URL, url)
        _ = cvault_curl_setopt_long(handle, CURLOPT_POST, 1)
        _ = cvault_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
        _ = body.withUnsafeBytes {
            cvault_curl_setopt_pointer(
                handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
        }
        _ = cvault_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
        _ = cvault_curl_setopt_string(handle, CURLOPT_USERAGENT, userAgent)
        _ = cvault_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = cvault_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout * 1000))
        // The first-byte and no-data time-outs are kept by `Transfer.tick` (libcurl's own
        // low-speed check averages over several seconds, which makes it fire late).
        _ = cvault_curl_setopt_write_function(handle) { data, size, count, context in
            let t = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            return t.receive(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        }
        _ = cvault_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = cvault_curl_setopt_header_function(handle) { data, size, count, context in
            let t = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            t.header(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        _ = cvault_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)

        let code = withExtendedLifetime(transfer) {
            cvault_curl_perform_polling(handle, 100, { context in
                let t = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                return t.tick() ? 0 : 1
            }, context)
        }
        var status = 0
        _ = cvault_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let response = Response(status: status, headers: transfer.headers)
        Trace.mark("http: \(status) after \(transfer.elapsedText), \(transfer.received) bytes received")
        if transfer.stoppedByReceiver { return response }
        if transfer.cancelled { throw .cancelled }
        if transfer.unanswered { throw .noAnswer }
        if transfer.stalled { throw .stalled }
        switch code {
        case CURLE_OK: return response
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: throw .cannotResolve(HTTPClient.host(of: url))
        case CURLE_COULDNT_CONNECT: throw .cannotConnect(HTTPClient.host(of: url))
        case CURLE_OPERATION_TIMEDOUT: throw transfer.firstByte != nil ? .stalled : .connectTimeout
        case CURLE_ABORTED_BY_CALLBACK: throw .cancelled
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR:
            throw .tls(String(cString: cvault_curl_easy_strerror(code)))
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            throw .cutOff(String(cString: cvault_curl_easy_strerror(code)))
        default:
            throw .other(String(cString: cvault_curl_easy_strerror(code)))
        }
    }

    static func host(of url: String) -> String { URL(string: url)?.host ?? url }

    /// State shared with libcurl's callbacks during one transfer.
    final class Transfer {
        let handle: UnsafeMutableRawPointer
        let onBody: (Response, [UInt8]) -> Bool
        let shouldStop: () -> Bool
        let firstByteTimeout: Double
        let idleTimeout: Double
        var headers: [String: String] = [:]
        var status = 0
        var stoppedByReceiver = false
        var cancelled = false
        var unanswered = false
        var stalled = false
        /// Bytes of the body received.
        var received = 0
        let started = DispatchTime.now().uptimeNanoseconds
        /// When the first byte of the answer (its status line) came.
        var firstByte: UInt64?
        /// When the last byte came.
        var lastByte: UInt64 = 0
        /// When the request was last seen going out (connected, or more of it sent).
        var lastSent: UInt64?
        var sentBytes: Int64 = -1

        init(
            handle: UnsafeMutableRawPointer, onBody: @escaping (Response, [UInt8]) -> Bool,
            shouldStop: @escaping () -> Bool, firstByteTimeout: Double, idleTimeout: Double
        ) {
            self.handle = handle
            self.onBody = onBody
            self.shouldStop = shouldStop
            self.firstByteTimeout = firstByteTimeout
            self.idleTimeout = idleTimeout
        }

        var elapsedText: String {
            String(format: "%.1f s", Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
        }

        /// Called at least every 100 ms while the transfer runs: false stops it (Ctrl-C, or a
        /// silence longer than its time-out).
        func tick() -> Bool {
            if shouldStop() {
                cancelled = true
                return false
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if firstByte == nil {
                // The first-byte clock starts once connected, and restarts while the request
                // (a long one, with images) is still going out.
                var sent: curl_off_t = 0
                var connected: curl_off_t = 0
                _ = cvault_curl_getinfo_offset(handle, CURLINFO_PRETRANSFER_TIME_T, &connected)
                _ = cvault_curl_getinfo_offset(handle, CURLINFO_SIZE_UPLOAD_T, &sent)
                if connected > 0, Int64(sent) != sentBytes {
                    if lastSent == nil { Trace.mark("http: connected, request going out") }
                    sentBytes = Int64(sent)
                    lastSent = now
                }
                if let lastSent, Double(now - lastSent) / 1e9 > firstByteTimeout {
                    unanswered = true
                    return false
                }
            } else if Double(now - lastByte) / 1e9 > idleTimeout {
                stalled = true
                return false
            }
            return true
        }

        func header(_ raw: UnsafeRawBufferPointer) {
            lastByte = DispatchTime.now().uptimeNanoseconds
            if firstByte == nil { firstByte = lastByte }
            let line = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.hasPrefix("HTTP/") {
                headers.removeAll()  // a new response (after 100 Continue or a redirect)
                status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
                Trace.mark("http: \(line)")
            } else if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
        }

        func receive(_ data: UnsafeRawBufferPointer) -> Bool {
            lastByte = DispatchTime.now().uptimeNanoseconds
            if firstByte == nil { firstByte = lastByte }
            received += data.count
            if shouldStop() {
                cancelled = true
                return false
            }
            let keepGoing = onBody(Response(status: status, headers: headers), Array(data))
            if !keepGoing { stoppedByReceiver = true }
            return keepGoing
        }
    }
}
