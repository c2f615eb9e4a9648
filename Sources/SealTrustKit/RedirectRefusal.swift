import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Refuses every HTTP redirect, so that a 3xx comes back as an answer: a
/// followed redirect would send a chip URL a second time, elsewhere.
final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
