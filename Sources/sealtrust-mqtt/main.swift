import Lifecycle
import MQTTBridge

// Before any thread starts, as in sealtrust-scand: SIGTERM, SIGINT and SIGHUP are then taken by the service group's
// signal thread only.
SignalWatcher.blockSignals()
BridgeCommand.run(arguments: Array(CommandLine.arguments.dropFirst()))
