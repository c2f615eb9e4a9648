import SealTrustKit

/// The CA bundle `--api-ca` names, read at start and on SIGHUP (libcurl gets its text, never its path).
public enum CABundleFile {
    /// Debian's whole store is about 220 KiB: room for it and a station's own CAs, and no more.
    static let maximumBytes = 4 << 20

    /// The bundle, and the problem when it cannot be read or holds no certificate that parses: then it is handed on
    /// empty, so that every call fails with "cannot read the CA file" rather than trusting the system's store alone.
    public static func read(_ path: String) -> (bundle: CABundle, problem: String?) {
        switch NamedFile.read(path, what: "CA bundle", limit: maximumBytes) {
        case .bytes(let pem, _):
            guard PEMCertificates.count(in: pem) > 0 else {
                return (CABundle(path: path, pem: []), "the CA bundle \(path) holds no PEM certificate that parses")
            }
            return (CABundle(path: path, pem: pem), nil)
        case .problem(let problem, _): return (CABundle(path: path, pem: []), problem)
        case .unchanged: preconditionFailure("read with no identity to compare")
        }
    }
}
