import FoundationEssentials
import HandheldScanner
import Logging
import SealTrustKit
import StationWire

/// Why a value was refused, in words for the one-line error.
struct BadValue: Error {
    let reason: String
}

/// The configuration file's keys: daemon.md's long flags without `--`.
public enum ConfigurationKey: String, CaseIterable, Sendable {
    case socket
    case apiBase = "api-base"
    case publicAPIBase = "public-api-base"
    case apiTimeout = "api-timeout"
    case apiProxy = "api-proxy"
    case apiCA = "api-ca"
    case apiKeepalive = "api-keepalive"
    case apiRateWindow = "api-rate-window"
    case nfc
    case camera
    case feedback
    case journal
    case station
    case host
    case lang
    case texts
    case latitude
    case longitude
    case tier
    case tokenFile = "token-file"
    case rescanAfter = "rescan-after"
    case scanner
    case scannerKeymap = "scanner-keymap"
    case maxClients = "max-clients"
    case clientQueue = "client-queue"
    case journalMaxBytes = "journal-max-bytes"
    case journalMaxAge = "journal-max-age"
    case logLevel = "log-level"
    case onAPIOutage = "on-api-outage"
    case deferMaxAge = "defer-max-age"
    case lane

    var isRepeatable: Bool { self == .host || self == .scanner || self == .camera || self == .lane }

    /// A value the configuration file gives, with a relative path made the file's folder's: under systemd the working
    /// directory is /, and `texts = texts.json` beside scand.conf means that file. A flag's path stays as given.
    func anchoring(_ value: String, in folder: String) -> String {
        func anchored(_ path: String) -> String {
            path.isEmpty || path.hasPrefix("/") ? path : (folder.hasSuffix("/") ? folder : folder + "/") + path
        }
        switch self {
        case .socket, .journal, .tokenFile, .texts, .apiCA: return anchored(value)
        case .camera where value.hasPrefix("y4m:") && value.count > 4: return "y4m:" + anchored(String(value.dropFirst(4)))
        case .lane:
            // `lane NAME = SOURCE, ...`: each source as `camera` takes it, a stream's relative path the file's folder's.
            guard let equals = value.firstIndex(of: "=") else { return value }
            let sources = value[value.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false).map { part in
                let source = ConfigurationKey.unquoted(part.trimmingWhitespace())
                return source.hasPrefix("y4m:") ? ConfigurationKey.camera.anchoring(source, in: folder) : source
            }
            return value[..<equals] + "=" + sources.joined(separator: ",")
        default: return value
        }
    }

