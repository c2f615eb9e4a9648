import DaemonConfiguration
import Foundation
import Testing
import TestSupport

/// A brand may reword the station's sentences, never invert them (sealtrust-texts(5)): each inversion stops the start,
/// `--check-config` and a reload with one line naming the language and the id.
@Suite struct TextsGuardTests {
    func refusal(of texts: String) throws -> String? {
        let directory = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/texts.json"
        try texts.write(toFile: path, atomically: true, encoding: .utf8)
        return problem(["--texts", path])
    }

    @Test func anAlertThatReadsAsAnotherSentenceIsRefusedByItsID() throws {
        let cases: [(String, String)] = [
            (#"{"en": {"replay": "Authentic product."}}"#, "en.replay"),
            (#"{"fr": {"theft_warning": "Produit authentique."}}"#, "fr.theft_warning"),
            (#"{"en": {"certificate_revoked": "Certificate of authenticity: valid."}}"#, "en.certificate_revoked"),
            (#"{"en": {"no_anchoring_information": "Not anchored."}}"#, "en.no_anchoring_information"),
            (#"{"fr": {"no_anchoring_information": "Jamais ancré sur Base."}}"#, "fr.no_anchoring_information"),
            (#"{"en": {"authentic": " \u200b\u00a0 "}}"#, "en.authentic"),
            (#"{"en": {"invalid_signature": "\u2060"}}"#, "en.invalid_signature"),
        ]
        for (texts, id) in cases {
            let message = try #require(try refusal(of: texts), "\(texts) was accepted")
            #expect(message.contains(id), "\(message)")
        }
        #expect(try refusal(of: #"{"en": {"replay": "Careful: this chip reading was seen before. The label may be a copy."}}"#) == nil,
                "a rewording that stays an alert")
        #expect(try refusal(of: #"{"en": {"authentic": "Genuine."}}"#) == nil)
    }
}
