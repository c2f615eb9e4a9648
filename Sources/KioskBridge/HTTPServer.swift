import CMicroHTTPD
import Glibc
import Synchronization

/// What the bridge's routes need to know of a request.
public struct HTTPRequest: Sendable {
    public let method: String
    /// As it came, not percent-decoded.
    public let path: String
    /// The `Host` field, when there is one.
    public let host: String?
    /// The request line's length: method, path, query and version.
    public let requestLineBytes: Int
    /// The header fields' length, names and values with their separators.
    public let headerBytes: Int
    /// Whether a body follows the head (`Content-Length` other than 0, or `Transfer-Encoding`).
    public let hasBody: Bool
    public let lastEventID: String?
    /// The query's `scan_id` argument, as it came (not percent-decoded).
    public let scanID: String?
    /// The query's `lane` argument: the page, and its stream, of one lane.
    public var lane: String?
    /// How many `Host` fields came, and the request line's version: HTTP/1.1 without one, or any request with two, is
    /// refused, as libmicrohttpd's strict mode would (which of two names the request meant, the head does not say).
    public var hostFields = 1
    public var version = "HTTP/1.1"
}

/// An answer: a whole document, one that comes once the daemon has answered, or a stream of Server-Sent Events
/// that stays open.
public enum HTTPAnswer: Sendable {
    case document(status: Int, contentType: String, body: [UInt8])
    case deferred(DeferredAnswer)
    case eventStream(EventStream)
}

/// An HTTP/1.1 server on libmicrohttpd: one internal epoll thread, at most `connectionLimit` connections, of which
/// `ConnectionTable.reservedForStation` only for the station itself, and a deadline for each request.
///
/// Routes are plain functions of the request: they answer at once from memory, or suspend the request until the
/// daemon's answer comes (`DeferredAnswer`), so the server's one thread never waits on the daemon.
public final class HTTPServer: Sendable {
    struct Handle: @unchecked Sendable {
        let daemon: OpaquePointer
    }

    public static let connectionLimit = 64
    /// Holds a request line and headers of up to 8 KiB each, with room for the stream's write buffer.
    static let connectionMemory = 64 * 1024
    /// A connection that sends nothing for this long is closed; an event stream is kept alive by its comments.
    static let idleTimeoutSeconds: UInt32 = 60

    private let context: Context
    private let handle: Handle

    /// What libmicrohttpd's callbacks reach through their context pointer.
    final class Context: Sendable {
        let answer: @Sendable (HTTPRequest) -> HTTPAnswer
        let connections = ConnectionTable(limit: HTTPServer.connectionLimit)
        init(answer: @escaping @Sendable (HTTPRequest) -> HTTPAnswer) {
            self.answer = answer
        }
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String { "libmicrohttpd did not start" }
    }

    /// Serves on `socket`; `answer` is called on the server's thread for every complete request head.
    public init(socket: ListeningSocket, answer: @escaping @Sendable (HTTPRequest) -> HTTPAnswer) throws(StartFailure) {
        context = Context(answer: answer)
        guard let daemon = kiosk_mhd_start(socket.descriptor, UInt32(Self.connectionLimit), Self.connectionMemory, Self.idleTimeoutSeconds,
                                           admitConnection, handleRequest, requestCompleted, noteConnection,
                                           Unmanaged.passUnretained(context).toOpaque())
        else { throw StartFailure() }
        handle = Handle(daemon: daemon)
    }

    /// Closes the connections whose request is overdue; called about once a second.
    public func closeSlowRequests() {
        context.connections.closeSlowRequests()
    }
}

private func admitConnection(context: UnsafeMutableRawPointer?, address: UnsafePointer<sockaddr>?, length: socklen_t) -> MHD_Result {
    guard let context else { return .NO }
    return Unmanaged<HTTPServer.Context>.fromOpaque(context).takeUnretainedValue().connections.admits(address) ? .YES : .NO
}

private func noteConnection(context: UnsafeMutableRawPointer?, connection: OpaquePointer?,
                            socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, code: MHD_ConnectionNotificationCode) {
    guard let context, let connection else { return }
    let connections = Unmanaged<HTTPServer.Context>.fromOpaque(context).takeUnretainedValue().connections
    if code == .CONNECTION_NOTIFY_STARTED {
        connections.started(connection, socket: kiosk_mhd_connection_fd(connection), address: kiosk_mhd_client_address(connection))
    } else {
        connections.closed(connection)
    }
}

