import JSONCore
import StationWire
import Synchronization

/// The sources the station has seen and their last state, for `hello`, `status` and the systemd status line.
final class SourceRegistry: Sendable {
    private let entries = Mutex<[SourceEvent]>([])
    /// Each source's last scan, as RFC 3339 text.
    private let lastScans = Mutex<[String: String]>([:])

    func scanned(by id: String, at time: String) {
        lastScans.withLock { $0[id] = time }
    }

    /// Records a state; false when nothing changed, so that repeated reports are not journaled again.
    func update(_ entry: SourceEvent) -> Bool {
        entries.withLock { entries in
            if let index = entries.firstIndex(where: { $0.id == entry.id }) {
                guard entries[index] != entry else { return false }
                entries[index] = entry
            } else {
                entries.append(entry)
            }
            return true
        }
    }

    /// Drops a placeholder (`nfc`, `camera`) once a real device stands for it.
    func forget(id: String) {
        entries.withLock { $0.removeAll { $0.id == id } }
    }

    var all: [SourceEvent] { entries.withLock { $0 } }

    var json: JSON {
        .array(all.map { entry in
            .object([("id", .string(entry.id)), ("medium", .string(entry.medium.rawValue)), ("state", .string(entry.state.rawValue))])
        })
    }

    /// For `status`: each source with `last_scan_at` once it has scanned.
    var statusJSON: JSON {
        let lastScans = lastScans.withLock { $0 }
        return .array(all.map { entry in
            var fields: [(String, JSON)] = [
                ("id", .string(entry.id)), ("medium", .string(entry.medium.rawValue)), ("state", .string(entry.state.rawValue)),
            ]
            if let last = lastScans[entry.id] { fields.append(("last_scan_at", .string(last))) }
            return .object(fields)
        })
    }
}
