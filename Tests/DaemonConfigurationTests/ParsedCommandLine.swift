import DaemonConfiguration
import Testing

/// The options `arguments` run the daemon with (no configuration file); another request fails the test.
func options(_ arguments: [String]) throws -> DaemonOptions {
    let request = try DaemonCommandLine.parse(arguments: arguments, fileExists: { _ in false })
    guard case .run(let options) = request else {
        Issue.record("expected options to run with, got \(request)")
        return DaemonOptions()
    }
    return options
}

/// The one line that refuses `arguments`; nil when they are accepted.
func problem(_ arguments: [String]) -> String? {
    do {
        _ = try DaemonCommandLine.parse(arguments: arguments, fileExists: { _ in false })
        return nil
    } catch {
        return error.message
    }
}
