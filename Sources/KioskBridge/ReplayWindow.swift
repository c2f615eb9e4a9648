import JSONCore
import StationWire

/// The newest replayed events that fit in a number of events and of bytes: older ones are let go as newer come.
/// Their frames are made only for those kept.
struct ReplayWindow {
    private struct Event {
        let seq: UInt64
        let type: String
        var line: String
    }

    let byteLimit: Int
    let countLimit: Int
    private var kept: [Event] = []
    /// Where the kept events start in `kept`; what lies before is let go, and compacted away now and then.
    private var start = 0
    private var droppedBefore = 0
    private(set) var bytes = 0

    init(byteLimit: Int, countLimit: Int) {
        self.byteLimit = byteLimit
        self.countLimit = countLimit
    }

    /// How many older events were let go.
    var dropped: Int { droppedBefore + start }
    var count: Int { kept.count - start }

    /// The kept events as the page's frames, oldest first, each aged on the station's clock now (`PageEvent`).
    func events(hold: Duration, nowMilliseconds: Int64) -> [ReplayedEvent] {
        kept[start...].map { event in
            let type = MessageType(name: event.type)
            let json = try? JSON.parse(utf8: Array(event.line.utf8))
            let page = PageEvent(seq: event.seq, type: type, line: event.line, json: json, hold: hold, nowMilliseconds: nowMilliseconds)
            return ReplayedEvent(seq: event.seq, lane: page.lane, frame: page.frame)
        }
    }

    mutating func append(seq: UInt64, type: String, line: String) {
        kept.append(Event(seq: seq, type: type, line: line))
        bytes += line.utf8.count
        while start < kept.count, bytes > byteLimit || kept.count - start > countLimit {
            bytes -= kept[start].line.utf8.count
            kept[start].line = ""
            start += 1
        }
        if start > 1_024, start * 2 > kept.count {
            kept.removeFirst(start)
            droppedBefore += start
            start = 0
        }
    }
}
