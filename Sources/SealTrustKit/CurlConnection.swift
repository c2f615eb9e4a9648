import CCurl
#if canImport(Glibc)
import Glibc
#endif
import POSIXSupport

/// One connection to the API opened by libcurl and nothing more (`CURLOPT_CONNECT_ONLY`): TCP, the proxy's
/// tunnel, TLS with the certificate and host name checked. libcurl never writes a request on it, so it can
/// never send one twice; the transport writes and reads the bytes itself.
///
/// `@unchecked Sendable`: it moves between threads, but one thread at a time uses it (the pool hands it out).
final class CurlConnection: @unchecked Sendable {
    /// What went wrong on an open connection, before the exchange words it.
    enum IOFailure: Error {
        case timedOut
        case broken(String)
    }

    /// A send that failed, and whether any of its bytes had already gone.
    struct SendFailure: Error {
        let failure: IOFailure
        let anyByteWritten: Bool
    }

    private let handle: UnsafeMutableRawPointer
    private let socket: Int32
    /// When it last finished an exchange (or was opened): the keep-alive limit counts from here.
    private(set) var idleSince: ContinuousClock.Instant

    private init(handle: UnsafeMutableRawPointer, socket: Int32) {
        self.handle = handle
        self.socket = socket
        idleSince = .now
    }

    deinit {
        curl_easy_cleanup(handle)
    }

    /// Blocks until the connection is ready or `deadline` passes.
    static func open(_ settings: ConnectionSettings, deadline: ContinuousClock.Instant) throws(TransportFailure) -> CurlConnection {
        _ = CurlLibrary.initialized
        guard let handle = curl_easy_init() else {
            throw TransportFailure(.connect, "libcurl could not make a handle (out of memory)")
        }
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code = errorText.withUnsafeMutableBufferPointer { buffer -> CURLcode in
            ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            configure(handle, settings, deadline: deadline)
            let code = curl_easy_perform(handle)
            ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
            return code
        }
        guard code == CURLE_OK else {
            let failure = CurlOpenFailure(handle: handle, code: code, message: String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), settings: settings)
            curl_easy_cleanup(handle)
            throw failure.transportFailure
        }
        var socket = curl_socket_t(-1)
        guard ccurl_getinfo_socket(handle, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK, socket >= 0 else {
            curl_easy_cleanup(handle)
            throw TransportFailure(.connect, "libcurl opened no socket to \(settings.endpoint.authority)")
        }
        return CurlConnection(handle: handle, socket: socket)
    }

    private static func configure(_ handle: UnsafeMutableRawPointer, _ settings: ConnectionSettings, deadline: ContinuousClock.Instant) {
        ccurl_setopt_string(handle, CURLOPT_URL, settings.endpoint.connectAddress)
        ccurl_setopt_long(handle, CURLOPT_CONNECT_ONLY, 1)
        ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        ccurl_setopt_long(handle, CURLOPT_TCP_NODELAY, 1)
        let milliseconds = max(1, milliseconds(until: deadline))
        ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
        ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
        // ALPN offers http/1.1 only: the bytes written on this connection are HTTP/1.1.
        ccurl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        ccurl_setopt_long(handle, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        // An empty proxy, and an empty no-proxy list, turn off libcurl's own reading of the environment
        // (`https_proxy`, `no_proxy`): the configuration decides, NO_PROXY included (the daemon reads it).
        ccurl_setopt_string(handle, CURLOPT_PROXY, settings.proxy ?? "")
        ccurl_setopt_string(handle, CURLOPT_NOPROXY, "")
        if settings.proxy != nil {
            ccurl_setopt_long(handle, CURLOPT_HTTPPROXYTUNNEL, 1)
        }
        if let bundle = settings.caBundle {
            // A blob takes the place of libcurl's CA file, and its CA folder (the system's store, /etc/ssl/certs on
            // Debian) stays: the bundle is trusted in addition. An empty one would read as no blob: a line end is no
            // certificate either, and fails as an unreadable CA file.
            var pem = bundle.pem.isEmpty ? [0x0A] : bundle.pem
            pem.withUnsafeMutableBytes { raw in
                var blob = curl_blob(data: raw.baseAddress, len: raw.count, flags: UInt32(CURL_BLOB_COPY))
                ccurl_setopt_pointer(handle, CURLOPT_CAINFO_BLOB, &blob)
                ccurl_setopt_pointer(handle, CURLOPT_PROXY_CAINFO_BLOB, &blob)
            }
        }
    }

    /// Zero-timeout check that the server has not closed or written to the idle connection. A readable
    /// socket may hold only TLS records that carry no data (a TLS 1.3 session ticket): those are read
    /// and the connection stays; an end of stream or any stray byte condemns it.
    var isAlive: Bool {
        guard let ready = try? Poll.wait(on: socket, for: Int16(POLLIN) | Self.peerHangUp, until: .now) else { return false }
        if ready & (Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL) | Self.peerHangUp) != 0 {
            return false
        }
        guard ready & Int16(POLLIN) != 0 else { return true }
        var scratch = [UInt8](repeating: 0, count: 64)
        var received = 0
        let code = scratch.withUnsafeMutableBytes { curl_easy_recv(handle, $0.baseAddress, $0.count, &received) }
        return code == CURLE_AGAIN
    }

    /// Writes all of `bytes` before `deadline`.
    func send(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(SendFailure) {
        var offset = 0
        while offset < bytes.count {
            var sent = 0
            let code = bytes[offset...].withUnsafeBytes { curl_easy_send(handle, $0.baseAddress, $0.count, &sent) }
            switch code {
            case CURLE_OK:
                offset += sent
            case CURLE_AGAIN:
                do {
                    try wait(for: Int16(POLLOUT), until: deadline)
                } catch {
                    throw SendFailure(failure: error, anyByteWritten: offset > 0)
                }
            default:
                throw SendFailure(failure: .broken(Self.words(code)), anyByteWritten: offset > 0)
            }
        }
    }

    /// Reads what has arrived, waiting for at least one byte until `deadline`; 0 bytes means the server closed.
    func receive(into buffer: inout [UInt8], deadline: ContinuousClock.Instant) throws(IOFailure) -> Int {
        while true {
            var received = 0
            let code = buffer.withUnsafeMutableBytes { curl_easy_recv(handle, $0.baseAddress, $0.count, &received) }
            switch code {
            case CURLE_OK:
                return received
            case CURLE_AGAIN:
                try wait(for: Int16(POLLIN), until: deadline)
            default:
                throw .broken(Self.words(code))
            }
        }
    }

    /// The exchange is over and the connection may serve another.
    func markIdle() {
        idleSince = .now
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws(IOFailure) {
        while true {
            guard ContinuousClock.now < deadline else { throw .timedOut }
            do throws(Errno) {
                if try Poll.wait(on: socket, for: events, until: deadline) != 0 { return }
            } catch {
                throw .broken(error.description)
            }
        }
    }

    /// `POLLRDHUP` (Linux, `_GNU_SOURCE`): the peer shut down its side. Glibc's module does not export it.
    private static let peerHangUp: Int16 = 0x2000

    private static func words(_ code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }

    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int {
        let (seconds, attoseconds) = (deadline - .now).components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// libcurl's process-wide set-up, done once before the first handle.
enum CurlLibrary {
    static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
}
