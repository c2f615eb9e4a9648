import SealTrustKit
import Sentences
@testable import StationCore
import StationWire
import Testing
import TestSupport

/// Every sentence of the daemon's events has an id, and both languages are complete.
struct SentenceSetTests {
    @Test func everyIdOutsideTheKiosksIsOneOfTheDaemonsSentences() {
        let screen = Set(ScreenTexts.fieldsByID.keys)
        let messages = Set(NoVerdictTexts.fieldsByID.keys)
        #expect(screen.isDisjoint(with: messages))
        let daemon = SentenceID.allCases.filter { !$0.rawValue.hasPrefix("kiosk.") }
        #expect(screen.union(messages) == Set(daemon))
    }

    @Test func everySentenceIsOneIdsOwn() {
        let screen = SentenceFields(of: ScreenTexts.english, ids: ScreenTexts.fieldsByID.keys) { $0.replacing($1) }
        let messages = SentenceFields(of: NoVerdictTexts.english, ids: NoVerdictTexts.fieldsByID.keys) { $0.replacing($1) }
        for fields in [screen, messages] {
            #expect(fields.unreached.isEmpty, "sentences no texts file can replace: \(fields.unreached.sorted())")
            #expect(Set(fields.fieldByID.values.compactMap { $0 }).count == fields.fieldByID.count, "one field an id: \(fields.fieldByID)")
        }
    }

    @Test func bothLanguagesAreComplete() {
        for texts in [ScreenTexts.english, .french] {
            for (id, field) in ScreenTexts.fieldsByID { #expect(!texts[keyPath: field].isEmpty, "\(id)") }
        }
        for messages in [NoVerdictTexts.english, .french] {
            for (id, field) in NoVerdictTexts.fieldsByID { #expect(!messages[keyPath: field].isEmpty, "\(id)") }
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
