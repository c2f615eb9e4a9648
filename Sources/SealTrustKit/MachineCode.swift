/// The machine code an API detail starts with: an upper-case word holding at
/// least one `_` (`MINT_PENDING: ...`), ending at the end or at a character
/// that is not a letter, digit or `_`. `ERROR: x`, `Mint_Pending` and free
/// sentences have none.
public struct MachineCode: Sendable, Hashable {
    public let code: String

    public init?(detail: String) {
        let scalars = detail.unicodeScalars
        guard let first = scalars.first, ("A"..."Z").contains(first) else { return nil }
        let word = scalars.prefix { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
        guard word.contains("_") else { return nil }
        if let next = scalars.dropFirst(word.count).first,
           next.properties.isAlphabetic || next.properties.numericType != nil {
            return nil
        }
        code = String(String.UnicodeScalarView(word))
    }
}
