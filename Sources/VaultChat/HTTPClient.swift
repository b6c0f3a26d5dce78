import CCurl
import CVaultShims
import Foundation
import VaultCore

/// Why an HTTP exchange failed before a response could be read.
public enum TransportFailure: Error, Sendable, Equatable {
    case cannotResolve(String)
    case cannotConnect(String)
    case tls(String)
    case connectTimeout
    /// No byte arrived for the no-data time-out.
    case stalled
    /// The connection closed in the middle of the response.
    case cutOff(String)
    /// The person pressed Ctrl-C (or the caller stopped the transfer).
    case cancelled
    case other(String)
}

/// A POST over libcurl whose response body is handed over as it arrives.
///
/// libcurl's blocking `curl_easy_perform` runs on the calling thread; its write callback
/// gets each piece of the body, and its progress callback is how a Ctrl-C stops it. Every
/// curl handle and header list is freed before `post` returns.
public struct HTTPClient: Sendable {
    /// Time allowed to connect (TCP and TLS).
    public var connectTimeout: Double = 15
    /// Time allowed without a single byte arriving (not a cap on the whole transfer: a long
    /// reply that keeps streaming is never cut).
    public var idleTimeout: Double = 120

    /// Loads libcurl on another core now (it and its libraries take a few milliseconds to
    /// load), for a command that is about to talk to a server.
    public static func warmUp() {
        DispatchQueue.global(qos: .userInitiated).async { _ = cvault_curl_load() }
    }

    public init(connectTimeout: Double = 15, idleTimeout: Double = 120) {
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
    }

    public struct Response: Sendable {
        public var status: Int
        /// Header names lower-cased.
        public var headers: [String: String]
    }

    /// Sends `body` to `url`; `onBody` gets the status and headers once, then each piece of the
    /// body; it returns false to stop the transfer. `shouldStop` is polled while waiting.
    public func post(
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

        return try withoutActuallyEscaping(onBody) { (onBody) throws(TransportFailure) -> Response in
            try perform(handle, url: url, list: list, body: body, onBody: onBody, shouldStop: shouldStop)
        }
    }

    private func perform(
        _ handle: UnsafeMutableRawPointer, url: String, list: UnsafeMutablePointer<curl_slist>?, body: [UInt8],
        onBody: @escaping (Response, [UInt8]) -> Bool, shouldStop: @escaping () -> Bool
    ) throws(TransportFailure) -> Response {
        let transfer = Transfer(handle: handle, onBody: onBody, shouldStop: shouldStop, idleTimeout: idleTimeout)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        _ = cvault_curl_setopt_string(handle, CURLOPT_URL, url)
        _ = cvault_curl_setopt_long(handle, CURLOPT_POST, 1)
        _ = cvault_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
        _ = body.withUnsafeBytes { cvault_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress)) }
        _ = cvault_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
        _ = cvault_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = cvault_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout * 1000))
        // The no-data time-out is kept by the progress callback (libcurl's own low-speed check
        // averages over several seconds, which makes it fire late).
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
        _ = cvault_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        _ = cvault_curl_setopt_progress_function(handle) { context, _, _, _, _ in
            let t = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            return t.tick() ? 0 : 1
        }
        _ = cvault_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)

        let code = withExtendedLifetime(transfer) { cvault_curl_easy_perform(handle) }
        var status = 0
        _ = cvault_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let response = Response(status: status, headers: transfer.headers)
        if transfer.stoppedByReceiver { return response }
        if transfer.cancelled { throw .cancelled }
        if transfer.stalled { throw .stalled }
        switch code {
        case CURLE_OK: return response
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: throw .cannotResolve(HTTPClient.host(of: url))
        case CURLE_COULDNT_CONNECT: throw .cannotConnect(HTTPClient.host(of: url))
        case CURLE_OPERATION_TIMEDOUT: throw transfer.receivedAnything || status != 0 ? .stalled : .connectTimeout
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
        var headers: [String: String] = [:]
        var status = 0
        var receivedAnything = false
        var stoppedByReceiver = false
        var cancelled = false
        var stalled = false
        let idleTimeout: Double
        var lastByte = DispatchTime.now().uptimeNanoseconds
        var connected = false

        init(
            handle: UnsafeMutableRawPointer, onBody: @escaping (Response, [UInt8]) -> Bool,
            shouldStop: @escaping () -> Bool, idleTimeout: Double
        ) {
            self.handle = handle
            self.onBody = onBody
            self.shouldStop = shouldStop
            self.idleTimeout = idleTimeout
        }

        /// Called by libcurl while the transfer runs: false stops it (Ctrl-C, or no data for too long).
        func tick() -> Bool {
            if shouldStop() {
                cancelled = true
                return false
            }
            if status != 0, Double(DispatchTime.now().uptimeNanoseconds - lastByte) / 1e9 > idleTimeout {
                stalled = true
                return false
            }
            return true
        }

        func header(_ raw: UnsafeRawBufferPointer) {
            lastByte = DispatchTime.now().uptimeNanoseconds
            let line = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.hasPrefix("HTTP/") {
                headers.removeAll()  // a new response (after 100 Continue or a redirect)
                status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
            } else if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }

        func receive(_ data: UnsafeRawBufferPointer) -> Bool {
            receivedAnything = true
            lastByte = DispatchTime.now().uptimeNanoseconds
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
