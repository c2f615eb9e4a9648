import Glibc
import JSONCore
import Logging

/// One readable line per event, for people watching a terminal (`sealtrust-scanctl watch`, `sealtrust-mqtt watch`).
///
/// Every control character of the outside text in the line is written as an escape (`\x1b`), so an event cannot
/// move the cursor, ring the bell or forge a second line. A `verdict` names no source; the formatter remembers each `scan`'s source
/// by `scan_id` so the verdict line can say where it came from.
public struct EventFormatter {
    private var sourceOfScan: [String: String] = [:]
    private var scanOrder: [String] = []

    public init() {}

    /// An alert a person must not miss: a copied label (`replay`), a forged one (`invalid_signature`), a theft report.
    public static func isAlert(_ message: JSON) -> Bool {
        guard MessageType(of: message) == .event(.verdict) else { return false }
        let outcome = message["outcome"]?.stringValue.flatMap(Outcome.init(rawValue:))
        return outcome == .replay || outcome == .invalidSignature || message["theft_reported"] == .bool(true)
    }

    /// The line for one message of the daemon; nil for a message a person need not see (`ack`).
    public mutating func line(for message: JSON) -> String? {
        unescapedLine(for: message).map(TerminalText.escaped)
    }

    private mutating func unescapedLine(for message: JSON) -> String? {
        guard let type = MessageType(of: message) else { return nil }
        switch type {
        case .hello:
            var parts = ["connected to", text(message["station"]) ?? "a station"]
            if let version = text(message["version"]) { parts.append("(sealtrust-scand \(version))") }
            if let lastSeq = text(message["last_seq"]) { parts.append("last seq \(lastSeq)") }
            return parts.joined(separator: " ")
        case .ack:
            return nil
        case .event(.source):
            return event(message, type.name, [
                text(message["id"]), text(message["state"]), text(message["detail"]),
            ])
        case .event(.scan):
            let source = text(message["source"])
            if let scanID = text(message["scan_id"]), let source { remember(source, for: scanID) }
            return event(message, type.name, [source, text(message["code"]), text(message["raw"])])
        case .event(.readError):
            return event(message, type.name, [
                text(message["source"]), text(message["reason"]), text(message["detail"]),
            ])
        case .event(.verdict):
            return event(message, type.name, verdictParts(message))
        case .error:
            return "error \(text(message["code"]) ?? "?"): \(text(message["detail"]) ?? "")"
        case .status, .passport, .unknown:
            return event(message, type.name, [message.encoded()])
        }
    }

    private mutating func verdictParts(_ message: JSON) -> [String?] {
        let scanID = text(message["scan_id"])
        let source = text(message["source"]) ?? scanID.flatMap { sourceOfScan.removeValue(forKey: $0) }
        let product = [text(message["product_name"]), text(message["brand"])].compactMap { $0 }
        var parts: [String?] = [source, text(message["outcome"]) ?? "?"]
        parts.append(product.isEmpty ? text(message["identifier"]) : product.joined(separator: " — "))
        if let seal = message["seal"], let status = text(seal["status"]) {
            let policy = text(seal["policy"]).map { $0 == "inform" ? "" : " (\($0))" } ?? ""
            parts.append("seal: \(status)\(policy)")
        }
        if message["theft_reported"] == .bool(true) { parts.append("THEFT REPORTED") }
        // What the station's screen says: the operator reads the same sentence as the buyer.
        parts.append(text(message["message"]).map { "\"\($0)\"" })
        if let retry = text(message["retry_after_s"]) { parts.append("retry after \(retry) s") }
        if let error = message["error"] {
            let detail = text(error["detail"])
            // The API's detail usually begins with its code ("REPLAY_DETECTED: ..."): the code is shown once.
            let code = text(error["code"]).flatMap { code in detail?.hasPrefix(code) == true ? nil : code }
            let details = [text(error["kind"]), text(error["http_status"]), code].compactMap { $0 }
            parts.append("error: \(details.joined(separator: " "))\(detail.map { ": \($0)" } ?? "")")
        }
        return parts
    }

    private mutating func remember(_ source: String, for scanID: String) {
        sourceOfScan[scanID] = source
        scanOrder.append(scanID)
        if scanOrder.count > 1_000 {
            sourceOfScan[scanOrder.removeFirst()] = nil
        }
    }

    private func event(_ message: JSON, _ type: String, _ parts: [String?]) -> String {
        let time = text(message["at"]).map(EventFormatter.localTime) ?? "--:--:--.---"
        let seq = text(message["seq"]).map { "#\($0)" } ?? "#-"
        let rest = parts.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "  ")
        let lane = text(message["lane"]).map { " [\($0)]" } ?? ""
        return "\(time) \(seq) \(type)\(lane) \(rest)"
    }

    private func text(_ value: JSON?) -> String? {
        switch value {
        case .string(let text)?: return text
        case .int(let number)?: return String(number)
        // A whole number prints without ".0"; one beyond Int64 (1e300 from a foreign peer) as the Double it is.
        case .double(let number)?: return Int64(exactly: number).map { String($0) } ?? String(number)
        case .bool(let flag)?: return String(flag)
        default: return nil
        }
    }

    /// `2026-11-30T12:03:44.120Z` as the station's local `12:03:44.120`; the text as is when it is not RFC 3339.
    public static func localTime(_ timestamp: String) -> String {
        guard let milliseconds = EventTime.milliseconds(timestamp) else { return timestamp }
        var seconds = time_t(milliseconds / 1_000)
        var local = tm()
        localtime_r(&seconds, &local)
        let fraction = Int32(milliseconds % 1_000)
        return two(local.tm_hour) + ":" + two(local.tm_min) + ":" + two(local.tm_sec) + "."
            + (fraction < 100 ? "0" : "") + two(fraction)
    }

    private static func two(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
