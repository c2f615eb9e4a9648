import Dispatch
import Foundation
import ScanJournal
import ScanPipeline
import Synchronization
import SystemdSupport
import VerdictSocket

// Signals are taken by sigwait on the main thread, never by a handler: they are blocked here, before any thread
// starts, so every thread inherits the mask and none can take a signal with its default action, which would end the
// daemon without closing the journal. (libdispatch's signal sources are not used: dispatchMain unblocks every signal
// on the main thread before its own handler is installed, and a SIGTERM in that gap killed the daemon.)
var handledSignals = sigset_t()
sigemptyset(&handledSignals)
for number in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&handledSignals, number) }
pthread_sigmask(SIG_BLOCK, &handledSignals, nil)
signal(SIGPIPE, SIG_IGN)

// Each subscriber is a descriptor: take the whole hard limit, not the 1,024 soft default.
var descriptorLimit = rlimit()
if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &descriptorLimit) == 0, descriptorLimit.rlim_cur < descriptorLimit.rlim_max {
    descriptorLimit.rlim_cur = descriptorLimit.rlim_max
    setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &descriptorLimit)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment

func failAtStart(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("sealtrust-scand: \(message)\n".utf8))
    exit(status)
}

let options: DaemonOptions
do {
    switch try DaemonCommandLine.parse(arguments: arguments, environment: environment) {
    case .version:
        print("sealtrust-scand \(ScanPipeline.version)")
        exit(0)
    case .help:
        print(DaemonCommandLine.usage)
        exit(0)
    case .run(let parsed):
        options = parsed
    }
} catch {
    failAtStart(error.message, status: 2)
}

let logger = Logger(level: options.logLevel, environment: environment)
let notifier = SystemdNotifier.fromEnvironment()

let journal: Journal
do {
    journal = try Journal(path: options.journalPath, maxBytes: options.journalMaxBytes,
                          maxAge: options.journalMaxAgeDays * 86_400, warn: { logger.warning($0) })
} catch {
    failAtStart("cannot open the journal \(options.journalPath): \(error)", status: 1)
}
if let note = journal.recoveryNote { logger.warning(note) }

var serverConfiguration = VerdictServerConfiguration(path: options.socketPath,
                                                     inheritedDescriptor: SocketActivation.listeningDescriptors().first)
serverConfiguration.maxClients = options.maxClients
serverConfiguration.clientQueueBytes = options.clientQueueBytes
let server = VerdictServer(configuration: serverConfiguration, journal: journal)

let tokens = TokenStore(path: TokenStore.path(for: options, environment: environment), logger: logger)
let pipeline = ScanPipeline(options: options, journal: journal, server: server, logger: logger, tokens: tokens) { line in
    notifier?.send("STATUS=\(line)")
}

do {
    try server.start(delegate: pipeline)
} catch {
    failAtStart("cannot listen on \(options.socketPath): \(error)", status: 1)
}
notifier?.send("READY=1")
notifier?.send("STATUS=\(pipeline.statusLine)")
logger.notice("listening on \(serverConfiguration.inheritedDescriptor == nil ? options.socketPath : "the socket systemd passed"), journal \(options.journalPath), last seq \(journal.lastSeq)")
pipeline.startSources()

/// Reads the configuration again (SIGHUP): what can change live changes, the rest is named.
func reload() {
    do {
        guard case .run(let fresh) = try DaemonCommandLine.parse(arguments: arguments, environment: environment) else { return }
        logger.level = fresh.logLevel
        tokens.use(path: TokenStore.path(for: fresh, environment: environment))
        tokens.reload()
        let needsRestart = pipeline.reconfigure(fresh)
        logger.notice("configuration reloaded")
        if !needsRestart.isEmpty {
            logger.warning("a restart is needed to apply: \(needsRestart.joined(separator: ", "))")
        }
    } catch {
        logger.error("configuration not reloaded, the running one stays: \(error.message)")
    }
}

let stopping = Atomic<Bool>(false)

func stop(after signalName: String) {
    guard stopping.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
    logger.notice("\(signalName): stopping; verifications in flight finish first")
    notifier?.send("STOPPING=1")
    Task {
        await pipeline.stop(timeout: .seconds(options.apiTimeout + 1))
        server.stop()
        journal.close()
        logger.notice("stopped")
        exit(0)
    }
}

/// WATCHDOG=1 goes out from the task pool that runs the scans, so a daemon whose pool is wedged stops feeding it.
let watchdog: DispatchSourceTimer? = notifier.flatMap { notifier in
    notifier.watchdogInterval.map { interval in
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "sealtrust-scand.watchdog"))
        let nanoseconds = interval.components.seconds * 1_000_000_000 + interval.components.attoseconds / 1_000_000_000
        timer.schedule(deadline: .now(), repeating: .nanoseconds(Int(nanoseconds)))
        timer.setEventHandler { @Sendable in Task { notifier.send("WATCHDOG=1") } }
        timer.resume()
        return timer
    }
}

withExtendedLifetime(watchdog) {
    while true {
        var number: Int32 = 0
        guard sigwait(&handledSignals, &number) == 0 else { continue }
        switch number {
        case SIGHUP: reload()
        case SIGINT: stop(after: "SIGINT")
        default: stop(after: "SIGTERM")
        }
    }
}
