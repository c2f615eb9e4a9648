/// The one version of everything this package ships: the daemon, scanctl, the bridges and the API client's
/// identifier all print this, and a test holds debian/changelog and the man pages to it.
public enum ProductVersion {
    public static let current = "0.1.0"
}
