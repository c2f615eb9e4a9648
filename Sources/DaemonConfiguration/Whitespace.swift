extension StringProtocol {
    /// Without its leading and trailing white space (blanks, tabs, CR, line ends): what a person typed around a value
    /// in a file is not part of it.
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return String(self[first...last])
    }
}
