import BridgeTestSupport
import Foundation
import Glibc
import Testing
import TestSupport

/// `--mqtt-version 3.1.1`: RabbitMQ 3.10, the clustered broker of `make bench-fleet-cluster`, drops the connection on an
/// MQTT 5 CONNECT instead of refusing it, so the bridge would take it for a dying broker and never fall back.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ProtocolVersionTests {
    @Test func mqtt311FromTheFirstConnectStillDeliversEveryEvent() throws {
        let broker = try MosquittoBroker()
        let daemon = try StationDaemon()
        let subscriber = try Subscriber(broker: broker)
        let status = try StatusRecorder()
        let bridge = try BridgeProcess(arguments: ["--socket", daemon.socketPath, "--url", broker.url, "--mqtt-version", "3.1.1",
                                                   "--credentials", broker.credentialsFile,
                                                   "--state-dir", try makeScratchDirectory("bridge-state")],
                                       notify: status.listener)
        try status.waitFor("\(broker.url) connected (MQTT 3.1.1)", timeout: .seconds(10))
        #expect(!bridge.log.contains("does not speak MQTT 5"), "\(bridge.log)")
        try daemon.scanForeignCodes(20, tag: "v311")
        try subscriber.waitForEvents(through: 40, timeout: .seconds(20))
        #expect(subscriber.distinctEvents == Set(UInt64(1)...40))
        bridge.stop()
    }

    @Test func anotherVersionIsRefusedWithTheTwoItTakes() throws {
        let refused = try runCommand(builtProduct("sealtrust-mqtt"), ["--url", "mqtt://broker.example", "--mqtt-version", "4"])
        #expect(refused.status == 2)
        #expect(refused.output.contains("--mqtt-version is 5 or 3.1.1"), "\(refused.output)")
    }
}
