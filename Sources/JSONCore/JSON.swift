/// Ordered JSON for journal events and protocol lines.
///
/// Objects keep their keys in the order they were built, so an event reads
/// `type`, `seq`, `at` first wherever it is printed.
public indirect enum JSON: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    /// The value of the first `key` of an object; nil for other values.
    public subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value as a whole number, when it is one (`5` and `5.0` alike).
    public var integerValue: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9.2e18: return Int64(value)
        default: return nil
        }
    }

    public var arrayValue: [JSON]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var objectValue: [(String, JSON)]? {
        if case .object(let members) = self { return members }
        return nil
    }
}

extension JSON: Equatable {
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}

extension JSON: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(1); hasher.combine(value)
        case .int(let value): hasher.combine(2); hasher.combine(value)
        case .double(let value): hasher.combine(3); hasher.combine(value)
        case .string(let value): hasher.combine(4); hasher.combine(value)
        case .array(let items): hasher.combine(5); hasher.combine(items)
        case .object(let members):
            hasher.combine(6)
            for (key, value) in members {
                hasher.combine(key)
                hasher.combine(value)
            }
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}
