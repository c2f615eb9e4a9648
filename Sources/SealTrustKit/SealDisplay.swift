/// The seal status combined with the brand's policy: what the screen shows.
/// A broken seal is never a counterfeit; `degrade` with `opened` lowers the displayed trust.
public struct SealDisplay: Sendable, Hashable {
    public let status: TamperStatus
    /// `inform` or `degrade`; a silent policy has no display.
    public let policy: TamperPolicy

    /// Nil when there is nothing to show: no status, or a silent policy.
    public init?(status: TamperStatus?, policy: TamperPolicy) {
        guard let status, policy != .silent else { return nil }
        self.status = status
        self.policy = policy
    }

    /// The screen shows degraded trust (never a counterfeit warning).
    public var isDegraded: Bool { status == .opened && policy == .degrade }
}