/// The access handler: called once the request's head is in (and again for a body, which no route takes).
private func handleRequest(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
    version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>?,
    requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let url, let method else { return .NO }
    // Called again once a deferred answer resumed its connection.
    if let pointer = requestContext?.pointee {
        guard let deferred = Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as? DeferredAnswer,
              let document = deferred.documentOrSuspend(connection) else { return .YES }
        return queue(document.status, document.contentType, document.body, on: connection)
    }
    let server = Unmanaged<HTTPServer.Context>.fromOpaque(context).takeUnretainedValue()
    let path = String(cString: url)
    let methodName = String(cString: method)
    let versionBytes = version.map { strlen($0) } ?? 0
    let request = HTTPRequest(
        method: methodName, path: path,
        host: MHD_lookup_connection_value(connection, .HEADER_KIND, "Host").map { String(cString: $0) },
        requestLineBytes: strlen(method) + 1 + strlen(url) + queryBytes(connection) + 1 + versionBytes,
        headerBytes: fieldBytes(connection, kind: .HEADER_KIND),
        hasBody: MHD_lookup_connection_value(connection, .HEADER_KIND, "Transfer-Encoding") != nil
            || MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length").map { String(cString: $0) != "0" } ?? false,
        lastEventID: MHD_lookup_connection_value(connection, .HEADER_KIND, "Last-Event-ID").map { String(cString: $0) },
        scanID: MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, "scan_id").map { String(cString: $0) },
        lane: MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, "lane").map { String(cString: $0) },
        hostFields: hostFields(connection), version: version.map { String(cString: $0) } ?? ""
    )
    switch server.answer(request) {
    case .document(let status, let contentType, let body):
        return queue(status, contentType, body, on: connection)
    case .deferred(let deferred):
        if let document = deferred.documentOrSuspend(connection) {
            return queue(document.status, document.contentType, document.body, on: connection)
        }
        // The completion callback releases it.
        requestContext?.pointee = Unmanaged.passRetained(deferred as AnyObject).toOpaque()
        return .YES
    case .eventStream(let stream):
        server.connections.streamStarted(connection)
        stream.attach(connection)
        let retained = Unmanaged.passRetained(stream)
        guard let response = MHD_create_response_from_callback(UInt64.max, 16 * 1024, readStream, retained.toOpaque(), releaseStream)
        else {
            retained.release()
            return .NO
        }
        defer { MHD_destroy_response(response) }
        addCommonHeaders(response, contentType: "text/event-stream; charset=utf-8")
        MHD_add_response_header(response, "X-Accel-Buffering", "no")
        // The completion callback learns which stream ended through the request's context.
        requestContext?.pointee = Unmanaged.passRetained(stream as AnyObject).toOpaque()
        return MHD_queue_response(connection, UInt32(MHD_HTTP_OK), response)
    }
}

private func queue(_ status: Int, _ contentType: String, _ body: [UInt8], on connection: OpaquePointer) -> MHD_Result {
    let response = body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let response else { return .NO }
    defer { MHD_destroy_response(response) }
    addCommonHeaders(response, contentType: contentType)
    if status == 405 { MHD_add_response_header(response, "Allow", "GET, HEAD") }
    return MHD_queue_response(connection, UInt32(status), response)
}

private func addCommonHeaders(_ response: OpaquePointer, contentType: String) {
    MHD_add_response_header(response, "Content-Type", contentType)
    MHD_add_response_header(response, "Cache-Control", "no-store")
    MHD_add_response_header(response, "X-Content-Type-Options", "nosniff")
    MHD_add_response_header(response, "Content-Security-Policy",
                            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
    MHD_add_response_header(response, "Referrer-Policy", "no-referrer")
}

private func readStream(context: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?, maximum: Int) -> Int {
    guard let context, let buffer else { return Int(MHD_CONTENT_READER_END_WITH_ERROR) }
    let stream = Unmanaged<EventStream>.fromOpaque(context).takeUnretainedValue()
    return stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: maximum))
}

private func releaseStream(context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<EventStream>.fromOpaque(context).release()
}

private func requestCompleted(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    reason: MHD_RequestTerminationCode
) {
    if let context, let connection {
        Unmanaged<HTTPServer.Context>.fromOpaque(context).takeUnretainedValue().connections.requestEnded(connection)
    }
    guard let pointer = requestContext?.pointee else { return }
    requestContext?.pointee = nil
    (Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue() as? EventStream)?.connectionClosed()
}

/// Adds up the fields of one kind (headers, or the query's arguments) as they were on the wire.
private func fieldBytes(_ connection: OpaquePointer, kind: MHD_ValueKind) -> Int {
    var total = 0
    withUnsafeMutablePointer(to: &total) { pointer in
        _ = MHD_get_connection_values(connection, kind, { context, _, key, value in
            let total = context!.assumingMemoryBound(to: Int.self)
            total.pointee += (key.map { strlen($0) } ?? 0) + (value.map { strlen($0) } ?? 0) + 4
            return .YES
        }, pointer)
    }
    return total
}

/// The `Host` fields of the request's head, names in any case.
private func hostFields(_ connection: OpaquePointer) -> Int {
    var count = 0
    withUnsafeMutablePointer(to: &count) { pointer in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, { context, _, key, _ in
            if let key, strcasecmp(key, "Host") == 0 { context!.assumingMemoryBound(to: Int.self).pointee += 1 }
            return .YES
        }, pointer)
    }
    return count
}

private func queryBytes(_ connection: OpaquePointer) -> Int {
    fieldBytes(connection, kind: .GET_ARGUMENT_KIND)
}
