import JSONCore
import SealTrustKit
import StationWire

/// What a scanned string is, and what the daemon must do with it.
enum ScannedCode: Sendable {
    case chip(ChipProof)
    /// A `/c` link on a SealTrust host with no usable proof: `unreadable_link`, no call.
    case chipWithoutProof
    case printedSerial(PrintedSerial)
    case productReference(gtin: String)
    /// Another brand's code, a Wi-Fi QR, plain text: `not_sealtrust`, no call.
    case foreign

    /// The string goes to the parser exactly as read.
    init(raw: String, extraHosts: [String]) {
        switch ScanURL.read(raw, extraHosts: extraHosts) {
        case .chip(let proof): self = .chip(proof)
        case .printedSerial(let serial): self = .printedSerial(serial)
        case .productReference(let gtin): self = .productReference(gtin: gtin)
        case nil: self = ScanURL.isChipLinkWithoutProof(raw, extraHosts: extraHosts) ? .chipWithoutProof : .foreign
        }
    }

    /// A foreign code and a chip link without proof are answered without asking the API.
    var needsCall: Bool {
        switch self {
        case .chip, .printedSerial, .productReference: true
        case .chipWithoutProof, .foreign: false
        }
    }

    var kind: CodeKind {
        switch self {
        case .chip, .chipWithoutProof: .chip
        case .printedSerial: .printedSerial
        case .productReference: .productReference
        case .foreign: .foreign
        }
    }

    /// The `scan` event for this code, read from `source`.
    func event(scanID: String, source: String, medium: Medium, raw: String, requestID: JSON?) -> ScanEvent {
        var event = ScanEvent(scanID: scanID, source: source, medium: medium, raw: raw, code: kind, requestID: requestID)
        switch self {
        case .printedSerial(let printed):
            event.serial = printed.serial
            event.gtin = printed.gtin
        case .productReference(let gtin):
            event.gtin = gtin
        case .chip, .chipWithoutProof, .foreign:
            break
        }
        return event
    }
}
