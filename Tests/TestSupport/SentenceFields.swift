/// Which field of a sentence set each id replaces, found by replacing it: a field no id reaches is a sentence no
/// `texts` file can change, and an id that reaches none or several says something sealtrust-texts(5) does not.
public struct SentenceFields<ID: Hashable> {
    /// The field each id replaced, by name; nil where it replaced none or more than one.
    public let fieldByID: [ID: String?]
    /// Every `String` field of the set, by name.
    public let fields: Set<String>

    public init<Sentences>(of sentences: Sentences, ids: some Sequence<ID>, replacing: (Sentences, [ID: String]) -> Sentences) {
        let standard = Self.strings(sentences)
        fields = Set(standard.map(\.name))
        fieldByID = Dictionary(uniqueKeysWithValues: ids.map { id in
            let replaced = Self.strings(replacing(sentences, [id: "\u{FFFD} replaced"]))
            let changed = zip(standard, replaced).filter { $0.0.text != $0.1.text }.map(\.0.name)
            return (id, changed.count == 1 ? changed[0] : nil)
        })
    }

    /// The fields no id replaces.
    public var unreached: Set<String> {
        fields.subtracting(fieldByID.values.compactMap { $0 })
    }

    private static func strings(_ value: Any) -> [(name: String, text: String)] {
        Mirror(reflecting: value).children.compactMap { child in
            guard let name = child.label, let text = child.value as? String else { return nil }
            return (name, text)
        }
    }
}
