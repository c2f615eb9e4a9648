/// Exit statuses of daemon.md.
enum ExitStatus {
    /// Done; for `verify`: `authentic` with no theft report, the only answer that proves the object in hand.
    static let done: Int32 = 0
    /// `verify` gave an outcome other than authentic or identified, or a theft report (or the daemon refused the command).
    static let otherOutcome: Int32 = 1
    static let usage: Int32 = 2
    /// The daemon could not be reached or broke the protocol.
    static let unreachable: Int32 = 3
    /// `verify` gave `identified`: a printed code names the product, and a photocopy gives the same answer, so a
    /// script that opens a gate on exit 0 must not open on it.
    static let identified: Int32 = 4
}