    func apply(_ value: String, to options: inout DaemonOptions) throws(BadValue) {
        switch self {
        case .socket: options.socketPath = try Self.path(value)
        case .journal: options.journalPath = try Self.path(value)
        case .tokenFile: options.tokenFile = try Self.path(value)
        case .texts: options.textsFile = try Self.path(value)
        case .apiBase: options.apiBase = try Self.httpURL(value)
        case .publicAPIBase: options.publicAPIBase = try Self.httpURL(value)
        case .apiTimeout: options.apiTimeout = try Self.number(value, in: 0.1...300, "seconds")
        case .apiProxy: options.apiProxy = value == "none" ? nil : try Self.proxyURL(value)
        case .apiCA: options.apiCAFile = try Self.path(value)
        case .apiKeepalive: options.apiKeepalive = try Self.number(value, in: 1...3600, "seconds")
        case .apiRateWindow: options.apiRateWindow = try Self.number(value, in: 0.1...60, "seconds")
        case .nfc:
            switch value {
            case "auto": options.nfc = .auto
            case "none": options.nfc = .none
            case "": throw BadValue(reason: "expected auto, none or part of a reader's name")
            default: options.nfc = .matching(value)
            }
        case .camera:
            // `parse` empties the default before the first `camera`, and refuses `none` beside another.
            let camera: DaemonOptions.CameraSelection
            switch value {
            case "auto": camera = .auto
            case "none": return
            case let path where path.hasPrefix("y4m:") && path.count > 4: camera = .y4m(String(path.dropFirst(4)))
            case let device where device.hasPrefix("/"): camera = .device(device)
            default: throw BadValue(reason: "expected auto, none, a device path such as /dev/video0, or y4m:PATH")
            }
            // Two sources on one device would fight over it, and give every scan twice.
            guard !options.cameras.contains(camera) else { throw BadValue(reason: "this camera is already named") }
            options.cameras.append(camera)
        case .lane:
            let lane = try Lane(parsing: value)
            if let other = options.lanes.first(where: { $0.name == lane.name }) {
                throw BadValue(reason: "lane \(other.name) is already defined; list all its sources on one line")
            }
            for source in lane.sources {
                if let other = options.lanes.first(where: { $0.sources.contains(source) }) {
                    throw BadValue(reason: "\(source) is already in lane \(other.name): a source belongs to one lane at most")
                }
            }
            options.lanes.append(lane)
        case .feedback:
            switch value {
            case "auto": options.feedback = true
            case "none": options.feedback = false
            default: throw BadValue(reason: "expected auto or none")
            }
        case .station:
            guard !value.isEmpty else { throw BadValue(reason: "the station needs a name") }
            // The name goes into every event, the status line and the bridges' topics and pages.
            guard !TerminalText.containsControl(value) else { throw BadValue(reason: "the station's name has a control character") }
            options.station = value
        case .host: options.extraHosts.append(try Self.hostName(value))
        case .lang:
            guard let language = DaemonOptions.Language(rawValue: value) else { throw BadValue(reason: "expected en or fr") }
            options.language = language
        case .latitude: options.latitude = try Self.number(value, in: -90...90, "degrees")
        case .longitude: options.longitude = try Self.number(value, in: -180...180, "degrees")
        case .tier:
            guard let tier = AccessTier(rawValue: value) else {
                throw BadValue(reason: "expected one of \(AccessTier.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            options.tier = tier
        case .rescanAfter: options.rescanAfter = try Self.number(value, in: 0...3_600, "seconds")
        case .scanner:
            let spec: ScannerSpec
            do {
                spec = try ScannerSpec(parsing: value)
            } catch {
                throw BadValue(reason: error.description)
            }
            guard !options.scanners.contains(where: { $0.id == spec.id }) else {
                throw BadValue(reason: "\(spec.id) is already named")
            }
            options.scanners.append(spec)
        case .scannerKeymap:
            guard let layout = KeymapLayout(rawValue: value) else { throw BadValue(reason: "expected us, de or fr") }
            options.scannerKeymap = layout
        case .maxClients: options.maxClients = try Self.count(value, in: 1...65_536)
        case .clientQueue: options.clientQueueBytes = try Self.count(value, in: 65_536...(1 << 30))
        case .journalMaxBytes: options.journalMaxBytes = try Self.count(value, in: (1 << 20)...(1 << 40))
        case .journalMaxAge: options.journalMaxAgeDays = try Self.number(value, in: 0.001...36_500, "days")
        case .onAPIOutage:
            guard let outage = DaemonOptions.APIOutage(rawValue: value) else { throw BadValue(reason: "expected fail or defer") }
            options.onAPIOutage = outage
        case .deferMaxAge: options.deferMaxAgeHours = try Self.number(value, in: 0.001...720, "hours")
        case .logLevel:
            guard let level = LogLevel(rawValue: value) else { throw BadValue(reason: "expected error, warning, info or debug") }
            options.logLevel = level
        }
    }

    /// `"a b"` or `'a b'` as `a b`: how people write a value with a space in a file.
    static func unquoted(_ value: String) -> String {
        guard value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first else { return value }
        return String(value.dropFirst().dropLast())
    }

    private static func path(_ value: String) throws(BadValue) -> String {
        guard !value.isEmpty else { throw BadValue(reason: "expected a path") }
        return value
    }

    /// The scheme is case-insensitive (RFC 3986): it is kept in lower case, the form URLSession and the client compare.
    private static func httpURL(_ value: String) throws(BadValue) -> URL {
        guard var components = URLComponents(string: value), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else { throw BadValue(reason: "expected an http or https URL such as https://api.sealtrust.io") }
        components.scheme = scheme
        guard let url = components.url else { throw BadValue(reason: "expected an http or https URL such as https://api.sealtrust.io") }
        return url
    }

    /// An HTTP proxy as `HTTPS_PROXY` usually holds it: `http://host:port`, or `host:port` meaning http.
    static func proxyURL(_ value: String) throws(BadValue) -> URL {
        let written = value.contains("://") ? value : "http://\(value)"
        guard let url = URL(string: written), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else { throw BadValue(reason: "expected none or a proxy's address such as http://proxy.example:3128") }
        return url
    }

    private static func hostName(_ value: String) throws(BadValue) -> String {
        let allowed = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
        guard !value.isEmpty, value.utf8.allSatisfy(allowed) else {
            throw BadValue(reason: "expected a host name such as brand.example, without scheme, port or path")
        }
        return value
    }

    /// Every number has a range: past it, a value would overflow a conversion later (to a Duration, an Int64).
    private static func number(_ value: String, in range: ClosedRange<Double>, _ unit: String) throws(BadValue) -> Double {
        guard let number = Double(value), range.contains(number) else {
            throw BadValue(reason: "expected \(unit) from \(shown(range.lowerBound)) to \(shown(range.upperBound))")
        }
        return number
    }

    private static func count(_ value: String, in range: ClosedRange<Int>) throws(BadValue) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw BadValue(reason: "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// 300 rather than 300.0; 0.1 as it is.
    private static func shown(_ bound: Double) -> String {
        bound == bound.rounded() ? String(Int(bound)) : String(bound)
    }
}
