extension String {
    /// Each scalar `replacements` names replaced by its text, and other control characters dropped: the one shape of
    /// the page's and the metrics' escaping, whose texts may come from a USB descriptor or a tag.
    func replacingScalars(_ replacements: [Unicode.Scalar: String]) -> String {
        var replaced = ""
        for scalar in unicodeScalars {
            if let replacement = replacements[scalar] {
                replaced += replacement
            } else if scalar.properties.generalCategory != .control {
                replaced.unicodeScalars.append(scalar)
            }
        }
        return replaced
    }
}
