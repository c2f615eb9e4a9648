import Foundation

/// One part of tools/netlab (a TLS end, a delaying link, a CONNECT proxy, a misbehaving server) on a free
/// loopback port, for one test; it exits when stopped or when this process goes away.
public final class NetLabPart: Sendable {
    public let port: Int
    private let child: SandboxProcess

    private init(child: SandboxProcess, port: Int) {
        self.child = child
        self.port = port
    }

    deinit {
        child.stop()
    }

    /// `arguments`: the part and its options, as netlab.py takes them (`["proxy", "--record", path]`).
    public static func start(_ arguments: [String], startTimeout: TimeInterval = 15) throws -> NetLabPart {
        let script = repositoryRoot().appendingPathComponent("tools/netlab/netlab.py").path
        let child = try SandboxProcess.launch(executable: "/usr/bin/python3", arguments: [script, "--exit-with-stdin"] + arguments)
        guard let line = child.firstLine(timeout: startTimeout) else {
            child.stop()
            throw SandboxError.launchFailed("no LISTENING line from netlab \(arguments.first ?? "") within \(startTimeout) s")
        }
        let words = line.split(separator: " ")
        guard words.count == 2, words[0] == "LISTENING", let port = Int(words[1]) else {
            child.stop()
            throw SandboxError.launchFailed("unexpected first line \(line.debugDescription)")
        }
        return NetLabPart(child: child, port: port)
    }

    public func stop() {
        child.stop()
    }
}
