import Foundation
import Glibc

/// One part of tools/netlab (a TLS end, a delaying link, a CONNECT proxy, a misbehaving server) on a free
/// loopback port; it exits when stopped or when this process goes away (its stdin closes).
public final class NetLabPart: Sendable {
    public let port: Int
    private let child: ChildProcess

    private init(child: ChildProcess, port: Int) {
        self.child = child
        self.port = port
    }

    deinit {
        Self.stop(child)
    }

    /// `arguments`: the part and its options, as netlab.py takes them (`["proxy", "--record", path]`).
    public static func start(_ arguments: [String], startTimeout: Int64 = 15) throws -> NetLabPart {
        let script = repositoryRoot().appendingPathComponent("tools/netlab/netlab.py").path
        let child = try ChildProcess("/usr/bin/python3", [script, "--exit-with-stdin"] + arguments)
        let line: String
        do {
            line = try child.waitForLineBlocking(timeout: .seconds(startTimeout)) { _ in true }
        } catch {
            stop(child)
            throw SandboxError.launchFailed("no LISTENING line from netlab \(arguments.first ?? ""): \(error)")
        }
        let words = line.split(separator: " ")
        guard words.count == 2, words[0] == "LISTENING", let port = Int(words[1]) else {
            stop(child)
            throw SandboxError.launchFailed("unexpected first line \(line.debugDescription)")
        }
        return NetLabPart(child: child, port: port)
    }

    /// Terminates the part and waits for it; safe to call more than once.
    public func stop() {
        Self.stop(child)
    }

    private static func stop(_ child: ChildProcess) {
        child.closeInput()
        child.signal(SIGTERM)
        child.waitForExit(timeout: .seconds(5))
    }
}
