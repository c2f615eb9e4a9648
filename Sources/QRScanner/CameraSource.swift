import CZBar
import FoundationEssentials
import Glibc

/// Frames from a V4L2 camera through zbar's video API (libv4l2 converts MJPEG and YUYV).
/// Kept thin: no camera exists where the tests run, so everything above it is tested through Y4M.
struct CameraSource: FrameSource {
    /// nil: the first capture device under /dev/video*, when one appears.
    let device: String?
    /// Dates each frame's arrival.
    let now: @Sendable () -> ContinuousClock.Instant
    /// How long it waits before it looks for the camera again.
    var retryInterval: Duration = .seconds(1)

    func run(into sink: some FrameSink) {
        var reportedAbsent = false
        var reportedProblem: String?
        while !sink.isStopped {
            // A named path that is no camera is said once, as an error with its reason, and never handed to libv4l2.
            if let device, case let capability = VideoCapability.of(device), capability != .capture {
                if case .unusable(let reason) = capability, reportedProblem != reason {
                    sink.report(.sourceError(id: QRSourceSpec.camera(device: device).id, detail: reason))
                    reportedProblem = reason
                    reportedAbsent = false
                } else if capability == .missing, !reportedAbsent {
                    sink.report(.sourceAbsent(id: QRSourceSpec.camera(device: device).id))
                    reportedAbsent = true
                    reportedProblem = nil
                }
                Y4MSource.sleep(retryInterval, unless: sink)
                continue
            }
            guard let camera = openCamera() else {
                if !reportedAbsent {
                    sink.report(.sourceAbsent(id: QRSourceSpec.camera(device: device).id))
                    reportedAbsent = true
                }
                Y4MSource.sleep(retryInterval, unless: sink)
                continue
            }
            reportedAbsent = false
            reportedProblem = nil
            let id = QRSourceSpec.camera(device: camera.device).id
            sink.report(.sourceReady(id: id, detail: "\(zbar_video_get_width(camera.video))x\(zbar_video_get_height(camera.video)) V4L2"))
            let gone = stream(from: camera.video, into: sink)
            zbar_video_enable(camera.video, 0)
            zbar_video_destroy(camera.video)
            if let gone {
                sink.report(.sourceRemoved(id: id, detail: gone))
                Y4MSource.sleep(retryInterval, unless: sink)
            }
        }
    }

    /// Returns why the camera stopped giving frames, or nil when the scanner stopped.
    private func stream(from video: OpaquePointer, into sink: some FrameSink) -> String? {
        let start = now()
        while !sink.isStopped {
            guard let image = zbar_video_next_image(video) else {
                return "camera gone: \(Self.errorText(video))"
            }
            let grey = zbar_image_get_format(image) == ZBarFourCC.y800 ? image : zbar_image_convert(image, ZBarFourCC.y800)
            let arrivedAt = now()
            let frame = grey.flatMap { Self.frame(from: $0, at: arrivedAt - start, arrivedAt: arrivedAt) }
            if let grey, grey != image { zbar_image_destroy(grey) }
            zbar_image_destroy(image)
            if let frame, !sink.deliver(frame, live: true) { return nil }
        }
        return nil
    }

    private static func frame(from image: OpaquePointer, at time: Duration, arrivedAt: ContinuousClock.Instant) -> Frame? {
        let width = Int(zbar_image_get_width(image)), height = Int(zbar_image_get_height(image))
        guard let data = zbar_image_get_data(image), Int(zbar_image_get_data_length(image)) >= width * height else { return nil }
        let luma = Array(UnsafeRawBufferPointer(start: data, count: width * height))
        return Frame(width: width, height: height, luma: luma, time: time, arrivedAt: arrivedAt)
    }

    private func openCamera() -> (device: String, video: OpaquePointer)? {
        for candidate in device.map({ [$0] }) ?? Self.videoDevices() {
            guard let video = zbar_video_create() else { return nil }
            if zbar_video_open(video, candidate) == 0,
               zbar_video_init(video, ZBarFourCC.y800) == 0 || zbar_negotiate_format(video, nil) == 0,
               zbar_video_enable(video, 1) == 0 {
                return (candidate, video)
            }
            zbar_video_destroy(video)
        }
        return nil
    }

    /// The capture devices among /dev/video0, /dev/video1, ... in number order (a camera's metadata node is skipped).
    private static func videoDevices() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        return names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("video"), let number = Int(name.dropFirst(5)) else { return nil }
            return (number, "/dev/\(name)")
        }.sorted { $0.0 < $1.0 }.map(\.1).filter { VideoCapability.of($0) == .capture }
    }

    private static func errorText(_ video: OpaquePointer) -> String {
        guard let text = _zbar_error_string(UnsafeRawPointer(video), 0) else { return "no frame" }
        let words = String(cString: text)
        guard let first = words.firstIndex(where: { !$0.isWhitespace }), let last = words.lastIndex(where: { !$0.isWhitespace })
        else { return "no frame" }
        return String(words[first...last])
    }
}
