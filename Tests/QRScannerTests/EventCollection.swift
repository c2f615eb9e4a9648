import QRScanner

/// Everything a scanner reports until its stream ends, or until `until` says enough.
func collectEvents(_ scanner: QRScanner, until enough: ([QREvent]) -> Bool = { _ in false }) async -> [QREvent] {
    var events: [QREvent] = []
    for await event in scanner.events() {
        events.append(event)
        if enough(events) { break }
    }
    return events
}

extension [QREvent] {
    var codes: [String] {
        compactMap { if case .code(_, let payload) = $0 { payload } else { nil } }
    }

    var unreadable: [String] {
        compactMap { if case .unreadable(_, let detail) = $0 { detail } else { nil } }
    }

    var errors: [String] {
        compactMap { if case .sourceError(_, let detail) = $0 { detail } else { nil } }
    }

    var removals: [String] {
        compactMap { if case .sourceRemoved(_, let detail) = $0 { detail } else { nil } }
    }

    var readyDetails: [String] {
        compactMap { if case .sourceReady(_, let detail) = $0 { detail } else { nil } }
    }
}
