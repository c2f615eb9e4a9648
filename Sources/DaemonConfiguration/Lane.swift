import StationWire

/// A lane (daemon.md, `lane NAME = SOURCE[, SOURCE...]`): a group of sources (a reader, a camera, a scanner) that
/// serves one screen of a station with several; the events of its sources carry its name.
public struct Lane: Sendable, Equatable {
    public let name: String
    /// As events name them in `source`: `nfc:<reader>`, `camera:<device>`, `y4m:<path>`, `evdev:<path>`,
    /// `serial:<path>`, `manual`.
    public let sources: [String]

    public init(name: String, sources: [String]) {
        self.name = name
        self.sources = sources
    }

    /// `NAME=SOURCE[,SOURCE...]`, blanks around each part ignored. A device path alone (`/dev/video0`) is the camera
    /// `camera:/dev/video0`, as `--camera` writes it.
    init(parsing text: String) throws(BadValue) {
        guard let equals = text.firstIndex(of: "=") else {
            throw BadValue(reason: "expected NAME=SOURCE[,SOURCE...], such as dock1=nfc:ACS ACR122U 00 00,y4m:/srv/dock1.y4m")
        }
        let name = text[..<equals].trimmingWhitespace()
        guard LaneName.isValid(name) else { throw BadValue(reason: "a lane's name is \(LaneName.rule)") }
        var sources: [String] = []
        for part in text[text.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false) {
            let written = part.trimmingWhitespace()
            guard !written.isEmpty else { throw BadValue(reason: "lane \(name) names no source there: expected SOURCE[,SOURCE...]") }
            let source = written.hasPrefix("/") ? "camera:" + written : written
            guard let problem = Self.formProblem(source) else {
                guard !sources.contains(source) else { throw BadValue(reason: "lane \(name) names \(source) twice") }
                sources.append(source)
                continue
            }
            throw BadValue(reason: "lane \(name): \(problem)")
        }
        self.init(name: name, sources: sources)
    }

    /// Why `source` is no source id at all, or nil.
    private static func formProblem(_ source: String) -> String? {
        guard !source.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return "a source has a control character" }
        if source == "manual" { return nil }
        for prefix in ["nfc:", "camera:", "y4m:", "evdev:", "serial:"] where source.hasPrefix(prefix) {
            return source.count > prefix.count ? nil : "\(source) names no device"
        }
        return "\(source) is not a source: expected nfc:READER, camera:DEVICE, y4m:PATH, evdev:PATH, serial:PATH or manual"
    }

    /// Why `source` can never be seen with `options` (NFC off or filtered out, a camera, stream or scanner not
    /// configured), or nil. A reader is named by pcscd when it is plugged in, so any name passes while NFC is on.
    static func unconfiguredProblem(_ source: String, in options: DaemonOptions) -> String? {
        if source.hasPrefix("nfc:") {
            let reader = source.dropFirst(4)
            switch options.nfc {
            case .none: return "\(source) is a reader, and NFC is off (nfc = none)"
            case .matching(let part) where !reader.contains(part):
                return "\(source) is a reader the daemon leaves alone: nfc = \(part) takes only readers whose name contains it"
            default: return nil
            }
        }
        if source.hasPrefix("camera:") {
            let device = String(source.dropFirst(7))
            guard options.cameras.contains(.auto) || options.cameras.contains(.device(device)) else {
                return "\(source) is not a configured camera (camera = \(device), or auto)"
            }
            return nil
        }
        if source.hasPrefix("y4m:") {
            guard options.cameras.contains(.y4m(String(source.dropFirst(4)))) else {
                return "\(source) is not a configured stream (camera = \(source))"
            }
            return nil
        }
        if source.hasPrefix("evdev:") || source.hasPrefix("serial:") {
            guard options.scanners.contains(where: { $0.id == source }) else {
                return "\(source) is not a configured scanner (scanner = \(source))"
            }
            return nil
        }
        return nil
    }
}
