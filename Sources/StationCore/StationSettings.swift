import DaemonConfiguration
import SealTrustKit

/// What SIGHUP may change without a restart, as the station's rules read it.
struct StationSettings: Sendable {
    var options: DaemonOptions
    var texts: ScreenTexts
    var messages: StationMessages

    init(options: DaemonOptions) {
        self.options = options
        texts = options.language == .fr ? .french : .english
        messages = .forLanguage(options.language)
    }
}
