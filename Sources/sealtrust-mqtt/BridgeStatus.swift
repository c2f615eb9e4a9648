import StationClient

/// What the bridge knows of itself and the daemon, for `STATUS=` and the retained status.
struct BridgeStatus: Sendable {
    var broker = "connecting"
    var brokerOnline = false
    var daemon = "connecting"
    var daemonOnline = false
    /// The daemon's last `status` answer, without `type` and `id`.
    var daemonFields: [(String, StationJSON)] = []
    var newestSeq: UInt64 = 0
    /// From the daemon's `hello` (its `status` answer may not carry it).
    var station = ""

    func lag(acknowledged: UInt64) -> UInt64 {
        newestSeq > acknowledged ? newestSeq - acknowledged : 0
    }

    /// One line for systemd's STATUS=.
    func line(acknowledged: UInt64) -> String {
        let state = brokerOnline && daemonOnline ? "online" : "degraded"
        return "\(state): broker \(broker); daemon \(daemon); acked seq \(acknowledged), lag \(lag(acknowledged: acknowledged))"
    }

    /// The retained status: `{"state":"online", ...the daemon's status fields, "acked_seq":.., "lag":..}`.
    func payload(acknowledged: UInt64) -> String {
        var members: [(String, StationJSON)] = [("state", "online"), ("station", .string(station))]
        members += daemonFields.filter { !["state", "station", "acked_seq", "lag", "daemon"].contains($0.0) }
        members.append(("daemon", .string(daemonOnline ? "connected" : daemon)))
        members.append(("acked_seq", .int(Int64(clamping: acknowledged))))
        members.append(("lag", .int(Int64(clamping: lag(acknowledged: acknowledged)))))
        return StationJSON.object(members).encoded()
    }
}
