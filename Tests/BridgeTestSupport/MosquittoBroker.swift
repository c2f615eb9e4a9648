import Foundation
import Glibc
import TestSupport

/// Debian's mosquitto on loopback ports of its own, with its own configuration, never the system's:
/// a plain listener, a TLS one that wants a client certificate, and a TLS one whose certificate names
/// another host (broker.example), all with a password file,
/// and persistence in its folder so a stop and start keeps the subscribers' sessions.
public final class MosquittoBroker: @unchecked Sendable {
    public static let user = "station"
    public static let password = "s3cret-pa55"

    public let directory: String
    public let port: Int
    public let tlsPort: Int
    public let misnamedTLSPort: Int
    public let certificates: TestCertificates
    private var process: ChildProcess?

    public init() throws {
        directory = try makeScratchDirectory("mosquitto")
        port = try freeLoopbackPort()
        tlsPort = try freeLoopbackPort()
        misnamedTLSPort = try freeLoopbackPort()
        certificates = try TestCertificates(directory: directory)
        try runTool("/usr/bin/mosquitto_passwd", ["-b", "-c", directory + "/passwords", Self.user, Self.password])
        try "\(Self.user):\(Self.password)\n".write(toFile: credentialsFile, atomically: true, encoding: .utf8)
        try "\(Self.user):wrong-password\n".write(toFile: directory + "/wrong-credentials", atomically: true, encoding: .utf8)
        // Readable by their owner only: the bridge refuses a password others may read.
        chmod(credentialsFile, 0o600)
        chmod(directory + "/wrong-credentials", 0o600)
        // Started as root, mosquitto would switch to the user `mosquitto`, who cannot read this private folder.
        let user = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
        let configuration = """
            user \(user)
            per_listener_settings false
            allow_anonymous false
            password_file \(directory)/passwords
            persistence true
            persistence_location \(directory)/
            autosave_interval 3600
            max_queued_messages 0
            max_inflight_messages 100
            log_dest stderr
            log_type error
            log_type warning
            listener \(port) 127.0.0.1
            listener \(tlsPort) 127.0.0.1
            cafile \(certificates.caFile)
            certfile \(certificates.serverCertificate)
            keyfile \(certificates.serverKey)
            require_certificate true
            listener \(misnamedTLSPort) 127.0.0.1
            cafile \(certificates.caFile)
            certfile \(certificates.misnamedServerCertificate)
            keyfile \(certificates.misnamedServerKey)

            """
        try configuration.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        process?.signal(SIGKILL)
        process?.waitForExit(timeout: .seconds(5))
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// "station:<password>": what `--credentials` reads.
    public var credentialsFile: String { directory + "/credentials" }
    public var wrongCredentialsFile: String { directory + "/wrong-credentials" }
    public var url: String { "mqtt://127.0.0.1:\(port)" }
    public var tlsURL: String { "mqtts://127.0.0.1:\(tlsPort)" }
    public var misnamedTLSURL: String { "mqtts://127.0.0.1:\(misnamedTLSPort)" }

    public func start() throws {
        let started = try ChildProcess("/usr/sbin/mosquitto", ["-c", directory + "/mosquitto.conf"], output: .file(directory + "/mosquitto.log"))
        process = started
        try waitUntil("mosquitto did not listen on \(port): \(started.printed)", timeout: .seconds(10)) {
            loopbackPortAccepts(port) && loopbackPortAccepts(tlsPort) && loopbackPortAccepts(misnamedTLSPort)
        }
    }

    /// SIGTERM: mosquitto saves its sessions and queued messages, then exits.
    public func stop() {
        process?.stop()
        process = nil
    }

    /// Arguments for mosquitto_sub and mosquitto_pub on the plain listener.
    public var clientArguments: [String] { ["-h", "127.0.0.1", "-p", String(port), "-u", Self.user, "-P", Self.password] }
}
