import JSONCore
import StationWire
import Testing

@Suite struct WireTests {
    @Test func aScanEventKeepsTheProtocolsFieldOrderAndTheRawStringAsItIs() {
        let raw = "https://sealtrust.io/p/SN-1?x=é\u{1}"
        let event = ScanEvent(scanID: "s", source: "y4m:/f", medium: .qr, raw: raw, code: .printedSerial, serial: "SN-1",
                              requestID: "r")
        #expect(event.fields.map(\.0) == ["scan_id", "source", "medium", "raw", "code", "proves", "serial", "request_id"])
        #expect(JSON.object(event.fields)["raw"] == .string(raw))
        #expect(JSON.object(event.fields)["proves"] == "identity")
        #expect(ScanEvent(scanID: "s", source: "m", medium: .manual, raw: "x", code: .foreign).fields.map(\.0)
            == ["scan_id", "source", "medium", "raw", "code"])
    }

    @Test func aVerdictWritesOnlyWhatIsKnownAndEndsWithItsLatency() {
        var verdict = VerdictEvent(scanID: "s", source: "nfc:R", medium: .nfc, outcome: .failure, message: "m",
                                   latencyMilliseconds: 7)
        verdict.error = APIErrorReport(kind: .transport, cause: .tls, detail: "TLS: certificate has expired")
        #expect(JSON.object(verdict.fields).encoded()
            == #"{"scan_id":"s","source":"nfc:R","medium":"nfc","outcome":"failure","error":{"kind":"transport","cause":"tls","detail":"TLS: certificate has expired"},"message":"m","latency_ms":7}"#)
    }

    @Test func commandsReadBackAsTheyWereWritten() throws {
        let commands = [
            ClientCommand(id: "a", action: .watch([.verdict, .source])), ClientCommand(action: .watch([])),
            ClientCommand(id: 5, action: .verify(raw: "https://x/c?a=\"b\"")), ClientCommand(action: .status),
            ClientCommand(id: "r", action: .replay(since: 1037)),
            ClientCommand(id: 7, action: .passport(PassportQuery(subject: .scan(id: "s-1041")))),
            ClientCommand(id: 8, action: .passport(PassportQuery(subject: .identifier("0x01"), tier: .repairer, parts: [.history, .proof]))),
            ClientCommand(action: .passport(PassportQuery(subject: .gtin("03701234567890"), parts: [.passport]))),
        ]
        for command in commands {
            #expect(try ClientCommand.read(Array(command.json.encoded().utf8)) == command)
        }
        #expect(ClientCommand(id: "a", action: .watch([.verdict, .source])).json.encoded()
            == #"{"cmd":"watch","id":"a","events":["source","verdict"]}"#)
    }

    @Test func aPassportCommandWritesTheProtocolsFields() {
        #expect(ClientCommand(id: 8, action: .passport(PassportQuery(subject: .identifier("0x01"), tier: .endUser, parts: [.history, .proof])))
            .json.encoded() == #"{"cmd":"passport","id":8,"identifier":"0x01","tier":"end_user","parts":["proof","history"]}"#)
        #expect(ClientCommand(action: .passport(PassportQuery(subject: .scan(id: "s-1")))).json.encoded()
            == #"{"cmd":"passport","scan_id":"s-1"}"#, "every part is the default")
    }

    @Test(arguments: ["1.8e19", "1e300", "9223372036854775808", "18446744073709551616"])
    func aReplaySinceBeyondAnySeqReadsBackTheSameFromItsPrint(since: String) throws {
        let command = try ClientCommand.read(Array(#"{"cmd":"replay","since":\#(since)}"#.utf8))
        #expect(command.action == .replay(since: UInt64(Int64.max)))
        #expect(try ClientCommand.read(Array(command.json.encoded().utf8)) == command)
    }

    @Test(arguments: [
        (#"{"cmd":"watch","events":["nope"]}"#, ErrorCode.badArgs), (#"{"cmd":"fly"}"#, .unknownCommand),
        ("{", .badJSON), (#"{"cmd":"replay","since":-1}"#, .badArgs), (#"{"cmd":"verify"}"#, .badArgs),
        (#"[1]"#, .badJSON), (#"{"cmd":"status","id":[1]}"#, .badArgs), (#"{"cmd":"status","id":1e400}"#, .badArgs),
        (#"{"cmd":"passport"}"#, .badArgs), (#"{"cmd":"passport","scan_id":"s","gtin":"03701234567890"}"#, .badArgs),
        (#"{"cmd":"passport","scan_id":""}"#, .badArgs), (#"{"cmd":"passport","scan_id":7}"#, .badArgs),
        (#"{"cmd":"passport","gtin":"0370123456789X"}"#, .badArgs), (#"{"cmd":"passport","gtin":"123"}"#, .badArgs),
        (#"{"cmd":"passport","identifier":"0x1\u001b[2J"}"#, .badArgs), (#"{"cmd":"passport","identifier":"0x1","tier":"owner"}"#, .badArgs),
        (#"{"cmd":"passport","gtin":"03701234567890","tier":"public"}"#, .badArgs),
        (#"{"cmd":"passport","identifier":"0x1","parts":[]}"#, .badArgs), (#"{"cmd":"passport","identifier":"0x1","parts":["price"]}"#, .badArgs),
        ("{\"cmd\":\"passport\",\"scan_id\":\"\(String(repeating: "s", count: 129))\"}", .badArgs),
    ])
    func aBadCommandIsRefusedWithTheProtocolsCode(_ line: String, _ code: ErrorCode) {
        #expect(throws: ClientCommand.Refusal.self) { try ClientCommand.read(Array(line.utf8)) }
        do {
            _ = try ClientCommand.read(Array(line.utf8))
        } catch {
            #expect(error.code == code)
        }
    }

    @Test func everyStatusCounterOutcomeIsAProtocolWord() {
        #expect(Outcome.allCases.map(\.rawValue) == [
            "authentic", "replay", "invalid_signature", "minting_in_progress", "never_registered", "unreadable_link",
            "too_many_calls", "failure", "identified", "not_found", "not_sealtrust", "deferred",
        ])
    }

    /// A client routes on a line's type, and a bridge passes on one added to the protocol later under its own name.
    @Test func everyLineTheServerWritesHasItsTypeAndAnUnknownTypeKeepsItsName() {
        #expect(MessageType(of: ServerAnswer.hello([])) == .hello)
        #expect(MessageType(of: ServerAnswer.ack(id: "a", replayed: 3)) == .ack)
        #expect(MessageType(of: ServerAnswer.status(id: "s", [])) == .status)
        #expect(MessageType(of: ServerAnswer.error(.badArgs, "d", id: .null)) == .error)
        for type in EventType.allCases {
            #expect(MessageType(name: type.rawValue) == .event(type) && MessageType.event(type).name == type.rawValue)
        }
        #expect(MessageType(of: ServerAnswer.passport(id: 7, [])) == .passport)
        #expect(MessageType(name: "claim") == .unknown("claim") && MessageType(name: "claim").name == "claim")
        #expect(MessageType(of: .object([("type", 1)])) == nil && MessageType(of: .object([])) == nil)
    }
}
