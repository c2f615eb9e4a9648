import DaemonConfiguration
import SealTrustKit

/// What SIGHUP may change without a restart, as the station's rules read it.
struct StationSettings: Sendable {
    var options: DaemonOptions
    var texts: ScreenTexts
    var messages: StationMessages
    /// Each source's lane, by the id events give it; a lane is set at start (a reload keeps the running ones).
    let laneBySource: [String: String]

    init(options: DaemonOptions) {
        self.options = options
        let replaced = options.sentences.replacing(in: options.language.rawValue)
        texts = (options.language == .fr ? ScreenTexts.french : .english).replacing(replaced)
        messages = StationMessages.forLanguage(options.language).replacing(replaced)
        laneBySource = options.laneBySource
    }
}
