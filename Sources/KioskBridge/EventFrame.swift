/// Server-Sent Events framing of what the bridge sends.
public enum EventFrame {
    /// A journaled event: its seq as the id, its type as the event name, its JSON line as the data.
    /// `line` holds no line break (the daemon's JSON Lines); the type is kept to the protocol's letters.
    public static func journaled(seq: UInt64, type: String, line: String) -> [UInt8] {
        let name = !type.isEmpty && type.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || $0 == "_" } ? type : "message"
        return Array("id: \(seq)\nevent: \(name)\ndata: \(withoutLineBreaks(line))\n\n".utf8)
    }

    /// Whether the daemon answers, as the page shows it, the page's language, and the digest of the page served in
    /// it (`KioskPages`; nil: none said): not journaled, so it carries no id.
    public static func station(online: Bool, language: KioskLanguage, page: String? = nil) -> [UInt8] {
        let version = page.map { ",\"page\":\"\($0)\"" } ?? ""
        return Array("event: station\ndata: {\"state\":\"\(online ? "online" : "offline")\",\"lang\":\"\(language.rawValue)\"\(version)}\n\n".utf8)
    }

    /// How long the event that follows has left on the screen, for a page that opens while it is shown.
    public static func hold(remaining: Duration) -> [UInt8] {
        let milliseconds = max(0, remaining.components.seconds * 1_000 + remaining.components.attoseconds / 1_000_000_000_000_000)
        return Array("event: hold\ndata: {\"remaining_ms\":\(milliseconds)}\n\n".utf8)
    }

    /// The first bytes of a stream: how soon a browser comes back after losing the bridge.
    public static let opening = Array("retry: 1000\n\n".utf8)

    /// A comment, so that proxies keep an idle stream open.
    public static let keepAlive = Array(": keep-alive\n\n".utf8)

    /// A line break inside `data:` would start a new field: JSON allows CR and LF only as white space between
    /// tokens, where a space means the same.
    static func withoutLineBreaks(_ line: String) -> String {
        guard line.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return line }
        return String(decoding: line.utf8.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }, as: UTF8.self)
    }
}
