import ScanJournal
import SealTrustKit

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

    var code: String {
        switch self {
        case .chip, .chipWithoutProof: "chip"
        case .printedSerial: "printed_serial"
        case .productReference: "product_reference"
        case .foreign: "foreign"
        }
    }

    var proves: String? {
        switch self {
        case .chip, .chipWithoutProof: "presence"
        case .printedSerial: "identity"
        case .productReference: "model"
        case .foreign: nil
        }
    }

    /// The `scan` event's fields after `raw`: code, proves, serial and gtin when the form has them.
    var eventFields: [(String, JSON)] {
        var fields: [(String, JSON)] = [("code", .string(code))]
        if let proves { fields.append(("proves", .string(proves))) }
        switch self {
        case .printedSerial(let printed):
            fields.append(("serial", .string(printed.serial)))
            if let gtin = printed.gtin { fields.append(("gtin", .string(gtin))) }
        case .productReference(let gtin):
            fields.append(("gtin", .string(gtin)))
        case .chip, .chipWithoutProof, .foreign:
            break
        }
        return fields
    }
}
