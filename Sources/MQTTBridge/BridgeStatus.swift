import JSONCore

/// What the bridge knows of itself and the daemon, for `STATUS=` and the retained status.
struct BridgeStatus: Sendable {
    var broker = "connecting"
    var brokerOnline = false
    var daemon = "connecting"
    var daemonOnline = false
    /// The daemon's last `status` answer, without `type` and `id`.
    var daemonFields: [(String, JSON)] = []
    var newestSeq: UInt64 = 0
    /// From the daemon's `hello` (its `status` answer may not carry it).
    var station = ""

    func lag(acknowledged: UInt64) -> UInt64 {
        newestSeq > acknowledged ? newestSeq - acknowledged : 0
    }

    /// One line for systemd's STATUS=.
    func line(acknowledged: UInt64, replays: ReplayQueue.Progress) -> String {
        let state = brokerOnline && daemonOnline ? "online" : "degraded"
        var line = "\(state): broker \(broker); daemon \(daemon); acked seq \(acknowledged), lag \(lag(acknowledged: acknowledged))"
        if replays.answered > 0 || replays.waiting > 0 || replays.current != nil {
            line += "; replays answered \(replays.answered) (\(replays.republished) events again)"
            if let current = replays.current { line += ", sending \(current)" }
            if replays.waiting > 0 { line += ", \(replays.waiting) waiting" }
        }
        return line
    }

    /// The retained status: `{"state":"online", ...the daemon's status fields, "acked_seq":.., "lag":..}`.
    func payload(acknowledged: UInt64, replays: ReplayQueue.Progress) -> String {
        var members: [(String, JSON)] = [("state", "online"), ("station", .string(station))]
        members += daemonFields.filter { !["state", "station", "acked_seq", "lag", "daemon", "replay"].contains($0.0) }
        members.append(("daemon", .string(daemonOnline ? "connected" : daemon)))
        members.append(("acked_seq", .int(Int64(clamping: acknowledged))))
        members.append(("lag", .int(Int64(clamping: lag(acknowledged: acknowledged)))))
        var replay: [(String, JSON)] = [("answered", .int(Int64(replays.answered))), ("republished", .int(Int64(replays.republished))),
                                               ("waiting", .int(Int64(replays.waiting)))]
        if let current = replays.current { replay.append(("sending", .string(current))) }
        members.append(("replay", .object(replay)))
        return JSON.object(members).encoded()
    }
}
