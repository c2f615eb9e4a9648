/// Cuts a byte stream into `input_event` records; a read may end inside a record (a FIFO, a file being written).
public struct InputEventAssembler: Sendable {
    private var partial: [UInt8] = []

    public init() {}

    /// Bytes held back because they do not make a whole record yet.
    public var pendingByteCount: Int { partial.count }

    public mutating func append(_ bytes: UnsafeRawBufferPointer, _ deliver: (InputEvent) -> Void) {
        var offset = 0
        if !partial.isEmpty {
            let taken = min(InputEvent.size - partial.count, bytes.count)
            partial.append(contentsOf: bytes[0..<taken])
            offset = taken
            guard partial.count == InputEvent.size else { return }
            partial.withUnsafeBytes { deliver(InputEvent(record: $0)) }
            partial.removeAll(keepingCapacity: true)
        }
        while bytes.count - offset >= InputEvent.size {
            deliver(InputEvent(record: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + InputEvent.size)])))
            offset += InputEvent.size
        }
        partial.append(contentsOf: bytes[offset...])
    }

    /// Forgets a partial record, when its stream ends or is reopened.
    public mutating func reset() {
        partial.removeAll(keepingCapacity: true)
    }
}
