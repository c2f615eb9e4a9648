import FoundationEssentials
import Glibc
import HandheldScanner
import Logging
import SealTrustKit
import Sentences
import StationWire

/// Everything the command line and the configuration file can set, with daemon.md's defaults.
public struct DaemonOptions: Sendable, Equatable {
    public enum NFCSelection: Sendable, Equatable {
        case auto, none
        case matching(String)
    }

    /// One `--camera`; `none` is no camera at all (`cameras` empty).
    public enum CameraSelection: Sendable, Equatable {
        case auto
        case device(String)
        case y4m(String)
    }

    /// What a chip read gets while the API cannot be reached and its request was never written.
    public enum APIOutage: String, Sendable, CaseIterable {
        /// `failure`, as for any technical error: a buyer at a kiosk is told at once.
        case fail
        /// `deferred`, verified once the API answers: a warehouse clerk goes on receiving.
        case `defer`
    }

    public enum Language: String, Sendable, CaseIterable { case en, fr }

    public var configPath: String?
    public var socketPath = "/run/sealtrust-scand/scand.sock"
    public var apiBase = URL(string: "https://api.sealtrust.io")!
    /// The API's public address, for what a buyer's phone opens (the certificate's PDF); nil: `apiBase`. A relay's
    /// address (`apiBase` behind one) must never reach a buyer.
    public var publicAPIBase: URL?
    public var apiTimeout: Double = 15
    /// The HTTP proxy the API is reached through (`CONNECT`); nil goes direct. Defaults to `HTTPS_PROXY`.
    public var apiProxy: URL?
    /// A PEM file of CA certificates trusted in addition to the system's store.
    public var apiCAFile: String?
    /// Seconds a connection to the API may idle before it is renewed.
    public var apiKeepalive: Double = 20
    /// The window of the client's own per-endpoint limits: the contract's 60 s, shorter only against an API that allows
    /// more (the sandbox of a benchmark).
    public var apiRateWindow: Double = 60
    public var nfc = NFCSelection.auto
    /// Each a QR source of its own, in the order given.
    public var cameras = [CameraSelection.auto]
    /// `--feedback auto`: LED and buzzer on the readers that have them; false is `none`.
    public var feedback = true
    public var journalPath = "/var/lib/sealtrust-scand/journal"
    public var station = DaemonOptions.hostName()
    public var extraHosts: [String] = []
    public var language = Language.en
    /// `texts`: the file of replaced sentences, and what it replaces (read with the configuration, so that a bad file
    /// stops the start, `--check-config` and a reload alike).
    public var textsFile: String?
    public var sentences = SentenceOverrides()
    public var latitude: Double?
    public var longitude: Double?
    public var tier = AccessTier.public
    public var tokenFile: String?
    public var rescanAfter: Double = 2
    /// Handheld scanners, in the order given; none by default.
    public var scanners: [ScannerSpec] = []
    public var scannerKeymap = KeymapLayout.us
    public var maxClients = 256
    public var clientQueueBytes = 4_194_304
    public var journalMaxBytes = 268_435_456
    public var journalMaxAgeDays: Double = 90
    public var logLevel = LogLevel.info
    public var onAPIOutage = APIOutage.fail
    /// A deferred scan older than this ends as `failure`.
    public var deferMaxAgeHours: Double = 24
    /// `lane`, in the order given; a source in none belongs to the station as a whole.
    public var lanes: [Lane] = []

    public init() {}

    /// Coordinates are sent only when both are set.
    public var coordinates: (latitude: Double, longitude: Double)? {
        guard let latitude, let longitude else { return nil }
        return (latitude, longitude)
    }

    /// Each source's lane, by the id events give it.
    public var laneBySource: [String: String] {
        var lanes: [String: String] = [:]
        for lane in self.lanes {
            for source in lane.sources { lanes[source] = lane.name }
        }
        return lanes
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
