/// Why a call goes out, for the client's limits: a scan's verdict, or a product read (a `passport` command, which a
/// kiosk page makes by itself after every authentic tap). Product reads never take the slots kept for verdicts, and a
/// 429 one of them gets stops only product reads: a screen's automatic reads must not starve printed codes' verdicts.
public enum CallPurpose: Sendable, Hashable {
    case verdict
    case productRead
}
