import Foundation
import Glibc
import JSONCore
import ScanJournal
import StationWire
import Testing
import VerdictSocket

@Suite(.serialized, .timeLimit(.minutes(1))) struct ProtocolTests {
    @Test func aNewClientIsGreetedAndReceivesEveryEventType() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.emit("source", [("id", "nfc"), ("state", "absent")])
        try daemon.start()
        let client = try TestClient(path: daemon.socketPath)
        let hello = try client.readLine()
        #expect(
            hello
                == #"{"type":"hello","protocol":1,"version":"0.1.0","station":"dock-3","sources":[{"id":"nfc:Virtual PCD 00 00","medium":"nfc","state":"ready"}],"last_seq":1}"#
        )
        for type in ["source", "scan", "read_error", "verdict"] {
            let event = try daemon.emit(type, [("detail", "é\"\n")])
            #expect(try client.readLine() == event.line)
        }
    }

    @Test func watchNarrowsTheStreamAndAnswersAckWithItsID() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let client = try TestClient(path: daemon.socketPath)
        try client.hello()
        client.send(#"{"cmd":"watch","events":["verdict"],"id":"w-1"}"# + "\n")
        #expect(try client.readLine() == #"{"type":"ack","id":"w-1"}"#)
        try daemon.emit("scan")
        let verdict = try daemon.emit("verdict", [("outcome", "replay")])
        #expect(try client.readLine() == verdict.line)
        client.send(#"{"id":7,"cmd":"watch","events":[]}"# + "\n")
        #expect(try client.readLine() == #"{"type":"ack","id":7}"#)
        try daemon.emit("verdict")
        try daemon.emit("source")
        #expect(client.staysSilent())
    }

    @Test func aClientsOwnVerifyAnswersComeWhateverItWatches() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let client = try TestClient(path: daemon.socketPath)
        let other = try TestClient(path: daemon.socketPath)
        try client.hello()
        try other.hello()
        client.send(#"{"cmd":"watch","events":[]}"# + "\n")
        _ = try client.readLine()
        other.send(#"{"cmd":"watch","events":["verdict"]}"# + "\n")
        _ = try other.readLine()
        let raw = "  https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E88&cmac=94EED9EE65337086 é\t"
        client.send(JSON.object([("cmd", "verify"), ("id", 12), ("raw", .string(raw))]).encoded() + "\n")
        let scan = try client.readJSON()
        let verdict = try client.readJSON()
        #expect(scan["type"] == "scan")
        #expect(scan["raw"] == .string(raw))
        #expect(scan["request_id"] == 12)
        #expect(verdict["type"] == "verdict")
        #expect(verdict["request_id"] == 12)
        #expect(verdict["scan_id"] == scan["scan_id"])
        let recorded = daemon.verifications.withLock { $0 }
        #expect(recorded.count == 1)
        #expect(recorded.first?.raw == raw)
        #expect(recorded.first?.requestID == 12)
        let othersVerdict = try other.readJSON()
        #expect(othersVerdict["type"] == "verdict")
        #expect(othersVerdict["scan_id"] == scan["scan_id"])
        #expect(other.staysSilent())
    }

    @Test func aPassportAnswerGoesToItsClientAloneEvenAfterItsEndOfFile() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let client = try TestClient(path: daemon.socketPath)
        let other = try TestClient(path: daemon.socketPath)
        try client.hello()
        try other.hello()
        client.send(#"{"cmd":"passport","id":9,"gtin":"03701234567890"}"# + "\n")
        #expect(shutdown(client.descriptor, Int32(SHUT_WR)) == 0)
        let answer = try client.readJSON()
        #expect(answer["type"] == "passport" && answer["id"] == 9)
        #expect(answer["asked"] == #"gtin("03701234567890")"#)
        #expect(client.isClosedByServer(), "answered in full, then closed")
        #expect(daemon.passportQueries.withLock { $0 } == [PassportQuery(subject: .gtin("03701234567890"))])
        #expect(other.staysSilent(), "never journaled, never sent to another client")
    }

    @Test func statusCarriesTheDaemonsFieldsAndTheClientCount() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let first = try TestClient(path: daemon.socketPath)
        let second = try TestClient(path: daemon.socketPath)
        try first.hello()
        try second.hello()
        first.send(#"{"cmd":"status","id":"s"}"# + "\n")
        let status = try first.readJSON()
        #expect(status.objectValue?.map(\.0) == ["type", "id", "version", "station", "uptime_s", "sources", "counters", "last_api_error", "token", "clients", "last_seq"])
        #expect(status["type"] == "status")
        #expect(status["id"] == "s")
        #expect(status["clients"] == 2)
        #expect(status["counters"]?["verdicts"]?["authentic"] == 2)
        #expect(daemon.server.clientCount == 2)
    }

    @Test(arguments: [
        ("not json at all", "bad_json", JSON.null),
        (#"[1,2]"#, "bad_json", JSON.null),
        (#"{"cmd":"watch","events":["verdict"],}"#, "bad_json", JSON.null),
        (#"{"cmd":"dance","id":"d"}"#, "unknown_cmd", JSON.string("d")),
        (#"{"id":3}"#, "unknown_cmd", JSON.int(3)),
        (#"{"cmd":"verify","id":4}"#, "bad_args", JSON.int(4)),
        (#"{"cmd":"verify","raw":42,"id":5}"#, "bad_args", JSON.int(5)),
        (#"{"cmd":"watch","events":["verdict","gossip"],"id":6}"#, "bad_args", JSON.int(6)),
        (#"{"cmd":"watch","events":"verdict","id":7}"#, "bad_args", JSON.int(7)),
        (#"{"cmd":"replay","since":-1,"id":8}"#, "bad_args", JSON.int(8)),
        (#"{"cmd":"replay","since":"5","id":9}"#, "bad_args", JSON.int(9)),
        (#"{"cmd":"replay","since":1.5,"id":10}"#, "bad_args", JSON.int(10)),
        (#"{"cmd":"replay","id":11}"#, "bad_args", JSON.int(11)),
    ])
    func aBadLineIsAnsweredWhileTheConnectionAndOtherClientsCarryOn(line: String, code: String, id: JSON) throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let client = try TestClient(path: daemon.socketPath)
        let bystander = try TestClient(path: daemon.socketPath)
        try client.hello()
        try bystander.hello()
        client.send(line + "\n")
        let error = try client.readJSON()
        #expect(error["type"] == "error")
        #expect(error["code"] == .string(code))
        #expect(error["id"] == id)
        #expect(error["detail"]?.stringValue?.isEmpty == false)
        client.send(#"{"cmd":"status","id":"after"}"# + "\n")
        #expect(try client.readJSON()["id"] == "after")
        #expect(bystander.staysSilent(for: 0.1))
        let event = try daemon.emit("verdict")
        #expect(try bystander.readLine() == event.line)
    }

    @Test func invalidUTF8IsBadJSON() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let client = try TestClient(path: daemon.socketPath)
        try client.hello()
        client.sendBytes(Array(#"{"cmd":"verify","raw":""#.utf8) + [0xC3, 0x28] + Array("\"}\n".utf8))
        #expect(try client.readJSON()["code"] == "bad_json")
        #expect(daemon.verifications.withLock { $0.isEmpty })
    }

    @Test func aLineOfExactlyTheLimitIsReadAndOneByteMoreDisconnects() throws {
        let daemon = try FakeDaemon()
        defer { daemon.tearDown() }
        try daemon.start()
        let bystander = try TestClient(path: daemon.socketPath)
        try bystander.hello()

        let atLimit = try TestClient(path: daemon.socketPath)
        try atLimit.hello()
        let prefix = #"{"cmd":"verify","id":1,"raw":""#
        let padding = String(repeating: "a", count: 65_536 - prefix.utf8.count - 2)
        atLimit.send(prefix + padding + "\"}\n")
        let scan = try atLimit.readJSON()
        #expect(scan["raw"]?.stringValue?.count == padding.count)
        // Its verdict is published to every subscriber: the clients below connect once it is out, so that the first
        // line each of them reads is its own answer.
        #expect(try atLimit.readJSON()["type"] == "verdict")

        let overLimit = try TestClient(path: daemon.socketPath)
        try overLimit.hello()
        overLimit.send(String(repeating: "b", count: 65_537))
        let error = try overLimit.readJSON()
        #expect(error["type"] == "error")
        #expect(error["code"] == "line_too_long")
        #expect(overLimit.isClosedByServer())

        let endless = try TestClient(path: daemon.socketPath)
        try endless.hello()
        endless.send(String(repeating: "c", count: 3_000_000))
        #expect(try endless.readJSON()["code"] == "line_too_long")
        #expect(endless.isClosedByServer())

        _ = try bystander.readJSON()
        _ = try bystander.readJSON()
        #expect(bystander.staysSilent(for: 0.1))
        let event = try daemon.emit("verdict")
        #expect(try bystander.readLine() == event.line)
        #expect(waitUntil { daemon.server.clientCount == 2 })
    }
}
