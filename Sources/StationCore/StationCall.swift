import JSONCore
import SealTrustKit
import StationWire
import VerdictSocket

/// A scan whose verdict needs the API, with the settings it was taken under.
struct StationCall: Sendable {
    let scanID: String
    let code: ScannedCode
    let read: ScanRead
    let requestID: JSON?
    let requester: ClientID?
    let settings: StationSettings
}
