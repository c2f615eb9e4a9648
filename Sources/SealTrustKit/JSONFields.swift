import JSONCore

/// Typed reads of one JSON object's members, failing as the contract says: a
/// required member missing or of the wrong type is a decoding error, an
/// optional one absent or null is nil, and unknown members are ignored.
struct JSONFields {
    let members: [String: JSON]
    private let context: String

    init(_ value: JSON, context: String) throws {
        guard case .object(let members) = value else {
            throw SealTrustError.decoding("\(context): expected a JSON object")
        }
        // A repeated member reads as its first occurrence, as `JSON`'s subscript does.
        self.members = Dictionary(members, uniquingKeysWith: { first, _ in first })
        self.context = context
    }

    func string(_ name: String) throws -> String {
        guard let value = try optionalString(name) else { throw missing(name) }
        return value
    }

    func optionalString(_ name: String) throws -> String? {
        switch members[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw wrongType(name, "a string")
        }
    }

    /// A string no rule reads, only shown: nil when absent or of another type, so that an odd field never hides
    /// the rest of its answer (a numeric `chain` must not lose `modified_after_anchoring`).
    func stringIfAny(_ name: String) -> String? {
        guard case .string(let value)? = members[name] else { return nil }
        return value
    }

    /// An object read as `stringIfAny` reads a string.
    func objectIfAny(_ name: String) -> JSONFields? {
        guard let value = members[name], case .object = value else { return nil }
        return try? JSONFields(value, context: "\(context).\(name)")
    }

    func optionalBool(_ name: String) throws -> Bool? {
        switch members[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw wrongType(name, "true or false")
        }
    }

    func optionalObject(_ name: String) throws -> JSONFields? {
        switch members[name] {
        case nil, .null?: return nil
        case let value?:
            guard case .object = value else { throw wrongType(name, "an object") }
            return try JSONFields(value, context: "\(context).\(name)")
        }
    }

    func array(_ name: String) throws -> [JSON] {
        switch members[name] {
        case nil, .null?: throw missing(name)
        case .array(let elements)?: return elements
        default: throw wrongType(name, "an array")
        }
    }

    private func missing(_ name: String) -> SealTrustError {
        .decoding("\(context): required field \"\(name)\" is missing")
    }

    private func wrongType(_ name: String, _ expected: String) -> SealTrustError {
        .decoding("\(context): field \"\(name)\" should be \(expected)")
    }
}
