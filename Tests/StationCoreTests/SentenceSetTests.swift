import SealTrustKit
@testable import StationCore
import StationWire
import Testing

/// Every sentence of the daemon's events has an id, and both languages are complete.
struct SentenceSetTests {
    @Test func everyIdOutsideTheKiosksIsOneOfTheDaemonsSentences() {
        let screen = Set(ScreenTexts.fieldsByID.keys)
        let messages = Set(StationMessages.fieldsByID.keys)
        #expect(screen.isDisjoint(with: messages))
        let daemon = SentenceID.allCases.filter { !$0.rawValue.hasPrefix("kiosk.") }
        #expect(screen.union(messages) == Set(daemon))
        #expect(ScreenTexts.fieldsByID.count + StationMessages.fieldsByID.count == 42, "every field of both sets has an id")
    }

    @Test func bothLanguagesAreComplete() {
        for texts in [ScreenTexts.english, .french] {
            for (id, field) in ScreenTexts.fieldsByID { #expect(!texts[keyPath: field].isEmpty, "\(id)") }
        }
        for messages in [StationMessages.english, .french] {
            for (id, field) in StationMessages.fieldsByID { #expect(!messages[keyPath: field].isEmpty, "\(id)") }
        }
        for (id, field) in ScreenTexts.fieldsByID {
            #expect(ScreenTexts.english[keyPath: field] != ScreenTexts.french[keyPath: field], "\(id) is translated")
        }
    }

    @Test func aReplacedSentenceReplacesThatOneOnly() {
        let texts = ScreenTexts.english.replacing([.notSealTrust: "Not ours.", .kioskIdle: "ignored here"])
        #expect(texts.notSealTrust == "Not ours.")
        #expect(texts.authentic == ScreenTexts.english.authentic)
    }
}
