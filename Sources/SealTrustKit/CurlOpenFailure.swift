import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// Why libcurl could not open a connection, read from its code, its error text, the proxy's answer to
/// `CONNECT`, OpenSSL's verification result and the system's errno; worded for an operator.
struct CurlOpenFailure {
    let code: CURLcode
    let message: String
    let settings: ConnectionSettings
    let proxyStatus: Int
    let verifyResult: Int
    let systemErrno: Int

    init(handle: UnsafeMutableRawPointer, code: CURLcode, message: String, settings: ConnectionSettings) {
        self.code = code
        self.message = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        self.settings = settings
        proxyStatus = Self.info(handle, CURLINFO_HTTP_CONNECTCODE)
        verifyResult = Self.info(handle, CURLINFO_SSL_VERIFYRESULT)
        systemErrno = Self.info(handle, CURLINFO_OS_ERRNO)
    }

    private var host: String { settings.endpoint.host }
    /// The proxy's address without any `user:password@`: a detail goes to logs.
    private var proxyHost: String {
        guard let proxy = settings.proxy else { return "" }
        guard let at = proxy.lastIndex(of: "@") else { return proxy }
        let scheme = proxy.firstRange(of: "://").map { String(proxy[..<$0.upperBound]) } ?? ""
        return scheme + proxy[proxy.index(after: at)...]
    }

    var transportFailure: TransportFailure {
        if settings.proxy != nil, proxyStatus != 0, proxyStatus != 200 {
            return TransportFailure(.proxy, "the proxy \(proxyHost) refused the tunnel to \(settings.endpoint.authority) (HTTP \(proxyStatus))")
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return TransportFailure(.dns, "could not resolve \(host)")
        case CURLE_COULDNT_RESOLVE_PROXY:
            return TransportFailure(.proxy, "could not resolve the proxy \(proxyHost)")
        case CURLE_COULDNT_CONNECT:
            if settings.proxy != nil {
                return TransportFailure(.proxy, "could not connect to the proxy \(proxyHost) (\(systemReason))")
            }
            return TransportFailure(.connect, "could not connect to \(settings.endpoint.authority) (\(systemReason))")
        case CURLE_OPERATION_TIMEDOUT:
            let through = settings.proxy == nil ? "" : " through the proxy \(proxyHost)"
            return TransportFailure(.timeout, "connecting to \(settings.endpoint.authority)\(through) timed out")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED:
            return TransportFailure(.tls, tlsDetail)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
            if settings.proxy != nil && proxyStatus == 0 {
                return TransportFailure(.proxy, "the proxy \(proxyHost) closed the connection (\(message))")
            }
            return TransportFailure(.reset, "the connection to \(settings.endpoint.authority) broke while opening (\(message))")
        default:
            return TransportFailure(.connect, "could not open a connection to \(settings.endpoint.authority) (\(message))")
        }
    }

    /// OpenSSL's verification result first (it names the certificate's fault), then libcurl's own checks.
    private var tlsDetail: String {
        switch verifyResult {
        case 10: return "TLS: certificate has expired"
        case 9: return "TLS: certificate is not yet valid (is the station's clock right?)"
        case 18, 19, 20, 21, 2:
            return "TLS: certificate of \(host) signed by an unknown authority; trust its CA with a CA file (--api-ca)"
        case 23: return "TLS: certificate has been revoked"
        case 62: return "TLS: certificate is not for \(host)"
        default: break
        }
        if code == CURLE_SSL_CACERT_BADFILE {
            return "TLS: cannot read the CA file \(settings.caBundle?.path ?? "(system store)")"
        }
        if message.contains("subject name") || message.contains("does not match target host") {
            return "TLS: certificate is not for \(host)"
        }
        let prefix = "SSL certificate problem: "
        let reason = message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
        return "TLS: \(reason)"
    }

    private var systemReason: String {
        systemErrno == 0 ? message : String(cString: strerror(Int32(systemErrno))).lowercased()
    }

    private static func info(_ handle: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int {
        var value = 0
        return ccurl_getinfo_long(handle, info, &value) == CURLE_OK ? value : 0
    }
}
