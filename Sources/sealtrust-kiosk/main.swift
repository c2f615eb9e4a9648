import Glibc
import KioskBridge
import Lifecycle
import Logging
import POSIXSupport
import ProductVersion
import SystemdSupport

// sealtrust-kiosk: the kiosk page, Server-Sent Events, metrics and health, as a client of the daemon's socket.

// Before any thread starts: SIGTERM, SIGINT and SIGHUP are then blocked in every thread, and the service group takes
// them on a thread of its own, as the daemon does (and SIGPIPE is ignored: a client gone mid-write ends nothing).
SignalWatcher.blockSignals()

let log = Logger(program: "sealtrust-kiosk", level: .info)
let options: KioskOptions
do {
    switch try KioskOptions.parse(Array(CommandLine.arguments.dropFirst())) {
    case .version:
        print("sealtrust-kiosk \(ProductVersion.current)")
        exit(0)
    case .help:
        print(KioskOptions.usage)
        exit(0)
    case .run(let parsed):
        options = parsed
    }
} catch {
    log.error(error.description)
    if error.showsUsage { try? FileDescriptor.writeAll(2, (KioskOptions.usage + "\n").utf8) }
    exit(2)
}

let pages = KioskPages(holdSeconds: options.holdSeconds, theme: options.theme, sentences: options.sentences)
let hub = EventHub(language: options.language ?? .en, pageVersions: pages.versions)
let station = StationState(version: ProductVersion.current)
let desk = PassportDesk()
let resumer = StreamResumer(socketPath: options.socketPath, hub: hub, log: log, hold: .seconds(options.holdSeconds))
let routes = KioskRoutes(pages: pages, hosts: options.allowedHosts, hub: hub, station: station, desk: desk, lane: options.lane,
                         resume: { resumer.resume($0) })
let server: HTTPServer
let listening: ListeningSocket
do {
    listening = try ListeningSocket.bind(options.listen)
    server = try HTTPServer(socket: listening, answer: { routes.answer($0) })
} catch {
    log.error("cannot serve on \(options.listen): \(error)")
    exit(1)
}
// One line on stdout that a script or a test reads for the address (port 0 picks a free one).
// Written at once, not through stdio's buffer.
let announcement = Array("LISTENING http://\(options.listen.with(port: listening.port))/\n".utf8)
_ = announcement.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
log.info("serving the kiosk page on http://\(options.listen.with(port: listening.port))/")

// SIGTERM and SIGINT stop the services and end the process with 0: nothing is kept on disk, and browsers reconnect.
let services: [any Service] = [
    StationLink(socketPath: options.socketPath, hub: hub, station: station, desk: desk, log: log,
                hold: .seconds(options.holdSeconds), fixedLanguage: options.language, lane: options.lane),
    resumer, Housekeeping(hub: hub, server: server, desk: desk, station: station),
]
let group = ServiceGroup(
    services: services, stopDeadline: .seconds(2), notifier: SystemdNotifier.fromEnvironment(),
    hooks: ServiceGroup.Hooks(
        started: {}, reload: {},
        stopping: { signal in log.info("\(signal): stopping") },
        serviceEnded: { name, error in
            if let error { log.error("\(name) failed: \(error)") }
        }))
group.runBlockingMainThread()
withExtendedLifetime(server) {}
// `_exit`, not `exit`: exit-time destructors would run while libmicrohttpd's threads may still run
// (sealtrust-scand's main.swift says why); every log line is written (stderr is unbuffered).
_exit(0)
