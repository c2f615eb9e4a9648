import Sentences

/// The sentences of what the API's answers carry: the seal as its brand's policy shows it, and the anchoring state.
/// Here rather than in Sentences, which the kiosk links and which knows nothing of the API's types.
extension ScreenTexts {
    /// Nil when there is nothing to show, which is never shown as a broken seal.
    public func sealText(for seal: SealDisplay?) -> String? {
        guard let seal else { return nil }
        switch seal.status {
        case .intact: return sealIntact
        case .opened: return seal.isDegraded ? sealOpenedDegraded : sealOpened
        }
    }

    public func anchoringText(for state: AnchoringState) -> String {
        switch state {
        case .anchored: anchored
        case .neverAnchored: neverAnchored
        case .modifiedAfterAnchoring: modifiedAfterAnchoring
        case .none: noAnchoringInformation
        }
    }
}
