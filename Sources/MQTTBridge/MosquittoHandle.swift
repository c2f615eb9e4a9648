import CMosquitto
import Glibc

/// A libmosquitto return code kept as a value, with the words libmosquitto has for it.
struct MosquittoError: Error, Sendable, CustomStringConvertible {
    let code: Int32
    /// errno when `code` is MOSQ_ERR_ERRNO.
    let systemError: Int32

    init(_ code: Int32) {
        self.code = code
        systemError = code == Int32(MOSQ_ERR_ERRNO.rawValue) ? errno : 0
    }

    /// Without libmosquitto's closing full stop ("The connection was lost."): the words go on in a longer line.
    var description: String {
        if code == Int32(MOSQ_ERR_ERRNO.rawValue) { return String(cString: strerror(systemError)) }
        let words = String(cString: mosquitto_strerror(code))
        return words.hasSuffix(".") ? String(words.dropLast()) : words
    }
}

/// One libmosquitto client instance, used by one connection only: a new session starts
/// with a new instance, so nothing of an old session is sent again behind our back.
/// Unchecked Sendable: with `mosquitto_threaded_set`, libmosquitto's own locks let another
/// thread publish while the loop thread runs; the link frees it only under its Mutex.
final class MosquittoHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    init?(clientID: String, context: UnsafeMutableRawPointer) {
        guard let made = mosquitto_new(clientID, true, context) else { return nil }
        pointer = made
        mosquitto_threaded_set(pointer, true)
    }

    deinit {
        mosquitto_destroy(pointer)
    }

    private func check(_ code: Int32) throws(MosquittoError) {
        guard code == Int32(MOSQ_ERR_SUCCESS.rawValue) else { throw MosquittoError(code) }
    }

    func setProtocol(version: Int32) throws(MosquittoError) {
        try check(mosquitto_int_option(pointer, MOSQ_OPT_PROTOCOL_VERSION, version))
    }

    func setSendMaximum(_ count: Int) throws(MosquittoError) {
        try check(mosquitto_int_option(pointer, MOSQ_OPT_SEND_MAXIMUM, Int32(count)))
    }

    func setNoDelay() throws(MosquittoError) {
        try check(mosquitto_int_option(pointer, MOSQ_OPT_TCP_NODELAY, 1))
    }

    func setCredentials(user: String, password: String) throws(MosquittoError) {
        try check(mosquitto_username_pw_set(pointer, user, password))
    }

    /// TLS with `caFile`, or with the system's CAs when it is nil; a client certificate when given.
    func setTLS(caFile: String?, certificate: String?, key: String?) throws(MosquittoError) {
        if caFile == nil { try check(mosquitto_int_option(pointer, MOSQ_OPT_TLS_USE_OS_CERTS, 1)) }
        try check(mosquitto_tls_set(pointer, caFile, caFile == nil ? "/etc/ssl/certs" : nil, certificate, key, nil))
    }

    func setWill(topic: String, payload: String) throws(MosquittoError) {
        let bytes = Array(payload.utf8)
        try check(mosquitto_will_set(pointer, topic, Int32(bytes.count), bytes, 1, true))
    }

    /// Blocks for the TCP connection (and the TLS handshake); the CONNACK comes later, through `loop`.
    func connect(host: String, port: Int, keepalive: Int32) throws(MosquittoError) {
        try check(mosquitto_connect(pointer, host, Int32(port), keepalive))
    }

    /// One round of network work, waiting at most `milliseconds` for something to do.
    func loop(milliseconds: Int32) throws(MosquittoError) {
        try check(mosquitto_loop(pointer, milliseconds, 1))
    }

    /// Queues a message for the loop thread; returns its message id.
    func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) throws(MosquittoError) -> Int32 {
        var mid: Int32 = 0
        let code = payload.withUnsafeBytes { raw in
            mosquitto_publish(pointer, &mid, topic, Int32(raw.count), raw.baseAddress, qos, retain)
        }
        try check(code)
        return mid
    }

    func subscribe(pattern: String, qos: Int32) throws(MosquittoError) {
        try check(mosquitto_subscribe(pointer, nil, pattern, qos))
    }

    func disconnect() {
        mosquitto_disconnect(pointer)
    }
}
