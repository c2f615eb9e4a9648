import Foundation

/// `socket-bench`: the fan-out and memory benchmark of the verdict socket.
/// `socket-bench [SUBSCRIBERS [EVENTS [INTERVAL_MS]]]`, by default 1,000 subscribers, 500 events, one every 20 ms.
/// `socket-bench serve SOCKET JOURNAL` is the server side it runs in a child process.
let arguments = CommandLine.arguments
if arguments.count == 4 && arguments[1] == "serve" {
    BenchServer.run(socketPath: arguments[2], journalPath: arguments[3])
} else {
    let numbers = arguments.dropFirst().map { Int($0) }
    let subscribers = numbers.count > 0 ? numbers[0] ?? 1_000 : 1_000
    let events = numbers.count > 1 ? numbers[1] ?? 500 : 500
    let interval = numbers.count > 2 ? numbers[2] ?? 20 : 20
    exit(FanOutBench(subscribers: subscribers, events: events, intervalMilliseconds: interval).run())
}
