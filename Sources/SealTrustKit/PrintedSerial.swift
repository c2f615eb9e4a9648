/// A serial read from a printed label: it names an item but proves nothing
/// about the object in hand, since a photo of the label gives the same string.
public struct PrintedSerial: Sendable, Hashable {
    /// Percent-decoded once, otherwise as printed: the server owns normalisation.
    public let serial: String
    /// The GTIN of a GS1 Digital Link, as printed (no padding, no check-digit rewrite).
    public let gtin: String?
    /// The GS1 lot (`10`), percent-decoded once.
    public let lot: String?
    /// The GS1 consumer product variant (`22`), percent-decoded once.
    public let cpv: String?

    public init(serial: String, gtin: String? = nil, lot: String? = nil, cpv: String? = nil) {
        self.serial = serial
        self.gtin = gtin
        self.lot = lot
        self.cpv = cpv
    }
}
