import JSONCore

/// The `passport` answer, one fact a line (`name: value`), the screen's sentence of each part after its facts.
enum PassportFormatter {
    static func lines(for answer: JSON) -> [String] {
        var lines: [String] = []
        func fact(_ name: String, _ value: JSON?) {
            if let value { lines.append("\(name): \(StatusFormatter.plain(value))") }
        }
        func sentence(_ name: String, of part: JSON?) {
            if let message = part?["message"]?.stringValue { lines.append("\(name): \"\(message)\"") }
        }
        /// A part that failed: its outcome, the error's detail, and its sentence.
        func failure(_ name: String, _ part: JSON) -> Bool {
            guard let outcome = part["outcome"]?.stringValue else { return false }
            var text = outcome
            if let wait = part["retry_after_s"]?.integerValue { text += ", retry after \(wait) s" }
            if let detail = part["error"]?["detail"]?.stringValue { text += " (\(detail))" }
            lines.append("\(name): \(text)")
            sentence(name, of: part)
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
            for (name, value) in answer["fields"]?.objectValue ?? [] { fact("field \(name)", value) }
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
            fact("certificate", certificate["status"])
            fact("certificate issued", certificate["issued_at"])
            fact("certificate pdf", certificate["pdf_url"])
            sentence("certificate", of: certificate)
        }
        if let history = answer["history"] {
            if let events = history.arrayValue {
                for event in events {
                    let when = event["at"].map(StatusFormatter.plain) ?? "?"
                    let kind = event["kind"].map(StatusFormatter.plain) ?? "?"
                    let message = event["message"]?.stringValue.map { " \"\($0)\"" } ?? ""
                    lines.append("history: \(when) \(kind)\(message)")
                }
                if events.isEmpty { lines.append("history: none") }
            } else {
                _ = failure("history", history)
            }
        }
        if answer["outcome"] == nil { sentence("message", of: answer) }
        return lines
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
