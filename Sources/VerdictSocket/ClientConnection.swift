import JSONCore
import POSIXSupport
import ScanJournal
import StationWire

/// One subscriber's state on the server thread: what it sent, what waits to go out, what it watches.
final class ClientConnection {
    let id: ClientID
    let descriptor: Int32
    var input: [UInt8] = []
    /// Where the next newline search starts in `input` (the bytes before it hold none).
    var inputScanned = 0
    private var output: [UInt8] = []
    private var outputStart = 0
    /// nil: every type (a new connection's subscription).
    var watched: Set<EventType>?
    /// Live events up to this seq already went out through a replay.
    var liveThreshold: UInt64 = 0
    var replay: Replay?
    var isClosed = false
    /// The client shut down its writing side: nothing more is read, but what it asked for is still answered.
    var readingEnded = false
    /// Its `verify` commands still waiting for their `verdict`, and its `passport` commands for their answer.
    var answersOwed = 0

    /// A half-closed client has been answered in full and can be closed.
    var isAnswered: Bool { readingEnded && answersOwed == 0 && replay == nil && queuedBytes == 0 }

    struct Replay {
        var cursor: JournalCursor
        let requestID: JSON
        /// Events sent so far, for the `ack` that marks the end of the replay.
        var replayed = 0
    }

    init(id: ClientID, descriptor: Int32) {
        self.id = id
        self.descriptor = descriptor
    }

    var queuedBytes: Int { output.count - outputStart }

    func queue(_ bytes: ArraySlice<UInt8>) {
        output.append(contentsOf: bytes)
    }

    /// Sends what the kernel takes now; false when the connection is broken.
    func flush() -> Bool {
        while queuedBytes > 0 {
            let sent = try? output.withUnsafeBytes { raw throws(Errno) in
                try UnixSocket.sendNow(descriptor, UnsafeRawBufferPointer(rebasing: raw[outputStart...]))
            }
            guard let sent else { return false }
            if sent == 0 { break }
            outputStart += sent
        }
        if outputStart == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 65_536)
            outputStart = 0
        } else if outputStart > 65_536 && outputStart > output.count / 2 {
            output.removeSubrange(0..<outputStart)
            outputStart = 0
        }
        return true
    }
}
