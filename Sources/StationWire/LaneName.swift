/// A lane's name (daemon.md, `lane`): it goes into every event of its sources, a kiosk page's address (`/?lane=`) and
/// a terminal's lines, so it is short and plain: 1 to 32 ASCII letters, digits, `.`, `_` or `-`.
public enum LaneName {
    public static let longest = 32
    /// The rule, in words for a refusal.
    public static let rule = "1 to \(longest) letters, digits, '.', '_' or '-'"

    public static func isValid(_ text: String) -> Bool {
        (1...longest).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "._-".utf8.contains(byte)
        }
    }
}
