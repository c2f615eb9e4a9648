import SealTrustKit
import StationWire
import Testing

@Suite("Screen texts: complete in English and French, overridable one by one")
struct ScreenTextsTests {
    private static let sets = [("english", ScreenTexts.english), ("french", ScreenTexts.french)]

    private static func everyText(_ texts: ScreenTexts) -> [String] {
        Outcome.allCases.map(texts.message(for:))
            + [texts.sealIntact, texts.sealOpened, texts.sealOpenedDegraded, texts.theftWarning]
            + AnchoringState.allCases.map(texts.anchoringText(for:))
            + [texts.productReferenceNotice]
    }

    @Test func everyVerdictHasItsOwnSentenceInBothLanguages() {
        for (language, texts) in Self.sets {
            let all = Self.everyText(texts)
            #expect(all.allSatisfy { !$0.trimmingCharacters(in: .whitespaces).isEmpty }, "\(language)")
            #expect(Set(all).count == all.count, "\(language): two screens say the same thing")
        }
        for verdict in Outcome.allCases {
            #expect(ScreenTexts.english.message(for: verdict) != ScreenTexts.french.message(for: verdict), "\(verdict)")
        }
    }

    @Test func sentencesSayWhatTheSeedAsks() {
        let english = ScreenTexts.english
        #expect(english.authentic == "Authentic product.")
        #expect(english.replay.contains("copied"))
        #expect(english.neverRegistered.contains("nothing to correct"))
        #expect(english.tooManyCalls(wait: 600).hasSuffix("in 10 minutes."), "the wait said as it is")
        #expect(english.failure.contains("no authenticity verdict"))
        #expect(english.sealOpened.contains("not mean a counterfeit"))
        #expect(english.sealOpenedDegraded.contains("not mean a counterfeit"))
        let french = ScreenTexts.french
        #expect(french.authentic == "Produit authentique.")
        #expect(french.notSealTrust == "Ce code n'est pas un code SealTrust.")
        #expect(french.failure.contains("aucun verdict d'authenticité"))
    }

    @Test func noInformationNeverReadsAsBrokenOrNotAnchored() {
        for (language, texts) in Self.sets {
            #expect(texts.sealText(for: nil) == nil, "\(language)")
            let none = texts.anchoringText(for: .none)
            #expect(none != texts.anchoringText(for: .neverAnchored), "\(language)")
            #expect(none != texts.anchoringText(for: .modifiedAfterAnchoring), "\(language)")
        }
        #expect(!ScreenTexts.english.noAnchoringInformation.lowercased().contains("not anchored"))
        #expect(!ScreenTexts.english.noAnchoringInformation.lowercased().contains("never"))
        #expect(!ScreenTexts.french.noAnchoringInformation.lowercased().contains("jamais"))
    }

    @Test func sealTextFollowsThePolicy() {
        let texts = ScreenTexts.english
        #expect(texts.sealText(for: SealDisplay(status: .intact, policy: .inform)) == texts.sealIntact)
        #expect(texts.sealText(for: SealDisplay(status: .opened, policy: .inform)) == texts.sealOpened)
        #expect(texts.sealText(for: SealDisplay(status: .opened, policy: .degrade)) == texts.sealOpenedDegraded)
    }

    @Test func oneFieldCanBeReplacedAlone() {
        var texts = ScreenTexts.french
        texts.replay = "Attention, copie possible."
        #expect(texts.message(for: .replay) == "Attention, copie possible.")
        for verdict in Outcome.allCases where verdict != .replay {
            #expect(texts.message(for: verdict) == ScreenTexts.french.message(for: verdict))
        }
    }
}
