/// The audiences a passport is served to; none contains another.
public enum AccessTier: String, Sendable, Hashable, CaseIterable {
    case `public`
    case endUser = "end_user"
    case repairer
    case recycler
    case upstream
    case authority
}
