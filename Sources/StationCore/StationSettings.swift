import DaemonConfiguration
import SealTrustKit
import Sentences

/// What SIGHUP may change without a restart, as the station's rules read it. A class: every scan's call holds the
/// settings it was taken under, and a day's deferred scans would otherwise each hold a copy of over a kilobyte.
final class StationSettings: Sendable {
    let options: DaemonOptions
    let texts: ScreenTexts
    let messages: NoVerdictTexts
    /// Each source's lane, by the id events give it; a lane is set at start (a reload keeps the running ones).
    let laneBySource: [String: String]

    init(options: DaemonOptions) {
        self.options = options
        let replaced = options.sentences.replacing(in: options.language.rawValue)
        texts = (options.language == .fr ? ScreenTexts.french : .english).replacing(replaced)
        messages = (options.language == .fr ? NoVerdictTexts.french : .english).replacing(replaced)
        laneBySource = options.laneBySource
    }
}
