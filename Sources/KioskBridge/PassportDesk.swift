import JSONCore
import StationWire
import Synchronization

/// The bridge's questions to the daemon about products (`/passport`, `/certificate.svg`): one `passport` command per
/// scan, asked as soon as a verdict that shows a product arrives, its answer kept for the page's requests.
///
/// A request that comes before the answer waits (its connection suspended) until the daemon answers, the daemon is
/// lost, or `patience` runs out. At most `pendingLimit` questions are out at once.
public final class PassportDesk: Sendable {
    /// What the daemon said about one scan's product.
    enum Reply: Sendable {
        /// The `passport` answer's line.
        case passport(JSON)
        /// `error` `not_available`: the daemon does not remember the scan, or its verdict names no product.
        case none
    }

    /// Renders a reply (or its absence: nil, with the status to give) as the document one request asked for.
    typealias Render = @Sendable (Result<Reply, Unanswered>) -> DeferredAnswer.Document

    enum Unanswered: Error {
        case daemonUnreachable, tooManyQuestions, timedOut, refused(String)
    }

    private struct Question {
        let scanID: String
        let askedAt: ContinuousClock.Instant
        var waiting: [(DeferredAnswer, Render)] = []
    }

    private struct State {
        var send: (@Sendable (ClientCommand) -> Bool)?
        var nextID: Int64 = 1
        /// By the command's id: a number, where the bridge's other commands have strings.
        var questions: [Int64: Question] = [:]
        /// By scan id, newest last, each until it is asked again.
        var replies: [(scanID: String, reply: Reply, until: ContinuousClock.Instant)] = []
        /// The scans whose verdict shows no product (an alert, a theft report, a verdict that names none), newest
        /// last: their product is never served, whatever the daemon would answer.
        var withheld: [String] = []
    }

    static let pendingLimit = 32
    static let keptReplies = 32
    /// As many scans as the daemon remembers products of.
    static let withheldLimit = 1_024
    /// Longer than the daemon's four reads on a slow network, shorter than a request's deadline (10 s).
    static let patience = Duration.seconds(8)
    /// The daemon itself answers the same question from memory for a minute.
    static let replyLifetime = Duration.seconds(60)

    private let state = Mutex(State())
    private let now: @Sendable () -> ContinuousClock.Instant

