import JSONCore

/// The bridge's answer on `<prefix>/<station>/replay/answer`, one for each request, never silence: what it
/// republished, what the journal's retention had already removed (`gone`), or why it refused the request.
struct ReplayAnswer: Equatable, Sendable {
    var first: UInt64
    var last: UInt64?
    /// Events republished on their event topics, byte for byte as the first time.
    var sent = 0
    /// Seqs the journal no longer holds: retention removed them, nobody can send them again.
    var gone: ClosedRange<UInt64>?
    var refusal: String?

    init(for request: ReplayRequest) {
        first = request.first
        last = request.toNewest ? nil : request.last
    }

    static func refused(_ reason: String) -> ReplayAnswer {
        var answer = ReplayAnswer(for: ReplayRequest(first: 0, last: 0))
        answer.refusal = reason
        return answer
    }

    var payload: String {
        if let refusal { return JSON.object([("error", .string(refusal))]).encoded() }
        var members: [(String, JSON)] = [("from", .int(Int64(clamping: first)))]
        if let last { members.append(("to", .int(Int64(clamping: last)))) }
        members.append(("sent", .int(Int64(sent))))
        if let gone {
            members.append(("gone", .object([("from", .int(Int64(clamping: gone.lowerBound))), ("to", .int(Int64(clamping: gone.upperBound)))])))
        }
        return JSON.object(members).encoded()
    }
}
