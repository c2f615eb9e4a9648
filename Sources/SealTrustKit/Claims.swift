/// The answer to a ticket request. No ticket is a normal answer; `detail` says why.
public struct ClaimTicketResponse: Sendable, Hashable {
    public let ticket: ClaimTicket?
    public let detail: String?

    /// The machine code of `detail` (`ALREADY_CLAIMED`, `PURCHASE_CODE_REQUIRED`, ...).
    public var code: String? { detail.flatMap(MachineCode.init(detail:))?.code }
}

/// A claim ticket. Its nonce proves someone read the label: keep it in memory,
/// never log it, never store it; so no description of a ticket shows it.
public struct ClaimTicket: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let id: String
    public let nonce: String
    /// RFC 3339, as the server wrote it.
    public let expiresAt: String

    public init(id: String, nonce: String, expiresAt: String) {
        self.id = id
        self.nonce = nonce
        self.expiresAt = expiresAt
    }

    public var description: String { "ClaimTicket(id: \(id), expiresAt: \(expiresAt))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["id": id, "expiresAt": expiresAt]) }
}

/// The transfer was broadcast; `txHash` names a pending operation.
public struct ClaimCompletion: Sendable, Hashable {
    public let txHash: String?
    public let state: String?
}

/// A ticket's state, an open string (`issued`, `consumed`, `expired`, `canceled`, or anything else).
public struct ClaimState: Sendable, Hashable {
    public let id: String?
    public let state: String
}
