/// The longest line the daemon writes to a client, and the longest a client of this package accepts: one constant,
/// so that the daemon never sends its own bridges a line they refuse (a product's answer bounded to fit it).
public enum ServerLine {
    public static let longestBytes = 1 << 20
}
