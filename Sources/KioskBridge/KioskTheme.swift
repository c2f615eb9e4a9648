import JSONCore
import POSIXSupport

/// The page's colours by name, each replaceable on its own (`--theme FILE`: a JSON object such as
/// `{"good": "#0b6e35", "alert": "#a00018"}`), as the seed SDK's screens allow. Every verdict class keeps a colour of
/// its own: `unavailable` (the station cannot check now) is never `neutral` (not our code).
public struct KioskTheme: Sendable, Equatable {
    public enum Name: String, Sendable, CaseIterable {
        /// A chip's `authentic`.
        case good
        /// `identified`: a printed code names an item and proves nothing about the object in hand. Calm, and never
        /// `good`'s colour.
        case identified
        /// `replay`, `invalid_signature`, a theft report.
        case alert
        /// The other verdicts and a read error.
        case neutral
        /// `failure` and `too_many_calls`.
        case unavailable
        case idle
        case offline
        /// The words on every background.
        case text
        /// The theft banner's border.
        case accent
    }

    public private(set) var colours: [Name: String]

    public static let standard = KioskTheme(colours: [
        .good: "#0a5c2a", .identified: "#3d2c6b", .alert: "#b0001e", .neutral: "#1d3557", .unavailable: "#6b4400", .idle: "#111418",
        .offline: "#3a3a3a", .text: "#ffffff", .accent: "#ffd400",
    ])

    /// The most a theme file may hold: a few lines are plenty, and /dev/zero must not be read for ever.
    static let largestFile = 64 * 1024

    /// The standard colours with those of the file at `path` in their place; an unknown name or a value that is not
    /// `#rgb` or `#rrggbb` is refused with its name.
    public static func read(_ path: String) throws(KioskOptions.Invalid) -> KioskTheme {
        let bytes: [UInt8]
        do throws(Errno) {
            let file = OwnedDescriptor(try FileDescriptor.openForReadingWithoutWaiting(path))
            bytes = try FileDescriptor.read(file.rawValue, upTo: largestFile + 1)
        } catch {
            throw KioskOptions.Invalid(description: "--theme \(printable(path)): cannot read it: \(error)")
        }
        guard bytes.count <= largestFile else { throw KioskOptions.Invalid(description: "--theme \(printable(path)): over 64 KiB") }
        let file: JSON
        do throws(JSONFile.Problem) {
            file = try JSONFile.parse(bytes)
        } catch {
            throw KioskOptions.Invalid(description: "--theme \(printable(path)): \(error.description)")
        }
        guard let members = file.objectValue else {
            throw KioskOptions.Invalid(description: "--theme \(printable(path)): not a JSON object of colours by name")
        }
        var theme = standard
        var given: Set<Name> = []
        for (key, value) in members {
            guard let name = Name(rawValue: key) else {
                let names = Name.allCases.map(\.rawValue).joined(separator: ", ")
                throw KioskOptions.Invalid(description: "--theme \(printable(path)): unknown colour \(printable(key)) (the names: \(names))")
            }
            // JSON keeps a repeated name; which of two colours was meant, the file does not say.
            guard given.insert(name).inserted else {
                throw KioskOptions.Invalid(description: "--theme \(printable(path)): \(key) is given twice")
            }
            guard let colour = value.stringValue, isHexColour(colour) else {
                throw KioskOptions.Invalid(description: "--theme \(printable(path)): \(key) must be #rgb or #rrggbb")
            }
            theme.colours[name] = colour
        }
        if let inversion = theme.inversion {
            throw KioskOptions.Invalid(description: "--theme \(printable(path)): \(inversion)")
        }
        return theme
    }

    /// The backgrounds the words are written on.
    static let backgrounds: [Name] = [.good, .identified, .alert, .neutral, .unavailable, .idle, .offline]

    /// What a theme may not do, whatever the brand's taste: colour an alert or a printed code as the good screen,
    /// or write the words in their background's colour. Nil when it does none of it.
    var inversion: String? {
        func same(_ one: Name, _ other: Name) -> Bool {
            Self.normalised(colours[one] ?? "") == Self.normalised(colours[other] ?? "")
        }
        if same(.alert, .good) { return "alert must not be good's colour: an alert would look like a genuine product" }
        if same(.identified, .good) {
            return "identified must not be good's colour: a printed code proves nothing about the object in hand"
        }
        if let background = Self.backgrounds.first(where: { same(.text, $0) }) {
            return "text must not be \(background.rawValue)'s colour: the words would be invisible on it"
        }
        if same(.accent, .text) || same(.alert, .text) { return "the theft banner needs text, alert and accent apart" }
        return nil
    }

    /// `#rgb` as `#rrggbb`, in lower case.
    static func normalised(_ colour: String) -> String {
        let digits = Array(colour.lowercased().dropFirst())
        return "#" + (digits.count == 3 ? String(digits.flatMap { [$0, $0] }) : String(digits))
    }

    /// Only hex digits reach the page's style sheet: nothing from the file can close the rule or add one.
    static func isHexColour(_ text: String) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.utf8.first == UInt8(ascii: "#") && (digits.count == 3 || digits.count == 6)
            && digits.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The page's `:root` rule.
    var styleRule: String {
        ":root { " + Name.allCases.map { "--\($0.rawValue): \(colours[$0] ?? "")" }.joined(separator: "; ") + "; }"
    }
}
