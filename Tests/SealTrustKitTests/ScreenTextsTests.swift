import SealTrustKit
import Sentences
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

    /// A history kind the station does not know says its own words, which tell a buyer more than "Recorded in the
    /// product's history."; a kind with no words to show gets a sentence that says so.
    @Test func anUnknownHistoryKindSaysItsOwnWords() {
        #expect(ScreenTexts.english.historyText(kind: "repair_logged") == "Recorded in the product's history as \u{201C}repair logged\u{201D}.")
        #expect(ScreenTexts.french.historyText(kind: "repair_logged") == "Inscrit dans l'historique du produit comme \u{AB}\u{A0}repair logged\u{A0}\u{BB}.")
        #expect(ScreenTexts.english.historyText(kind: "minted") == "Registered by its brand.")
        for unnamed in ["", "___", "a\u{1B}[2J", String(repeating: "x", count: 61), "<b>bold</b>"] {
            #expect(ScreenTexts.english.historyText(kind: unnamed) == "Recorded in the product's history, of a kind this station cannot name.",
                    "\(unnamed.debugDescription)")
        }
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
