/// Exit statuses of daemon.md.
enum ExitStatus {
    static let done: Int32 = 0
    /// `verify` gave an outcome other than authentic or identified, or a theft report (or the daemon refused the command).
    static let otherOutcome: Int32 = 1
    static let usage: Int32 = 2
    /// The daemon could not be reached or broke the protocol.
    static let unreachable: Int32 = 3
}
