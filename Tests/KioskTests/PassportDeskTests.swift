import JSONCore
@testable import KioskBridge
import StationWire
import Synchronization
import Testing

/// The bridge's product questions without a browser or a daemon: one question a scan, answers routed by id.
struct PassportDeskTests {
    final class Clock: Sendable {
        let instant = Mutex(ContinuousClock.now)
        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }

    final class Sent: Sendable {
        let commands = Mutex<[ClientCommand]>([])
        func withLock<Result>(_ body: (inout [ClientCommand]) -> Result) -> Result { commands.withLock { body(&$0) } }
    }

    /// A desk whose commands are recorded instead of sent.
    static func desk(clock: Clock = Clock()) -> (PassportDesk, Sent) {
        let desk = PassportDesk(now: { clock.instant.withLock { $0 } })
        let sent = Sent()
        desk.connected { command in sent.withLock { $0.append(command) }; return true }
        return (desk, sent)
    }

    /// What a request got: at once, or given to its deferred answer since.
    static func document(_ answer: HTTPAnswer) -> DeferredAnswer.Document? {
        switch answer {
        case .document(let status, let contentType, let body): DeferredAnswer.Document(status: status, contentType: contentType, body: body)
        case .deferred(let deferred): deferred.document
        case .eventStream: nil
        }
    }

    static let pdfURL = "https://api.sealtrust.io/v1/certificate/0x42.pdf"

    static func answer(to command: ClientCommand) -> JSON {
        ServerAnswer.passport(id: command.id, [("identifier", "0x42"), ("certificate", .object([("status", "valid"), ("pdf_url", .string(pdfURL))]))])
    }

    @Test func twoRequestsForOneScanAskOnceAndBothGetTheAnswer() throws {
        let (desk, sent) = Self.desk()
        desk.prefetch(scanID: "s-1")
        let page = desk.answer(scanID: "s-1", render: ProductDocuments.passport)
        let code = desk.answer(scanID: "s-1", render: ProductDocuments.certificateCode)
        let commands = sent.withLock { $0 }
        #expect(commands == [ClientCommand(id: .int(1), action: .passport(PassportQuery(subject: .scan(id: "s-1"))))])
        #expect(Self.document(page) == nil, "waiting for the daemon")
        #expect(desk.received(Self.answer(to: commands[0])))
        let json = try #require(Self.document(page))
        #expect(json.status == 200 && json.contentType == "application/json")
        let parsed = try JSON.parse(utf8: json.body)
        #expect(parsed["identifier"] == "0x42" && parsed["id"] == nil, "the bridge's own id is not passed on")
        let svg = try #require(Self.document(code))
        #expect(svg.status == 200 && svg.contentType == "image/svg+xml" && svg.body.starts(with: Array("<svg".utf8)))
        #expect(Self.document(desk.answer(scanID: "s-1", render: ProductDocuments.passport))?.status == 200, "kept")
        #expect(sent.withLock { $0.count } == 1)
        #expect(!desk.received(ServerAnswer.status(id: "kiosk-status", [])), "not the desk's")
    }

    @Test func answersGoToTheirOwnQuestionWhateverTheirOrder() throws {
        let (desk, sent) = Self.desk()
        let first = desk.answer(scanID: "s-a", render: ProductDocuments.passport)
        let second = desk.answer(scanID: "s-b", render: ProductDocuments.passport)
        let commands = sent.withLock { $0 }
        #expect(commands.map(\.id) == [.int(1), .int(2)])
        desk.received(ServerAnswer.passport(id: commands[1].id, [("identifier", "0xb")]))
        #expect(Self.document(first) == nil, "s-a's answer has not come")
        desk.received(ServerAnswer.error(.notAvailable, "not remembered", id: commands[0].id))
        #expect(try JSON.parse(utf8: try #require(Self.document(second)).body)["identifier"] == "0xb")
        #expect(Self.document(first)?.status == 404)
        #expect(desk.received(ServerAnswer.passport(id: .int(99), [])), "a number is the desk's, even an answer it no longer waits for")
    }

    @Test func atMostThirtyTwoQuestionsAreOutAtOnce() {
        let clock = Clock()
        let (desk, sent) = Self.desk(clock: clock)
        let waiting = (1...PassportDesk.pendingLimit).map { desk.answer(scanID: "s-\($0)", render: ProductDocuments.passport) }
        let refused = desk.answer(scanID: "s-one-more", render: ProductDocuments.certificateCode)
        #expect(Self.document(refused)?.status == 503, "refused at once, not queued")
        #expect(sent.withLock { $0.count } == PassportDesk.pendingLimit)
        #expect(waiting.allSatisfy { Self.document($0) == nil })
        clock.advance(.seconds(9))
        desk.expire()
        #expect(waiting.allSatisfy { Self.document($0)?.status == 504 })
        #expect(Self.document(desk.answer(scanID: "s-one-more", render: ProductDocuments.passport)) == nil, "asked once room was made")
        #expect(sent.withLock { $0.count } == PassportDesk.pendingLimit + 1)
    }

    @Test func aScanTheDaemonDoesNotKnowIs404AndKept() {
        let (desk, sent) = Self.desk()
        let page = desk.answer(scanID: "s-2", render: ProductDocuments.passport)
        let command = sent.withLock { $0[0] }
        desk.received(ServerAnswer.error(.notAvailable, "not remembered", id: command.id))
        #expect(Self.document(page)?.status == 404)
        #expect(Self.document(desk.answer(scanID: "s-2", render: ProductDocuments.certificateCode))?.status == 404)
        #expect(sent.withLock { $0.count } == 1)
    }

    @Test func noDaemonNoAnswerInTimeAndACertificateNotIssued() {
        let clock = Clock()
        let (desk, sent) = Self.desk(clock: clock)
        let late = desk.answer(scanID: "s-3", render: ProductDocuments.passport)
        clock.advance(.seconds(9))
        desk.expire()
        #expect(Self.document(late)?.status == 504)

        let lost = desk.answer(scanID: "s-4", render: ProductDocuments.passport)
        desk.disconnected()
        #expect(Self.document(lost)?.status == 503)
        #expect(Self.document(desk.answer(scanID: "s-5", render: ProductDocuments.passport))?.status == 503, "asked nothing while away")

        let (other, otherSent) = Self.desk()
        let code = other.answer(scanID: "s-6", render: ProductDocuments.certificateCode)
        let command = otherSent.withLock { $0[0] }
        other.received(ServerAnswer.passport(id: command.id, [("certificate", .object([("outcome", "not_found"), ("message", "none")]))]))
        #expect(Self.document(code)?.status == 404)
        #expect(sent.withLock { $0.count } == 2)
    }

    @Test(arguments: ["", "a b", "../x", String(repeating: "a", count: 129), "s%2F1", "é"])
    func aScanIDThatIsNotOneIsRefused(scanID: String) {
        #expect(!KioskRoutes.isScanID(scanID))
    }

    @Test func theVerdictsThatShowAProduct() {
        #expect(PassportDesk.showsProduct(.object([("outcome", "authentic"), ("theft_reported", false)])))
        #expect(PassportDesk.showsProduct(.object([("outcome", "identified")])))
        #expect(!PassportDesk.showsProduct(.object([("outcome", "authentic"), ("theft_reported", true)])))
        #expect(!PassportDesk.showsProduct(.object([("outcome", "authentic")])), "no word on theft is no all-clear")
        for outcome in ["replay", "invalid_signature", "not_found", "failure", "not_sealtrust"] {
            #expect(!PassportDesk.showsProduct(.object([("outcome", .string(outcome))])))
        }
    }
}
