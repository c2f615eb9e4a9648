import JSONCore
import StationWire

/// The sources the station has seen and their last state, for `hello`, `status` and the systemd status line.
struct SourceRegistry: Sendable {
    private(set) var all: [SourceEvent] = []
    /// Each source's last scan, as RFC 3339 text.
    private var lastScans: [String: String] = [:]

    mutating func scanned(by id: String, at time: String) {
        lastScans[id] = time
    }

    /// Records a state; false when nothing changed, so that repeated reports are not journaled again.
    mutating func update(_ entry: SourceEvent) -> Bool {
        if let index = all.firstIndex(where: { $0.id == entry.id }) {
            guard all[index] != entry else { return false }
            all[index] = entry
        } else {
            all.append(entry)
        }
        return true
    }

    /// Drops a placeholder (`nfc`, `camera`) once a real device stands for it.
    mutating func forget(id: String) {
        all.removeAll { $0.id == id }
    }

    var json: JSON {
        .array(all.map { entry in .object(Self.fields(of: entry)) })
    }

    /// A source's id, medium, lane (when it has one) and state.
    private static func fields(of entry: SourceEvent) -> [(String, JSON)] {
        var fields: [(String, JSON)] = [("id", .string(entry.id)), ("medium", .string(entry.medium.rawValue))]
        if let lane = entry.lane { fields.append(("lane", .string(lane))) }
        fields.append(("state", .string(entry.state.rawValue)))
        return fields
    }

    /// For `status`: each source with `last_scan_at` once it has scanned.
    var statusJSON: JSON {
        .array(all.map { entry in
            var fields = Self.fields(of: entry)
            if let last = lastScans[entry.id] { fields.append(("last_scan_at", .string(last))) }
            return .object(fields)
        })
    }
}
