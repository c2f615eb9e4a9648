import FoundationEssentials
import JSONCore
@testable import SealTrustKit
@testable import StationCore
import StationWire
import Testing

/// A product's answer of any shape: bounded by bytes kept, always a line a client accepts, and never losing a
/// warning to a bound.
struct PassportBoundsTests {
    static let product = ProductContext(query: .item(identifier: "0x42"))

    func answer(_ reads: PassportReads) -> JSON {
        .object(PassportAnswer.fields(of: Self.product, requestedTier: .public, reads: reads.bounded(), texts: .english,
                                      publicBase: URL(string: "https://api.sealtrust.io")!))
    }

    /// Issue 42's history: 16,000 events (about 1 MB, under the API's cap), with a theft report as old as can be.
    @Test func aLongHistoryIsTheNewestFiftyAndStillRaisesItsTheft() {
        var events = (0..<15_999).map { index in
            HistoryEvent(kind: "authentication_scan", at: Date(timeIntervalSince1970: 1_760_000_000 - Double(index)),
                         fields: ["at": "2025-10-09T09:00:00Z", "city": "Lyon"])
        }
        events.append(HistoryEvent(kind: "theft_reported", at: Date(timeIntervalSince1970: 1_600_000_000), fields: [:]))
        var reads = PassportReads()
        reads.history = .success(events)
        let answer = answer(reads)
        #expect(answer["history"]?.arrayValue?.count == PassportBounds.historyEntries)
        #expect(answer["history_truncated"] == .int(Int64(16_000 - PassportBounds.historyEntries)))
        #expect(answer["warnings"]?.arrayValue?.first?["kind"] == "theft_reported", "a bound never hides a theft report")
        let line = ServerAnswer.passport(id: 1, answer.objectValue ?? []).encoded()
        #expect(line.utf8.count < ServerLine.longestBytes / 8, "\(line.utf8.count) bytes")
    }

    /// Issue 42's zeros: a passport field of 520,000 zeros is left out, counted; the rest stays; the cache counts a
    /// few kilobytes for it, not the megabytes its parse took.
    @Test func aHugeFieldIsLeftOutAndCounted() {
        let zeros = JSON.array(Array(repeating: .int(0), count: 520_000))
        let huge = String(repeating: "é", count: 300_000)
        var reads = PassportReads()
        reads.passport = .success(Passport(identifier: "0x42", accessTier: "public", productName: huge, brand: "B", gtin: nil,
                                           fields: ["zeros": zeros, "model": "C42", "identifier": "0x42"]))
        let bounded = reads.bounded()
        #expect(bounded.keptBytes < 8 * 1024, "\(bounded.keptBytes)")
        let answer = answer(reads)
        #expect(answer["fields"]?["zeros"] == nil && answer["fields"]?["model"] == "C42" && answer["fields_left_out"] == 1)
        let name = answer["product_name"]?.stringValue ?? ""
        #expect(name.utf8.count <= PassportBounds.textBytes && name.utf8.count > PassportBounds.textBytes - 2 && name.allSatisfy { $0 == "é" },
                "cut on a character's boundary")
    }

    @Test func theCacheIsBoundedByBytes() {
        var cache = PassportCache()
        let start = ContinuousClock.now
        var reads = PassportReads()
        let field = JSON.string(String(repeating: "x", count: 7_000))
        reads.passport = .success(Passport(identifier: "0x42", accessTier: nil, productName: nil, brand: nil, gtin: nil,
                                           fields: Dictionary(uniqueKeysWithValues: (0..<9).map { ("f\($0)", field) })))
        let kept = reads.bounded()
        for index in 0..<PassportCache.capacity {
            cache.keep(kept, for: PassportCache.Key(product: .item(identifier: "0x\(index)"), tier: .public, parts: []), at: start)
        }
        let held = (0..<PassportCache.capacity).filter {
            cache.reads(for: PassportCache.Key(product: .item(identifier: "0x\($0)"), tier: .public, parts: []), at: start) != nil
        }
        #expect(held.count * kept.keptBytes <= PassportCache.byteLimit && held.count < PassportCache.capacity, "\(held.count)")
        #expect(held.contains(PassportCache.capacity - 1), "the newest is kept")
    }
}
