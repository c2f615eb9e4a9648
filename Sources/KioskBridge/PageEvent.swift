import JSONCore
import StationWire

/// What the page's stream (`/events`) carries of a journaled event, and how long it may show it.
///
/// A chip's scan goes without its URL: the URL is a one-time proof until the API has answered it, the stream needs
/// no authentication, and the page needs the verdict, not the proof (outputs.md, "What leaves the machine"). A
/// verdict or a read error is preceded by the time it has left on the screen, from its `at` on the station's clock:
/// one older than the hold (a replay after a restart, events caught up after the daemon came back) is history, and
/// the page never shows it as fresh.
struct PageEvent {
    /// What a stream open now gets: the time left on the screen, then the event.
    let frame: [UInt8]
    /// The event alone, which a page that opens later gets after the time then left.
    let journaled: [UInt8]
    /// How long it is shown from now; nil: it does not change the screen.
    let shownFor: Duration?
    /// The scan it is about: the newest scan's, or a verdict for it.
    let scanID: String?
    /// The lane of the event's source; nil: the station's.
    let lane: String?
    let type: MessageType

    /// `nowMilliseconds`: the station's wall clock, against which `at` is read.
    init(seq: UInt64, type: MessageType, line: String, json: JSON?, hold: Duration, nowMilliseconds: Int64) {
        self.type = type
        scanID = json?["scan_id"]?.stringValue
        // A name no daemon gives is no lane: a page's `?lane=` could never ask for it.
        lane = json?["lane"]?.stringValue.flatMap { LaneName.isValid($0) ? $0 : nil }
        var line = line
        if type == .event(.scan), let json, json["code"] == .string(CodeKind.chip.rawValue), let members = json.objectValue {
            line = JSON.object(members.filter { $0.0 != "raw" } + [("raw_withheld", .bool(true))]).encoded()
        }
        journaled = EventFrame.journaled(seq: seq, type: type.name, line: line)
        let most: Duration? = switch type {
        case .event(.verdict): hold
        case .event(.readError): min(hold, .seconds(4))
        default: nil
        }
        guard let most else {
            frame = journaled
            shownFor = nil
            return
        }
        let age = json?["at"]?.stringValue.flatMap(EventTime.milliseconds).map { max(0, nowMilliseconds - $0) }
        let remaining = age.map { most - .milliseconds($0) } ?? most
        shownFor = remaining > .zero ? min(remaining, most) : nil
        frame = EventFrame.hold(remaining: shownFor ?? .zero) + journaled
    }
}
