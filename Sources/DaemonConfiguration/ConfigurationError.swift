import Logging
import StationWire

/// A problem with the command line or the configuration file, already worded as the one line stderr shows.
public struct ConfigurationError: Error, Sendable, Equatable {
    public let message: String

    /// The message quotes the file and the command line: their control characters are shown escaped.
    public init(message: String) {
        self.message = TerminalText.escaped(message)
    }
}
