/// The product a verdict named: an item (by its passport identifier) or a model (by its reference's GTIN).
enum ProductSubject: Sendable, Hashable {
    case item(identifier: String)
    case model(gtin: String)
}

/// The product of each of the last `capacity` verdicts that named one, by `scan_id`: what a `passport` command about
/// a scan reads. Older scans are forgotten in the order they came.
struct ProductMemory: Sendable {
    static let capacity = 1_024

    private var products: [String: ProductSubject] = [:]
    /// Scan ids, oldest first, as a ring over `capacity` slots.
    private var order: [String] = []
    private var oldest = 0

    mutating func remember(_ product: ProductSubject, ofScan scanID: String) {
        guard products.updateValue(product, forKey: scanID) == nil else { return }
        if order.count < Self.capacity {
            order.append(scanID)
        } else {
            products[order[oldest]] = nil
            order[oldest] = scanID
            oldest = (oldest + 1) % Self.capacity
        }
    }

    func product(ofScan scanID: String) -> ProductSubject? {
        products[scanID]
    }
}
