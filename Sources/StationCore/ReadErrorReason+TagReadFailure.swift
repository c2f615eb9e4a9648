import NFCReader
import StationWire

extension ReadErrorReason {
    /// The protocol's reason for a tag that gave no URI.
    init(_ failure: TagReadFailure) {
        self = switch failure {
        case .noNDEFApplication: .noNDEFApplication
        case .emptyNDEF: .emptyNDEF
        case .noURIRecord: .noURIRecord
        case .malformedNDEF: .malformedNDEF
        case .lengthBeyondFile: .lengthBeyondFile
        case .statusWord: .statusWord
        case .removedDuringRead: .removedDuringRead
        case .io: .io
        }
    }
}
