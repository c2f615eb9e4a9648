/// Text from a device (its name) made safe for a log line or a terminal: control characters become `?`.
func printable(_ text: some StringProtocol, limit: Int = 200) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit).map { scalar in
        scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format ? "?" : scalar
    }))
}
