/// MQTT's framing, for the test brokers: a fixed header, a variable-length "remaining length", the rest.
enum MQTTPackets {
    /// Takes every whole packet off the front of `pending`, leaving a partial one there.
    static func take(from pending: inout [UInt8]) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var start = 0
        while pending.count - start >= 2 {
            var length = 0
            var multiplier = 1
            var index = start + 1
            while index < pending.count {
                length += Int(pending[index] & 0x7F) * multiplier
                multiplier *= 128
                if pending[index] & 0x80 == 0 { break }
                index += 1
            }
            guard index < pending.count, pending.count >= index + 1 + length else { break }
            packets.append(Array(pending[start..<(index + 1 + length)]))
            start = index + 1 + length
        }
        pending.removeFirst(start)
        return packets
    }

    /// The body after the fixed header.
    static func body(of packet: [UInt8]) -> ArraySlice<UInt8> {
        var index = 1
        while packet[index] & 0x80 != 0 { index += 1 }
        return packet[(index + 1)...]
    }

    /// A QoS 1 PUBLISH's packet id.
    static func qos1PacketID(of packet: [UInt8]) -> (UInt8, UInt8)? {
        guard packet[0] >> 4 == 3, (packet[0] >> 1) & 0x03 == 1 else { return nil }
        let body = body(of: packet)
        let topicLength = Int(body[body.startIndex]) << 8 | Int(body[body.startIndex + 1])
        let id = body.startIndex + 2 + topicLength
        return (body[id], body[id + 1])
    }

    /// The `"seq":N` of an event in a QoS 1 PUBLISH, nil for any other packet.
    static func eventSeq(of packet: [UInt8]) -> UInt64? {
        guard qos1PacketID(of: packet) != nil else { return nil }
        let marker = Array(#""seq":"#.utf8)
        guard let start = packet.firstRange(of: marker)?.upperBound else { return nil }
        return UInt64(String(decoding: packet[start...].prefix { (0x30...0x39).contains($0) }, as: UTF8.self))
    }

    static func puback(_ id: (UInt8, UInt8)) -> [UInt8] { [0x40, 0x02, id.0, id.1] }
}
