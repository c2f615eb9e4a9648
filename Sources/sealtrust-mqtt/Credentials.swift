import Foundation

/// A user name and password for the broker, read from a file; never printed, not even in a failure.
struct Credentials: Sendable {
    let user: String
    let password: String

    /// The name of the systemd credential (`LoadCredential=sealtrust-mqtt:...`).
    static let credentialName = "sealtrust-mqtt"

    /// `--credentials FILE` when given, else `$CREDENTIALS_DIRECTORY/sealtrust-mqtt` when it exists, else none.
    static func load(path: String?, environment: [String: String]) throws(UsageError) -> Credentials? {
        var chosen = path
        if chosen == nil, let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let candidate = directory + "/" + credentialName
            if FileManager.default.fileExists(atPath: candidate) { chosen = candidate }
        }
        guard let chosen else { return nil }
        guard let data = FileManager.default.contents(atPath: chosen), data.count <= 4_096 else {
            throw UsageError("cannot read the credentials file \(chosen) (or it is over 4 KiB)")
        }
        let text = String(decoding: data, as: UTF8.self)
        // The unit's credential file exists even when the broker wants no user name: empty means none.
        if text.allSatisfy(\.isWhitespace) { return nil }
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first.map { $0.hasSuffix("\r") ? $0.dropLast() : $0 } ?? ""
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
            throw UsageError("the credentials file \(chosen) must hold user:password on its first line")
        }
        return Credentials(user: String(line[..<colon]), password: String(line[line.index(after: colon)...]))
    }
}
