import HandheldScanner
import StationWire

extension ReadErrorReason {
    /// The wire's reason for a handheld scanner's failed read.
    init(_ reason: ScannerReadFailure.Reason) {
        switch reason {
        case .incomplete: self = .incomplete
        case .unmappedKey: self = .unmappedKey
        case .tooLong: self = .tooLong
        case .invalidUTF8: self = .invalidUTF8
        }
    }
}
