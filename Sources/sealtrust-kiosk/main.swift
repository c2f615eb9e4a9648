import Glibc
import KioskBridge
import ProductVersion

// sealtrust-kiosk: the kiosk page, Server-Sent Events, metrics and health, as a client of the daemon's socket.

let log = KioskLog()
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
    log.error("\(error.description)\n\(KioskOptions.usage)")
    exit(2)
}

// The page keeps a stream open; a client gone mid-write must not end the process.
signal(SIGPIPE, SIG_IGN)

let hub = EventHub()
let station = StationState(version: ProductVersion.current)
let resumer = StreamResumer(socketPath: options.socketPath, hub: hub, log: log)
let routes = KioskRoutes(page: KioskPage.document(language: options.language, holdSeconds: options.holdSeconds),
                         hub: hub, station: station, resume: { resumer.resume($0) })
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

await withTaskGroup(of: Void.self) { group in
    group.addTask {
        await StationLink(socketPath: options.socketPath, hub: hub, station: station, log: log).run()
    }
    group.addTask {
        var ticks = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            hub.sweep()
            ticks += 1
            if ticks % 15 == 0 { hub.keepAlive() }
        }
    }
    // SIGTERM and SIGINT end the process as their default does: nothing is kept on disk, and browsers reconnect.
    await group.waitForAll()
    withExtendedLifetime(server) {}
}
