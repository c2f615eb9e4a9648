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
        ListeningTool.stop(child)
    }

    /// `arguments`: the part and its options, as netlab.py takes them (`["proxy", "--record", path]`).
    public static func start(_ arguments: [String], startTimeout: Int64 = 15) throws -> NetLabPart {
        let script = repositoryRoot().appendingPathComponent("tools/netlab/netlab.py").path
        let tool = try ListeningTool.start([script, "--exit-with-stdin"] + arguments, name: "netlab \(arguments.first ?? "")",
                                           startTimeout: startTimeout)
        return NetLabPart(child: tool.child, port: tool.port)
    }

    /// Terminates the part and waits for it; safe to call more than once.
    public func stop() {
        ListeningTool.stop(child)
    }
}
