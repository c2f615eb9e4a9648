import Glibc
@testable import MQTTBridge

/// `sealtrust-mqtt watch`'s handling of what anyone on the broker may publish (`WatchedStations`): events, replay
/// answers and statuses for a few stations, read from their payloads as the watch reads them, with its replay requests
/// falling due as a clock moves. The input is a list of messages, each a first byte (the station, the kind, whether the
/// clock moves and requests are taken) and a body: an event's seq and padding, an answer's gone range (any 64-bit
/// bounds), a status's acked seq, or a raw payload. What must hold, whatever comes:
/// - each station's deliveries are in order without a gap or a repeat: each begins right after the last one ended;
/// - an event delivered is the line received for its seq, the first time it came;
/// - gone ranges from an answer lie within the range the watch last asked that station for;
/// - what waits stays within the bound (a small one here, 4 KiB), and is the sum of the stations';
/// - it ends (libFuzzer's timeout: a gone range of 2^63 seqs once looped under the watch's lock).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = UnsafeBufferPointer(start: data, count: size)[...]
    var watched = WatchedStations(waitingLimit: 4_096)
    var clock = ContinuousClock.now
    var last: [String: UInt64] = [:]
    var firstLines: [String: [UInt64: String]] = [:]
    var asked: [String: ClosedRange<UInt64>] = [:]
    let stations = ["a", "b", "x%2By", "x_y"]
    while let head = input.popFirst() {
        let station = stations[Int(head & 0x03)]
        let bodyLength = min(input.count, Int(input.first ?? 0) % 64)
        let body = Array(input.dropFirst().prefix(bodyLength))
        input = input.dropFirst(1 + bodyLength)
        if head & 0x40 != 0 {
            clock += .seconds(Int(head >> 4 & 0x03) * 3)
            for (station, range) in watched.dueRequests(at: clock) { asked[station] = range }
        }
        let levels: [Substring]
        let payload: [UInt8]
        switch head >> 2 & 0x03 {
        case 0:
            let seq = body.prefix(2).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 512 + 1
            levels = [Substring(station), "event", "scan"]
            payload = Array(#"{"type":"scan","seq":\#(seq),"pad":"\#(String(repeating: "x", count: body.count * 16))"}"#.utf8)
        case 1:
            let from = body.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % (1 << 63)
            let to = body.dropFirst(8).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % (1 << 63)
            levels = [Substring(station), "replay", "answer"]
            payload = Array(#"{"from":1,"to":2,"sent":0,"gone":{"from":\#(from % 600),"to":\#(body.count > 12 ? to : to % 600)}}"#.utf8)
        case 2:
            levels = [Substring(station), "status"]
            payload = Array(#"{"state":"online","acked_seq":\#(body.prefix(2).reduce(0) { $0 << 8 | Int($1) } % 600)}"#.utf8)
        default:
            levels = [Substring(station), body.first.map { $0 & 1 == 0 ? "event" : "replay" } ?? "status", body.count > 1 ? "answer" : "scan"]
            payload = Array(body.dropFirst())
        }
        guard let (named, message) = WatchedStations.read(levels: levels, payload: payload) else { continue }
        check(named == station, "read station \(named) from \(station)")
        if case .event(let seq, let line) = message, firstLines[station, default: [:]][seq] == nil {
            firstLines[station, default: [:]][seq] = line
        }
        if !watched.contains(station) { watched.add(station, StationSequence(resumingAfter: nil)) }
        for (turn, (delivered, deliveries)) in watched.take(message, of: station, at: clock).enumerated() {
            for (index, delivery) in deliveries.enumerated() {
                switch delivery {
                case .event(let seq, let line):
                    if let previous = last[delivered] { check(seq == previous + 1, "\(delivered): seq \(seq) after \(previous)") }
                    check(firstLines[delivered]?[seq] == line, "\(delivered): seq \(seq) delivered as another line")
                    last[delivered] = seq
                case .gone(let range):
                    if let previous = last[delivered] { check(range.lowerBound == previous + 1, "\(delivered): gone \(range) after \(previous)") }
                    if turn == 0, index == 0, delivered == station, case .answer = message {
                        check(asked[station].map { $0.contains(range.lowerBound) && $0.contains(range.upperBound) } == true,
                              "\(station): gone \(range) outside what was asked, \(String(describing: asked[station]))")
                    }
                    last[delivered] = range.upperBound
                }
            }
        }
        check(watched.waitingBytes <= watched.waitingLimit, "\(watched.waitingBytes) bytes wait, over \(watched.waitingLimit)")
        check(watched.waitingBytes == watched.stations.values.reduce(0) { $0 + $1.sequence.waitingBytes }, "the waiting total drifted")
    }
    return 0
}
