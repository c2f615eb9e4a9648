import CMosquitto
import Foundation
import ProductVersion
import StationClient
import SystemdSupport

// Signals are taken by sigwait on the main thread, blocked before any thread starts (as in sealtrust-scand).
var handledSignals = sigset_t()
sigemptyset(&handledSignals)
for number in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&handledSignals, number) }
pthread_sigmask(SIG_BLOCK, &handledSignals, nil)
signal(SIGPIPE, SIG_IGN)

let options: BridgeOptions
let credentials: Credentials?
do {
    options = try BridgeOptions.parse(Array(CommandLine.arguments.dropFirst()))
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
    credentials = try Credentials.load(path: options.credentialsPath, environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("sealtrust-mqtt: \(error.message)\n".utf8))
    exit(2)
}

mosquitto_lib_init()
let notifier = SystemdNotifier.fromEnvironment()
let work: Task<Void, Never>
switch options.command {
case .watch:
    let watch = FleetWatch(prefix: options.topicPrefix)
    let link = BrokerLink(settings: FleetWatch.settings(options, credentials: credentials), observer: watch)
    link.start()
    work = Task.detached {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
        await link.stop()
    }
default:
    let bridge: Bridge
    do {
        bridge = try Bridge(options: options, credentials: credentials, notifier: notifier)
    } catch {
        LogLine.error(error.message)
        exit(1)
    }
    notifier?.send("READY=1")
    work = Task.detached { await bridge.run() }
}

Task.detached {
    await work.value
    exit(0)
}

while true {
    var received: Int32 = 0
    guard sigwait(&handledSignals, &received) == 0 else { continue }
    if received == SIGHUP { continue }
    notifier?.send("STOPPING=1")
    work.cancel()
}
