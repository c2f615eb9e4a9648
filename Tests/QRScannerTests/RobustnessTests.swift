import CZBar
import Foundation
import QRScanner
import Testing

@Suite("The decoder on the robustness set")
struct RobustnessTests {
    @Test func noWrongPayloadEveryCleanCodeAndNoFewerThanZbarsDefault() throws {
        let set = Fixtures.robustness
        #expect(set.count == 72)
        let decoder = QRFrameDecoder()
        var ours = 0, zbarDefault = 0
        for (url, expected, description) in set {
            let image = try #require(GreyImage(contentsOf: url))
            let payloads = image.pixels.withUnsafeBufferPointer { decoder.decode(luma: $0, width: image.width, height: image.height) }
            #expect(payloads.allSatisfy { $0 == expected }, "\(description): a payload that is not the one printed")
            if payloads.contains(expected) { ours += 1 }
            if zbarDefaultDecodes(image).contains(expected) { zbarDefault += 1 }
            // Undamaged codes with modules of 3 px or more are always read.
            let clean = description.split(separator: "-").count == 2 && !description.hasPrefix("m2-")
            if clean {
                #expect(payloads == [expected], "\(description) was not read")
            }
        }
        #expect(ours >= zbarDefault, "ours \(ours) of \(set.count), libzbar's default \(zbarDefault)")
    }
}
