/// Returns once the calling task is cancelled: the body of a service whose work happens elsewhere (on its own thread).
public func waitForCancellation() async {
    let neverOpened = Latch()
    await neverOpened.wait()
}
