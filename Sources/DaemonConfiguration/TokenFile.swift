import FoundationEssentials

/// The token file's rule, in one place for the daemon (`TokenStore`) and `--check-config`: a regular file of at most
/// `maximumBytes` of UTF-8 text, whose trimmed text is the token, or none when it is empty.
public enum TokenFile {
    /// A bearer token is a few hundred bytes: a file named by mistake is never read whole.
    static let maximumBytes = 65_536

    public enum Reading {
        /// The file is the one read last (`read(_:unless:)` did not read it again).
        case unchanged
        case token(String, NamedFile.Identity)
        /// No token: what a fresh install has (systemd's `LoadCredential=` needs the file to exist).
        case empty(NamedFile.Identity)
        /// Why there is no token, in words that name the path; `identity` is nil when the file could not be opened.
        case problem(String, NamedFile.Identity?)
    }

    /// The token file given by the options, or systemd's credential when there is none.
    public static func path(for options: DaemonOptions, environment: [String: String]) -> String? {
        if let tokenFile = options.tokenFile { return tokenFile }
        guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty else { return nil }
        let credential = directory + "/sealtrust-token"
        return FileManager.default.fileExists(atPath: credential) ? credential : nil
    }

    /// Reads the file at `path`, unless it still has the identity `known`.
    public static func read(_ path: String, unless known: NamedFile.Identity? = nil) -> Reading {
        switch NamedFile.read(path, what: "token file", limit: maximumBytes, unless: known) {
        case .unchanged:
            return .unchanged
        case .problem(let problem, let identity):
            return .problem(problem, identity)
        case .bytes(let bytes, let identity):
            let content = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
            guard let text = String(validating: content, as: UTF8.self) else {
                return .problem("the token file \(path) is not UTF-8 text", identity)
            }
            let token = text.trimmingWhitespace()
            return token.isEmpty ? .empty(identity) : .token(token, identity)
        }
    }
}
