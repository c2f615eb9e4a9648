import Lifecycle

/// Once a second: frees the streams whose clients left, closes the connections whose request is overdue, and answers
/// the product questions and the scrapes the daemon left unanswered too long;
/// every 15 s, a comment on every stream so that proxies keep it open.
public struct Housekeeping: Service {
    let hub: EventHub
    let server: HTTPServer
    let desk: PassportDesk
    let station: StationState
    static let keepAliveEvery = 15

    public var name: String { "housekeeping" }

    public init(hub: EventHub, server: HTTPServer, desk: PassportDesk, station: StationState) {
        self.desk = desk
        self.station = station
        self.hub = hub
        self.server = server
    }

    public func run() async {
        var ticks = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            hub.sweep()
            server.closeSlowRequests()
            desk.expire()
            station.expire()
            ticks += 1
            if ticks % Self.keepAliveEvery == 0 { hub.keepAlive() }
        }
    }
}
