import BridgeTestSupport
import Foundation
import Glibc
import Testing
import TestSupport

/// `mqtts://` without `--ca`: the bridge trusts what the system's store trusts. The test CA reaches that store
/// through OpenSSL's own variables for the bridge's process (SSL_CERT_FILE, SSL_CERT_DIR), so nothing is installed
/// on the machine.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SystemTrustTests {
    /// The system's store as OpenSSL reads it, pointed at `caFile` and an empty folder.
    func systemStore(trusting caFile: String) throws -> [String: String] {
        ["SSL_CERT_FILE": caFile, "SSL_CERT_DIR": try makeScratchDirectory("empty-cert-dir")]
    }

    @Test func aBrokerSignedByACATheSystemTrustsGetsEveryEvent() throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon(station: "dock-7")
        try daemon.scanForeignCodes(10, tag: "system-store")
        let subscriber = try Subscriber(broker: broker)
        let certificates = broker.certificates
        let state = try makeScratchDirectory("bridge-state")
        let store = try systemStore(trusting: certificates.caFile)
        let bridge = try BridgeProcess(arguments: [
            "--socket", daemon.socketPath, "--url", broker.tlsURL, "--credentials", broker.credentialsFile,
            "--cert", certificates.clientCertificate, "--key", certificates.clientKey, "--state-dir", state,
        ], environment: store)
        try subscriber.waitForEvents(through: 20, timeout: .seconds(20))
        _ = checkOrderAndGaps(subscriber.eventSeqs, through: 20)
        #expect(bridge.log.contains("connected to \(broker.tlsURL)"), "\(bridge.log)")
    }

    /// An unknown CA and a certificate for another host: each is said in the log and in STATUS=, and the bridge
    /// tries again on its back-off (1 s, then 2 s) without spinning.
    @Test func anUntrustedOrMisnamedCertificateIsReportedAndRetried() throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon()
        let certificates = broker.certificates
        let cases = [
            ("unknown CA", broker.tlsURL, certificates.unknownCAFile),
            ("another host's certificate", broker.misnamedTLSURL, certificates.caFile),
        ]
        let bridges = try cases.map { name, url, trusted in
            let status = try StatusRecorder()
            let state = try makeScratchDirectory("bridge-state")
            let store = try systemStore(trusting: trusted)
            let bridge = try BridgeProcess(arguments: [
                "--socket", daemon.socketPath, "--url", url, "--credentials", broker.credentialsFile,
                "--cert", certificates.clientCertificate, "--key", certificates.clientKey, "--state-dir", state,
            ], notify: status.listener, environment: store)
            return (name: name, bridge: bridge, status: status)
        }
        let refusal = "does not trust the broker's certificate"
        for item in bridges {
            try waitUntil("\(item.name): not two refused attempts in the log: \(item.bridge.log)", timeout: .seconds(15)) {
                item.bridge.log.components(separatedBy: refusal).count > 2
            }
            #expect(item.bridge.log.contains("certificate verify failed"), "\(item.name): \(item.bridge.log)")
            try item.status.waitFor("degraded: broker", timeout: .seconds(5))
            #expect(item.status.last.contains(refusal), "\(item.name): STATUS=\(item.status.last)")
            #expect(item.bridge.cpuSeconds < 1, "\(item.name): \(item.bridge.cpuSeconds) s of CPU")
            #expect(!item.bridge.log.contains(MosquittoBroker.password))
        }
    }
}
