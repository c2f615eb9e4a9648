import JSONCore

/// `/passport` and `/certificate.svg` as documents, from what the daemon said of a scan's product.
enum ProductDocuments {
    /// The daemon's answer as it came, without the bridge's own command id; 404 when the daemon has no product. Under
    /// a theft report, only what the page needs to raise it (`warnings`): nothing of the product may look like a
    /// reassurance.
    static let passport: PassportDesk.Render = { reply in
        switch reply {
        case .success(.passport(let answer)) where raisesTheft(answer):
            let kept = (answer.objectValue ?? []).filter { ["verdict", "about", "warnings"].contains($0.0) }
            return json(200, .object(kept))
        case .success(.passport(let answer)):
            let members = (answer.objectValue ?? []).filter { $0.0 != "id" }
            return json(200, .object(members))
        case .success(.none):
            return json(404, .object([("error", "not_available"), ("detail", "the daemon has no product for this scan")]))
        case .failure(let unanswered):
            return failure(unanswered)
        }
    }

    /// The certificate's `pdf_url` as a QR code; 404 when the answer has none.
    static let certificateCode: PassportDesk.Render = { reply in
        switch reply {
        case .success(.passport(let answer)):
            guard !raisesTheft(answer), let url = answer["certificate"]?["pdf_url"]?.stringValue,
                  let svg = CertificateCode.svg(encoding: url) else {
                return json(404, .object([("error", "not_available"), ("detail", "no certificate to keep for this scan")]))
            }
            return DeferredAnswer.Document(status: 200, contentType: "image/svg+xml", body: Array(svg.utf8))
        case .success(.none):
            return json(404, .object([("error", "not_available"), ("detail", "the daemon has no product for this scan")]))
        case .failure(let unanswered):
            return failure(unanswered)
        }
    }

    /// The daemon's `warnings` name a theft report.
    static func raisesTheft(_ answer: JSON) -> Bool {
        (answer["warnings"]?.arrayValue ?? []).contains { $0["kind"] == .string("theft_reported") }
    }

    private static func failure(_ unanswered: PassportDesk.Unanswered) -> DeferredAnswer.Document {
        switch unanswered {
        case .daemonUnreachable: json(503, .object([("error", "daemon unreachable")]))
        case .tooManyQuestions: json(503, .object([("error", "too many questions to the daemon at once")]))
        case .timedOut: json(504, .object([("error", "the daemon did not answer in time")]))
        case .refused(let detail): json(502, .object([("error", "the daemon refused"), ("detail", .string(detail))]))
        }
    }

    static func json(_ status: Int, _ value: JSON) -> DeferredAnswer.Document {
        DeferredAnswer.Document(status: status, contentType: "application/json", body: Array((value.encoded() + "\n").utf8))
    }
}
