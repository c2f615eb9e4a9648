import Glibc
import POSIXSupport

/// A user name and password for the broker, read from a file; never printed, not even in a failure.
struct Credentials: Sendable {
    let user: String
    let password: String

    /// The name of the systemd credential (`LoadCredential=sealtrust-mqtt:...`).
    static let credentialName = "sealtrust-mqtt"
    static let largestFile = 4_096

    /// `--credentials FILE` when given, else `$CREDENTIALS_DIRECTORY/sealtrust-mqtt` when it exists, else none.
    /// A file that others may read or write is refused, as ssh refuses such a key: the password is no secret there.
    static func load(path: String?, credentialsDirectory: String?) throws(UsageError) -> Credentials? {
        var chosen = path
        if chosen == nil, let directory = credentialsDirectory, !directory.isEmpty {
            let candidate = directory + "/" + credentialName
            if access(candidate, F_OK) == 0 { chosen = candidate }
        }
        guard let chosen else { return nil }
        let bytes: [UInt8]
        do {
            let file = OwnedDescriptor(try FileDescriptor.openForReadingWithoutWaiting(chosen))
            let info = try FileDescriptor.status(file.rawValue)
            guard info.st_mode & S_IFMT == S_IFREG else { throw UsageError("the credentials file \(chosen) is not a regular file") }
            guard info.st_mode & 0o007 == 0 else {
                throw UsageError("the credentials file \(chosen) is open to others (mode \(String(info.st_mode & 0o777, radix: 8))); "
                    + "make it readable by its owner only (chmod 600)")
            }
            bytes = try FileDescriptor.read(file.rawValue, upTo: largestFile + 1)
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("cannot read the credentials file \(chosen): \(error)")
        }
        guard bytes.count <= largestFile else { throw UsageError("the credentials file \(chosen) is over 4 KiB") }
        // The unit's credential file exists even when the broker wants no user name: empty means none.
        guard bytes.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
        var line = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).first ?? []
        if line.last == 0x0D { line = line.dropLast() }
        guard let colon = line.firstIndex(of: 0x3A), colon != line.startIndex else {
            throw UsageError("the credentials file \(chosen) must hold user:password on its first line")
        }
        return Credentials(user: String(decoding: line[..<colon], as: UTF8.self),
                           password: String(decoding: line[(colon + 1)...], as: UTF8.self))
    }
}
