import ScanJournal

/// The sources the station has seen and their last state, for `hello`, `status` and the systemd status line.
final class SourceRegistry: Sendable {
    struct Entry: Sendable, Equatable {
        let id: String
        let medium: String
        var state: String
        var detail: String
    }

    private let entries = LockedValue<[Entry]>([])

    /// Records a state; false when nothing changed, so that repeated reports are not journaled again.
    func update(id: String, medium: String, state: String, detail: String) -> Bool {
        entries.withLock { entries in
            let entry = Entry(id: id, medium: medium, state: state, detail: detail)
            if let index = entries.firstIndex(where: { $0.id == id }) {
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

    var all: [Entry] { entries.value }

    var json: JSON {
        .array(all.map { entry in
            .object([("id", .string(entry.id)), ("medium", .string(entry.medium)), ("state", .string(entry.state))])
        })
    }
}
