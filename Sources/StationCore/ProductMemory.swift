import StationWire

/// The product a verdict named: an item (by its passport identifier) or a model (by its reference's GTIN).
enum ProductSubject: Sendable, Hashable {
    case item(identifier: String)
    case model(gtin: String)
}

/// Whose record a `passport` answer is (socket-protocol.md, `about`): what the evidence behind the question proves.
enum PassportAbout: String, Sendable {
    /// A chip's `authentic`: the object in hand was there.
    case object
    /// A printed code or a query by identifier: the record of the item named, nothing about the object in hand.
    case namedItem = "named_item"
    /// A product reference: a model, never an object.
    case model
}

/// What the station knows of a product before reading it: which product, whose record it is, and the verdict that
/// named it (nil for a query by identifier or GTIN).
struct ProductContext: Sendable, Hashable {
    let subject: ProductSubject
    let about: PassportAbout
    let verdict: Outcome?
    /// The verdict's own theft flag: a theft report is raised whatever the passport says.
    let theftReported: Bool

    /// The product a verdict named, and what that verdict proves; nil when it names none.
    init?(verdict: VerdictEvent, code: ScannedCode?) {
        if case .productReference(let gtin) = code {
            guard verdict.outcome == .identified else { return nil }
            self.init(subject: .model(gtin: gtin), about: .model, verdict: verdict.outcome, theftReported: false)
            return
        }
        guard let identifier = verdict.identifier else { return nil }
        // Only a chip's `authentic` puts the object in hand there; any other verdict names the item, no more.
        let about: PassportAbout = verdict.outcome == .authentic && code?.kind == .chip ? .object : .namedItem
        self.init(subject: .item(identifier: identifier), about: about, verdict: verdict.outcome,
                  theftReported: verdict.theftReported == true)
    }

    /// A query that names its product itself: no verdict stands behind it.
    init(query subject: ProductSubject) {
        switch subject {
        case .item: self.init(subject: subject, about: .namedItem, verdict: nil, theftReported: false)
        case .model: self.init(subject: subject, about: .model, verdict: nil, theftReported: false)
        }
    }

    private init(subject: ProductSubject, about: PassportAbout, verdict: Outcome?, theftReported: Bool) {
        self.subject = subject
        self.about = about
        self.verdict = verdict
        self.theftReported = theftReported
    }
}

/// The product of each of the last `capacity` verdicts that named one, by `scan_id`: what a `passport` command about
/// a scan reads. Older scans are forgotten in the order they came.
struct ProductMemory: Sendable {
    static let capacity = 1_024

    private var products: [String: ProductContext] = [:]
    /// Scan ids, oldest first, as a ring over `capacity` slots.
    private var order: [String] = []
    private var oldest = 0

    mutating func remember(_ product: ProductContext, ofScan scanID: String) {
        guard products.updateValue(product, forKey: scanID) == nil else { return }
        if order.count < Self.capacity {
            order.append(scanID)
        } else {
            products[order[oldest]] = nil
            order[oldest] = scanID
            oldest = (oldest + 1) % Self.capacity
        }
    }

    func product(ofScan scanID: String) -> ProductContext? {
        products[scanID]
    }
}
