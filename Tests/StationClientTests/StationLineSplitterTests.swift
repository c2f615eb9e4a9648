@testable import StationClient
import Testing

/// How the client cuts the daemon's stream into lines (fuzz/station-lines checks the same on any bytes).
@Suite(.timeLimit(.minutes(1))) struct StationLineSplitterTests {
    @Test func linesAreTheStreamsRunsHoweverItIsCutIntoReads() {
        let stream = Array("{\"type\":\"hello\"}\n\n{\"type\":\"scan\",\"raw\":\"é\"}\npartial".utf8)
        for readSize in [1, 2, 7, stream.count] {
            var splitter = StationLineSplitter(maximumLineBytes: 64)
            var lines: [String] = []
            for start in stride(from: 0, to: stream.count, by: readSize) {
                let taken = splitter.append(stream[start..<min(start + readSize, stream.count)])
                #expect(!taken.tooLong)
                lines += taken.lines
            }
            #expect(lines == ["{\"type\":\"hello\"}", "", "{\"type\":\"scan\",\"raw\":\"é\"}"], "reads of \(readSize)")
        }
    }

    /// A line over the limit ends the connection whether it came in one read or in many; the lines before it in
    /// the same read are still handed on (they were dropped, and a whole long line in one read was taken).
    @Test func aLineOverTheLimitIsRefusedAfterTheLinesBeforeIt() {
        var whole = StationLineSplitter(maximumLineBytes: 8)
        let taken = whole.append(Array("short\n0123456789\nafter\n".utf8))
        #expect(taken.lines == ["short"] && taken.tooLong)

        var unfinished = StationLineSplitter(maximumLineBytes: 8)
        #expect(unfinished.append(Array("ok\n01234567".utf8)) == (["ok"], false))
        #expect(unfinished.append(Array("8".utf8)).tooLong)
    }
}
