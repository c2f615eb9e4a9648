import JSONCore

/// A `texts` file (sealtrust-texts(5)): sentences replaced by id, each language on its own, as the seed SDK's screens
/// allow: `{"en": {"authentic": "Genuine."}, "fr": {...}}`. What the file does not name keeps its standard sentence.
public struct SentenceOverrides: Sendable, Hashable {
    /// By language (`en`, `fr`).
    public private(set) var sentences: [String: [SentenceID: String]] = [:]

    public static let languages = ["en", "fr"]
    /// The most a file may hold: a replaced sentence set is a few KiB, and /dev/zero must not be read for ever.
    public static let largestFile = 256 * 1024
    /// The longest sentence: a screen shows a few lines.
    public static let longestSentenceBytes = 1_000

    public init() {}

    /// The replaced sentences of `language`.
    public func replacing(in language: String) -> [SentenceID: String] {
        sentences[language] ?? [:]
    }

    /// Why a file is refused, naming what is wrong (an unknown id by its name).
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public static func read(_ bytes: [UInt8]) throws(Refusal) -> SentenceOverrides {
        guard bytes.count <= largestFile else { throw Refusal(description: "over \(largestFile / 1024) KiB") }
        let file: JSON
        do throws(JSONFile.Problem) {
            file = try JSONFile.parse(bytes)
        } catch {
            throw Refusal(description: error.description)
        }
        guard let languages = file.objectValue else {
            throw Refusal(description: "not a JSON object of languages ({\"en\": {...}, \"fr\": {...}})")
        }
        var overrides = SentenceOverrides()
        for (language, members) in languages {
            guard Self.languages.contains(language) else {
                throw Refusal(description: "unknown language \(JSON.string(language).encoded()) (en or fr)")
            }
            // JSON keeps a repeated name; which of two sentences was meant, the file does not say.
            guard overrides.sentences[language] == nil else { throw Refusal(description: "\(language) is given twice") }
            guard let members = members.objectValue else {
                throw Refusal(description: "\(language) must be an object of sentences by id")
            }
            var replaced: [SentenceID: String] = [:]
            for (key, value) in members {
                guard let id = SentenceID(rawValue: key) else {
                    throw Refusal(description: "unknown sentence id \(JSON.string(key).encoded()) in \(language) (sealtrust-texts(5) lists them)")
                }
                guard let sentence = value.stringValue, !sentence.isEmpty, sentence.utf8.count <= longestSentenceBytes else {
                    throw Refusal(description: "\(language).\(key) must be a sentence of 1 to \(longestSentenceBytes) bytes")
                }
                guard !sentence.unicodeScalars.contains(where: isControl) else {
                    throw Refusal(description: "\(language).\(key) holds a control character")
                }
                guard replaced[id] == nil else { throw Refusal(description: "\(language).\(key) is given twice") }
                replaced[id] = sentence
            }
            overrides.sentences[language] = replaced
        }
        return overrides
    }

    /// A file read as `read` does, then refused if it inverts one of `defaults`, the reading program's standard
    /// sentences by language (`SentenceGuard`): what the daemon and the kiosk take.
    public static func read(_ bytes: [UInt8], guardingAgainst defaults: [String: [SentenceID: String]]) throws(Refusal) -> SentenceOverrides {
        let overrides = try read(bytes)
        if let inversion = SentenceGuard.inversion(in: overrides, defaults: defaults) { throw Refusal(description: inversion) }
        return overrides
    }

    /// C0, DEL, C1, and the bidirectional overrides that would reorder what a screen shows after them.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
