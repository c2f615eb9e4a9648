/// An event `Journal.write` put in the file and did not yet make durable: `Journal.commit` makes it so (or undoes
/// it). Until then it is not counted in `lastSeq`, and no reader is given it.
public struct WrittenEvent: Sendable {
    public let event: JournaledEvent
    let descriptor: Int32
    let path: String
}
