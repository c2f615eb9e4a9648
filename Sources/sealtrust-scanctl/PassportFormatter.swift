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
            fact("anchoring", proof["anchoring"])
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
}
