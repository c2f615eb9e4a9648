import Glibc
import POSIXSupport

/// libmosquitto opens the CA file, the certificate and the key at each connection, and waits on a FIFO named by
/// mistake until a writer comes: the link's thread, and a stop, would wait with it, with nothing said. Each is opened
/// first without waiting; anything but a regular file is a reason the connection cannot be made.
enum TLSFileCheck {
    /// The first problem among `settings`' TLS files, in words that name it; nil when each is a regular file.
    static func problem(in settings: BrokerSettings) -> String? {
        for (what, path) in [("CA file", settings.caFile), ("client certificate", settings.certificate), ("client key", settings.key)] {
            guard let path else { continue }
            let file: OwnedDescriptor
            do {
                file = OwnedDescriptor(try FileDescriptor.openForReadingWithoutWaiting(path))
            } catch {
                return "cannot read the \(what) \(path): \(error)"
            }
            guard let info = try? FileDescriptor.status(file.rawValue), info.st_mode & S_IFMT == S_IFREG else {
                return "the \(what) \(path) is not a regular file"
            }
        }
        return nil
    }
}
