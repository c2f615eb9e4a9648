import Lifecycle

/// Once a second: frees the streams whose clients left and closes the connections whose request is overdue;
/// every 15 s, a comment on every stream so that proxies keep it open.
public struct Housekeeping: Service {
    let hub: EventHub
    let server: HTTPServer
    static let keepAliveEvery = 15

    public var name: String { "housekeeping" }

    public init(hub: EventHub, server: HTTPServer) {
        self.hub = hub
        self.server = server
    }

    public func run() async {
        var ticks = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            hub.sweep()
            server.closeSlowRequests()
            ticks += 1
            if ticks % Self.keepAliveEvery == 0 { hub.keepAlive() }
        }
    }
}