    public init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.now = now
    }

    /// The daemon is reachable through `send` (false: the command could not be written).
    func connected(send: @escaping @Sendable (ClientCommand) -> Bool) {
        state.withLock { $0.send = send }
    }

    /// The daemon is gone: every question out is answered 503, and no answer to it will come.
    func disconnected() {
        let orphans = state.withLock { state in
            state.send = nil
            defer { state.questions = [:] }
            return Array(state.questions.values)
        }
        for question in orphans { answer(question, with: .failure(.daemonUnreachable)) }
    }

    /// The verdicts under which the page shows the product: `authentic` without a theft report, and `identified`.
    /// Never under an alert: nothing on the screen may then look like a reassurance.
    static func showsProduct(_ verdict: JSON) -> Bool {
        switch verdict["outcome"]?.stringValue {
        case "authentic": verdict["theft_reported"] == .bool(false)
        case "identified": true
        default: false
        }
    }

    /// A verdict the bridge passed on: under one that shows a product and is `shown` on the screen now, the product
    /// is asked at once, so that the page's request finds the answer ready; under any other, it is never served.
    func verdict(_ verdict: JSON, ofScan scanID: String, shown: Bool) {
        guard Self.showsProduct(verdict) else {
            state.withLock { state in
                state.withheld.append(scanID)
                if state.withheld.count > Self.withheldLimit { state.withheld.removeFirst() }
            }
            return
        }
        if shown { prefetch(scanID: scanID) }
    }

    /// Asks now, so that the page's request finds the answer ready.
    func prefetch(scanID: String) {
        _ = ask(scanID: scanID, waiter: nil)
    }

    /// The answer for `scanID`, at once when it is known, else once the daemon answers; 404 for a scan under an
    /// alert (outputs.md, "What leaves the machine").
    func answer(scanID: String, render: @escaping Render) -> HTTPAnswer {
        if state.withLock({ $0.withheld.contains(scanID) }) {
            let document = render(.success(.none))
            return .document(status: document.status, contentType: document.contentType, body: document.body)
        }
        let deferred = DeferredAnswer()
        if let known = ask(scanID: scanID, waiter: (deferred, render)) {
            let document = render(known)
            return .document(status: document.status, contentType: document.contentType, body: document.body)
        }
        return .deferred(deferred)
    }

    /// A known reply or a refusal now; nil when the waiter (if any) waits for the daemon.
    private func ask(scanID: String, waiter: (DeferredAnswer, Render)?) -> Result<Reply, Unanswered>? {
        let instant = now()
        let (known, command, send): (Result<Reply, Unanswered>?, ClientCommand?, (@Sendable (ClientCommand) -> Bool)?) = state.withLock { state in
            state.replies.removeAll { instant >= $0.until }
            if let kept = state.replies.last(where: { $0.scanID == scanID }) { return (.success(kept.reply), nil, nil) }
            if let id = state.questions.first(where: { $0.value.scanID == scanID })?.key {
                if let waiter { state.questions[id]?.waiting.append(waiter) }
                return (nil, nil, nil)
            }
            guard let send = state.send else { return (.failure(.daemonUnreachable), nil, nil) }
            guard state.questions.count < Self.pendingLimit else { return (.failure(.tooManyQuestions), nil, nil) }
            let id = state.nextID
            state.nextID += 1
            state.questions[id] = Question(scanID: scanID, askedAt: instant, waiting: waiter.map { [$0] } ?? [])
            let command = ClientCommand(id: .int(id), action: .passport(PassportQuery(subject: .scan(id: scanID))))
            return (nil, command, send)
        }
        if let command, let send, !send(command) {
            disconnected()
            return nil
        }
        return known
    }

    /// A daemon's line that answers one of the desk's questions; false when it is not one.
    @discardableResult
    func received(_ message: JSON) -> Bool {
        guard case .int(let number) = message["id"] else { return false }
        let reply: Result<Reply, Unanswered>
        switch MessageType(of: message) {
        case .passport: reply = .success(.passport(message))
        case .error where message["code"] == .string(ErrorCode.notAvailable.rawValue): reply = .success(.none)
        default: reply = .failure(.refused(message["detail"]?.stringValue ?? "the daemon refused"))
        }
        let instant = now()
        let question: Question? = state.withLock { state in
            guard let question = state.questions.removeValue(forKey: number) else { return nil }
            if case .success(let kept) = reply, let lifetime = Self.lifetime(of: kept) {
                state.replies.append((question.scanID, kept, instant + lifetime))
                if state.replies.count > Self.keptReplies { state.replies.removeFirst() }
            }
            return question
        }
        if let question { answer(question, with: reply) }
        return true
    }

    /// How long a reply answers the page's requests; nil: not kept. A passport the daemon could not read for now (too
    /// many calls, a failure) is asked again by the next request; one with parts the API refused for a while is kept
    /// only until the shortest wait is over, when the page asks again (the daemon keeps no incomplete answer).
    static func lifetime(of reply: Reply) -> Duration? {
        guard case .passport(let answer) = reply else { return replyLifetime }
        if let outcome = answer["outcome"]?.stringValue, outcome != "not_found" && outcome != "not_authorized" { return nil }
        let waits = ["proof", "certificate", "history"].compactMap { part -> Int64? in
            guard answer[part]?["outcome"] == .string("too_many_calls") else { return nil }
            return answer[part]?["retry_after_s"]?.integerValue ?? 0
        }
        guard let shortest = waits.min() else { return replyLifetime }
        return .seconds(min(max(shortest, 0), 60))
    }

    /// Answers 504 to the questions the daemon has not answered within `patience`.
    func expire() {
        let instant = now()
        let overdue = state.withLock { state in
            let ids = state.questions.filter { instant - $0.value.askedAt > Self.patience }.map(\.key)
            return ids.compactMap { state.questions.removeValue(forKey: $0) }
        }
        for question in overdue { answer(question, with: .failure(.timedOut)) }
    }

    private func answer(_ question: Question, with reply: Result<Reply, Unanswered>) {
        for (deferred, render) in question.waiting { deferred.give(render(reply)) }
    }
}
