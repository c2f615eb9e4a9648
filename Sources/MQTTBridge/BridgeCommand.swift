import CMosquitto
import Glibc
import Lifecycle
import POSIXSupport
import ProductVersion
import SystemdSupport

/// The program `sealtrust-mqtt`: the command line read, the state folder checked, then the bridge (or `watch`) run
/// as one service of a `ServiceGroup`, which takes the signals as the daemon's does. `main.swift` blocks the signals
/// first, then calls `run`.
public enum BridgeCommand {
    /// How long a stop may take: the offline status waits up to 2 s for its PUBACK.
    static let stopDeadline: Duration = .seconds(5)

    public static func run(arguments: [String]) -> Never {
        let options: BridgeOptions
        let credentials: Credentials?
        do {
            options = try BridgeOptions.parse(arguments)
            switch options.command {
            case .help:
                print(BridgeOptions.usage)
                exit(0)
            case .version:
                print("sealtrust-mqtt \(ProductVersion.current)")
                exit(0)
            case .bridge, .watch:
                break
            }
            credentials = try Credentials.load(path: options.credentialsPath, credentialsDirectory: environment("CREDENTIALS_DIRECTORY"))
            if let output = options.outputDirectory { try StateDirectory.prepare(output, what: "output folder") }
        } catch {
            failAtStart(error.message, status: 2)
        }

        mosquitto_lib_init()
        let notifier = SystemdNotifier.fromEnvironment()
        let service: any Service
        switch options.command {
        case .watch:
            service = FleetWatch(options: options, credentials: credentials)
        default:
            let seqFile = AcknowledgedSeqFile(directory: options.stateDirectory)
            let saved: UInt64
            do {
                try StateDirectory.prepare(options.stateDirectory)
            } catch {
                failAtStart(error.message, status: 2)
            }
            do {
                saved = try seqFile.load()
            } catch {
                failAtStart(error.message, status: 1)
            }
            do {
                try StateDirectory.checkWritable(seqFile, holding: saved)
            } catch {
                failAtStart(error.message, status: 2)
            }
            service = Bridge(options: options, credentials: credentials, notifier: notifier, seqFile: seqFile, saved: saved)
        }
        let group = ServiceGroup(
            services: [service], stopDeadline: stopDeadline, notifier: notifier,
            hooks: ServiceGroup.Hooks(
                started: {},
                reload: { bridgeLog.notice("SIGHUP: nothing to reload; a new configuration needs a restart") },
                stopping: { signal in
                    bridgeLog.notice("\(signal): stopping")
                    exitAfterStopDeadline()
                },
                serviceEnded: { name, error in
                    if let error { bridgeLog.error("\(name) failed: \(error)") }
                }))
        group.runBlockingMainThread()
        // `_exit`, not `exit`: libmosquitto's and OpenSSL's exit-time destructors would run while their threads may
        // still run (the daemon's main.swift says why); the state file is saved and every log line written.
        _exit(0)
    }

    /// A stop is taken whatever a service does: a thread that still has not returned by the deadline (and a second
    /// more for the group to end) no longer holds the process.
    private static func exitAfterStopDeadline() {
        OSThread.start(name: "stop-deadline") {
            OSThread.pause(for: stopDeadline + .seconds(1))
            bridgeLog.error("did not stop within \(stopDeadline); exiting")
            _exit(1)
        }
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    private static func failAtStart(_ message: String, status: Int32) -> Never {
        try? FileDescriptor.writeAll(2, "sealtrust-mqtt: \(message)\n".utf8)
        exit(status)
    }
}
