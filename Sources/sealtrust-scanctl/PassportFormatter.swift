import JSONCore

/// The `passport` answer, one fact a line (`name: value`), each fact once and in words: a part's sentence is its line
/// (its status is in it), the passport's fields leave out what the lines above said, field names are written as
/// words, and the API's times are the station's.
enum PassportFormatter {
    static func lines(for answer: JSON) -> [String] {
        var lines: [String] = []
        func fact(_ name: String, _ value: JSON?) {
            if let value { lines.append("\(name): \(StatusFormatter.plain(value))") }
        }
        func time(_ name: String, _ value: JSON?) {
            if let text = value?.stringValue { lines.append("\(name): \(StationTime.local(text))") } else { fact(name, value) }
        }
        func sentence(_ name: String, of part: JSON?) {
            if let message = part?["message"]?.stringValue { lines.append("\(name): \"\(message)\"") }
        }
        /// A part that failed, in one line: its sentence, then its outcome, the wait and the error's detail.
        func failure(_ name: String, _ part: JSON) -> Bool {
            guard let outcome = part["outcome"]?.stringValue else { return false }
            var why = words(outcome)
            if let wait = part["retry_after_s"]?.integerValue { why += ", retry after \(wait) s" }
            if let detail = part["error"]?["detail"]?.stringValue { why += ": \(detail)" }
            let said = part["message"]?.stringValue.map { "\"\($0)\" " } ?? ""
            lines.append("\(name): \(said)(\(why))")
            return true
        }
        // What the station raised comes first, most serious first: a theft report, a certificate not valid, ...
        for warning in answer["warnings"]?.arrayValue ?? [] {
            let kind = warning["kind"].map(StatusFormatter.plain) ?? "?"
            lines.append("warning: \(kind): \"\(warning["message"]?.stringValue ?? "")\"")
        }
        if let about = answer["about"]?.stringValue {
            lines.append("about: " + (Self.about[about] ?? StatusFormatter.plain(.string(about))))
        }
        fact("verdict", answer["verdict"])
        fact("identifier", answer["identifier"])
        fact("product", answer["product_name"])
        fact("brand", answer["brand"])
        fact("gtin", answer["gtin"])
        if let served = answer["access_tier"] {
            let asked = answer["requested_tier"].map { " (asked \(StatusFormatter.plain($0)))" } ?? ""
            lines.append("tier served: \(StatusFormatter.plain(served))\(asked)")
        }
        if !failure("passport", answer) {
            for (name, value) in answer["fields"]?.objectValue ?? [] where !Self.saidAbove.contains(name) {
                let written = words(name)
                fact(Self.ownNames.contains(written) ? "field \(written)" : written, value)
            }
        }
        if let proof = answer["proof"], !failure("proof", proof) {
            if let state = proof["anchoring"]?.stringValue {
                lines.append("anchoring: " + (Self.anchoring[state] ?? StatusFormatter.plain(.string(state))))
            }
            for (key, name) in [("chain", "chain"), ("tx_hash", "anchoring transaction"), ("data_hash", "data hash"),
                                ("ipfs_uri", "ipfs"), ("credential", "credential")] {
                fact(name, proof[key])
            }
            sentence("proof", of: proof)
        }
        if let certificate = answer["certificate"], !failure("certificate", certificate) {
            // Its sentence says its status; the status alone when there is none.
            if certificate["message"]?.stringValue != nil { sentence("certificate", of: certificate) } else { fact("certificate", certificate["status"]) }
            time("certificate issued", certificate["issued_at"])
            fact("certificate pdf", certificate["pdf_url"])
        }
        if let history = answer["history"] {
            if let events = history.arrayValue {
                for event in events {
                    let when = event["at"]?.stringValue.map(StationTime.local) ?? "?"
                    // The sentence names the kind in words; the kind itself when there is none.
                    let said = event["message"]?.stringValue.map { "\"\($0)\"" } ?? event["kind"].map(StatusFormatter.plain) ?? "?"
                    lines.append("history: \(when) \(said)")
                }
                if events.isEmpty { lines.append("history: none") }
            } else {
                _ = failure("history", history)
            }
        }
        if answer["outcome"] == nil { sentence("message", of: answer) }
        return lines
    }

    /// The passport's fields that the lines above give already.
    static let saidAbove: Set<String> = ["identifier", "product_name", "brand", "gtin", "access_tier"]

    /// The names of this formatter's own lines: a field so named is printed as `field NAME`.
    static let ownNames: Set<String> = [
        "warning", "about", "verdict", "identifier", "product", "brand", "gtin", "tier served", "passport", "anchoring",
        "chain", "anchoring transaction", "data hash", "ipfs", "credential", "proof", "certificate", "certificate issued",
        "certificate pdf", "history", "message",
    ]

    /// A name from the API (`country_of_manufacture`) in words.
    static func words(_ name: String) -> String {
        name.split(separator: "_", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// Whose record the answer is, in words: a printed code's is never read as proof about the object in hand.
    static let about = [
        "object": "the object in hand (its chip was read and found authentic)",
        "named_item": "the item the code names, not proof about the object in hand",
        "model": "the model, not an object",
    ]

    /// The anchoring states in words: `none` is no information, never "not anchored".
    static let anchoring = [
        "anchored": "anchored on Base",
        "never_anchored": "never anchored (normal: most products are not)",
        "modified_after_anchoring": "MODIFIED after anchoring",
        "none": "no information",
    ]
}
