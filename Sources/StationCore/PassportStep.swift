import JSONCore
import StationWire

/// What a `passport` command needs: its answer now, or reads of the API first.
enum PassportStep: Sendable {
    case answer(JSON)
    case read(PassportRead)
}

/// The reads one `passport` command makes, and how their answer is told.
struct PassportRead: Sendable {
    let product: ProductContext
    let tier: AccessTier
    let parts: Set<PassportPart>
    let requestID: JSON
    let settings: StationSettings

    var key: PassportCache.Key { PassportCache.Key(product: product.subject, tier: tier, parts: parts) }

    func answer(_ reads: PassportReads) -> JSON {
        ServerAnswer.passport(id: requestID, PassportAnswer.fields(
            of: product, requestedTier: tier, reads: reads, texts: settings.texts,
            publicBase: settings.options.publicAPIBase ?? settings.options.apiBase))
    }
}
