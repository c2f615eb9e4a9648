import DaemonConfiguration
import SealTrustKit

/// What SIGHUP may change without a restart, as the station's rules read it.
struct StationSettings: Sendable {
    var options: DaemonOptions
    var texts: ScreenTexts
    var messages: StationMessages

    init(options: DaemonOptions) {
        self.options = options
        let replaced = options.sentences.replacing(in: options.language.rawValue)
        texts = (options.language == .fr ? ScreenTexts.french : .english).replacing(replaced)
        messages = StationMessages.forLanguage(options.language).replacing(replaced)
    }
}
