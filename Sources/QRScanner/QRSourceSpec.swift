/// Where frames come from.
public enum QRSourceSpec: Sendable, Hashable {
    /// A V4L2 camera; nil: the first capture device, when one appears.
    case camera(device: String?)
    /// A YUV4MPEG2 stream: a regular file, a FIFO, or "-" for stdin.
    case y4m(path: String)

    /// The name events carry: "camera:/dev/video0", "camera" while no device is chosen, "y4m:PATH".
    public var id: String {
        switch self {
        case .camera(let device): device.map { "camera:\($0)" } ?? "camera"
        case .y4m(let path): "y4m:\(path)"
        }
    }
}
