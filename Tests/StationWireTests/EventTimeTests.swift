import StationWire
import Testing

/// RFC 3339 times read once for every program: an event's `at`, the API's times with their offsets.
struct EventTimeTests {
    @Test func timesAreReadWithTheirOffsets() {
        let written = EventTime.milliseconds("2026-12-07T10:00:00.000Z")
        #expect(written == 1_796_637_600_000)
        #expect(EventTime.milliseconds("1970-01-01T00:00:00Z") == 0)
        #expect(EventTime.milliseconds("2026-12-07T10:00:00.5Z") == 1_796_637_600_500)
        #expect(EventTime.milliseconds("2026-12-07T10:00:00.123456789z") == 1_796_637_600_123)
        #expect(EventTime.milliseconds("2026-12-07T11:00:00+01:00") == written, "the same instant")
        #expect(EventTime.milliseconds("2026-12-07t07:30:00-02:30") == written)
    }

    @Test func anythingElseIsNoTime() {
        for bad in ["", "2026-12-07 10:00:00Z", "2026-13-07T10:00:00Z", "2026-12-07T10:00:00.Z", "2026-12-07T10:00:00",
                    "2026-12-07T10:00:00+0100", "2026-12-07T10:00:00+24:00", "+026-12-07T10:00:00Z", "２０２６-12-07T10:00:00Z",
                    "2026-12-07T10:0٣:00Z", "2026-12-07T10:00:00Zjunk", "2026-12-07T10:00:00.1234567890Z"] {
            #expect(EventTime.milliseconds(bad) == nil, "\(bad)")
        }
    }
}
