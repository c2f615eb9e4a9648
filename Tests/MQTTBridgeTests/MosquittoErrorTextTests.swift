@testable import MQTTBridge
import Testing

/// libmosquitto's words for an error end with a full stop; the status and the log go on after them
/// ("The connection was lost; retry in 2 s"), so the stop must not stay in the middle of a line.
@Suite struct MosquittoErrorTextTests {
    @Test func aLostConnectionReadsWithoutAStopInTheMiddleOfTheLine() {
        let lost = MosquittoError(7)  // MOSQ_ERR_CONN_LOST
        #expect(lost.description == "The connection was lost")
        #expect(!"\(lost); retry in 2 s".contains(".;"))
    }
}
