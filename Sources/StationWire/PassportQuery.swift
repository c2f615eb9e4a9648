import JSONCore

/// What a `passport` command asks: which product, at which tier, and which of its four reads.
public struct PassportQuery: Sendable, Hashable {
    public enum Subject: Sendable, Hashable {
        /// The product of that scan's verdict, which the daemon remembers.
        case scan(id: String)
        /// An item, by its passport identifier.
        case identifier(String)
        /// A model, by its reference's GTIN: never an object, so no certificate and no history.
        case gtin(String)
    }

    public var subject: Subject
    /// Nil: the daemon's own `--tier`.
    public var tier: AccessTier?
    public var parts: Set<PassportPart>

    public init(subject: Subject, tier: AccessTier? = nil, parts: Set<PassportPart> = Set(PassportPart.allCases)) {
        self.subject = subject
        self.tier = tier
        self.parts = parts
    }

    /// Lengths a station never sees in a real scan: the command is refused rather than sent on.
    public static let maxScanIDBytes = 128
    public static let maxIdentifierBytes = 512

    /// The command's members after `cmd` (and `id`).
    var members: [(String, JSON)] {
        var members: [(String, JSON)]
        switch subject {
        case .scan(let id): members = [("scan_id", .string(id))]
        case .identifier(let identifier): members = [("identifier", .string(identifier))]
        case .gtin(let gtin): members = [("gtin", .string(gtin))]
        }
        if let tier { members.append(("tier", .string(tier.rawValue))) }
        if parts != Set(PassportPart.allCases) {
            members.append(("parts", .array(PassportPart.allCases.filter(parts.contains).map { .string($0.rawValue) })))
        }
        return members
    }

    /// The query of a `passport` line, or why it is refused (`bad_args`).
    static func read(_ message: JSON, id: JSON) throws(ClientCommand.Refusal) -> PassportQuery {
        func refuse(_ detail: String) -> ClientCommand.Refusal { ClientCommand.Refusal(id: id, code: .badArgs, detail: detail) }
        let given = [("scan_id", message["scan_id"]), ("identifier", message["identifier"]), ("gtin", message["gtin"])]
            .filter { $0.1 != nil }
        guard given.count == 1, let (name, value) = given.first, let text = value?.stringValue else {
            throw refuse("passport needs exactly one of \"scan_id\", \"identifier\" or \"gtin\", a string")
        }
        let subject: Subject
        switch name {
        case "scan_id":
            guard !text.isEmpty, text.utf8.count <= maxScanIDBytes else {
                throw refuse("scan_id is 1 to \(maxScanIDBytes) bytes")
            }
            subject = .scan(id: text)
        case "identifier":
            guard !text.isEmpty, text.utf8.count <= maxIdentifierBytes,
                  !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw refuse("identifier is 1 to \(maxIdentifierBytes) bytes, with no control character")
            }
            subject = .identifier(text)
        default:
            guard [8, 12, 13, 14].contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw refuse("gtin is 8, 12, 13 or 14 digits")
            }
            // GTIN-8, -12 and -13 (what a barcode prints under it) are the GTIN-14 with leading zeros, which the API
            // knows a model by.
            subject = .gtin(String(repeating: "0", count: 14 - text.utf8.count) + text)
        }
        var tier: AccessTier?
        if let value = message["tier"], value != .null {
            guard let parsed = value.stringValue.flatMap(AccessTier.init(rawValue:)) else {
                let names = AccessTier.allCases.map(\.rawValue).joined(separator: ", ")
                throw refuse("tier is one of \(names)")
            }
            if case .gtin = subject { throw refuse("a gtin reads a model's passport, which has no tier") }
            tier = parsed
        }
        var parts = Set(PassportPart.allCases)
        if let value = message["parts"], value != .null {
            guard let items = value.arrayValue, !items.isEmpty else {
                throw refuse("parts is a non-empty list drawn from passport, proof, certificate and history")
            }
            parts = []
            for item in items {
                guard let part = item.stringValue.flatMap(PassportPart.init(rawValue:)) else {
                    throw refuse("parts are drawn from passport, proof, certificate and history; got \(item.encoded())")
                }
                parts.insert(part)
            }
        }
        return PassportQuery(subject: subject, tier: tier, parts: parts)
    }
}

/// The four public reads a `passport` answer gathers.
public enum PassportPart: String, Sendable, Hashable, CaseIterable {
    case passport, proof, certificate, history
}
