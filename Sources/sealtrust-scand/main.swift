import DaemonConfiguration
import FoundationEssentials
import Glibc
import Lifecycle
import Logging
import POSIXSupport
import ProductVersion
import ScanJournal
import StationCore
import StationWire
import SystemdSupport
import VerdictSocket

// Before any thread starts: SIGTERM, SIGINT and SIGHUP are then blocked in every thread, and the service group takes
// them on a thread of its own (a signal in the gap before that thread runs waits for it instead of ending the daemon).
SignalWatcher.blockSignals()

// Two heap arenas for every thread: a product answer's parse (up to a few megabytes, freed at once) on an API thread
// would otherwise stay mapped in that thread's own arena.
Heap.limitArenas(to: 2)

// Each subscriber is a descriptor: take the whole hard limit, not the 1,024 soft default.
var descriptorLimit = rlimit()
if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &descriptorLimit) == 0, descriptorLimit.rlim_cur < descriptorLimit.rlim_max {
    descriptorLimit.rlim_cur = descriptorLimit.rlim_max
    setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &descriptorLimit)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment

func failAtStart(_ message: String, status: Int32) -> Never {
    try? FileDescriptor.writeAll(2, "sealtrust-scand: \(TerminalText.escaped(message))\n".utf8)
    exit(status)
}

let options: DaemonOptions
do {
    switch try DaemonCommandLine.parse(arguments: arguments, environment: environment) {
    case .version:
        print("sealtrust-scand \(ProductVersion.current)")
        exit(0)
    case .help:
        print(DaemonCommandLine.usage)
        exit(0)
    case .checkConfig:
        print("configuration ok")
        exit(0)
    case .run(let parsed):
        options = parsed
    }
} catch {
    failAtStart(error.message, status: 2)
}

let logger = Logger(program: "sealtrust-scand", level: options.logLevel, environment: environment)
let notifier = SystemdNotifier.fromEnvironment()

// The socket first: a daemon refused here ("another daemon is already listening") exits before it touches the
// running daemon's journal and before any thread of its own starts (the core opens an API connection in the
// background at once, and `exit` tearing down its TLS library under it crashed 1 refusal in about 10).
var serverConfiguration = VerdictServerConfiguration(path: options.socketPath,
                                                     inheritedDescriptor: SocketActivation.listeningDescriptors().first)
serverConfiguration.maxClients = options.maxClients
serverConfiguration.clientQueueBytes = options.clientQueueBytes
let server = VerdictServer(configuration: serverConfiguration)
do {
    try server.listen()
} catch {
    failAtStart("cannot listen on \(options.socketPath): \(error)", status: 1)
}

// One clock for the journal's dates, the core's times and the sources' reads.
let clock = DaemonClock.system
let journal: Journal
do {
    journal = try Journal(path: options.journalPath, maxBytes: options.journalMaxBytes,
                          maxAge: options.journalMaxAgeDays * 86_400, clock: clock, warn: { logger.warning($0) })
} catch {
    server.stop()
    failAtStart("cannot open the journal \(options.journalPath): \(error)", status: 1)
}
if let note = journal.recoveryNote { logger.warning(note) }

let tokens = TokenStore(path: TokenFile.path(for: options, environment: environment), logger: logger)
tokens.reload()
let core = StationRuntime(options: options, journal: journal, publisher: server, logger: logger, tokens: tokens, clock: clock) { line in
    notifier?.send("STATUS=\(line)")
}

// Cannot fail once the socket is claimed; a failure here would be a bug, and `try!` says so.
try! server.start(journal: journal, delegate: core)
logger.notice("listening on \(serverConfiguration.inheritedDescriptor == nil ? options.socketPath : "the socket systemd passed"), journal \(options.journalPath), last seq \(journal.lastSeq)")

/// Reads the configuration again (SIGHUP), on the group's `reload` thread: what can change live changes, the rest is named.
@Sendable func reload() {
    do {
        guard case .run(let fresh) = try DaemonCommandLine.parse(arguments: arguments, environment: environment) else { return }
        let needsRestart = try core.reconfigure(fresh)
        logger.level = fresh.logLevel
        tokens.use(path: TokenFile.path(for: fresh, environment: environment))
        tokens.reload()
        logger.notice("configuration reloaded")
        if !needsRestart.isEmpty {
            logger.warning("a restart is needed to apply: \(needsRestart.joined(separator: ", "))")
        }
    } catch {
        logger.error("configuration not reloaded, the running one stays: \(error.message)")
    }
}

// Started in this order, stopped in the reverse one: the sources first, then the core (the calls in flight finish),
// then the server (what was published reaches its clients).
let sources: [any ScanSource] = StationSources.make(for: options, clock: clock)
let services: [any Service] = [server, core] + sources.map(core.service(for:)) + [Watchdog(notifier: notifier)].compactMap { $0 }
let group = ServiceGroup(
    services: services, stopDeadline: .seconds(options.apiTimeout + 2), notifier: notifier,
    hooks: ServiceGroup.Hooks(
        started: { notifier?.send("STATUS=\(core.statusLine)") },
        reload: reload,
        stopping: { signal in logger.notice("\(signal): stopping; verifications in flight finish first") },
        serviceEnded: { name, error in
            if let error { logger.error("\(name) failed: \(error)") } else { logger.info("\(name) ended") }
        }))
group.runBlockingMainThread()
journal.close()
logger.notice("stopped")
// `_exit`, not `exit`: the journal is closed and every log line is written (stderr is unbuffered), and `exit` would run
// libraries' exit-time destructors while other threads of theirs still run, which crashed 1 stop in about 500.
_exit(0)
