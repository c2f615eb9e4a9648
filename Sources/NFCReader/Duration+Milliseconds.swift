import Dispatch
import POSIXSupport

extension Duration {
    var dispatchInterval: DispatchTimeInterval { .milliseconds(Int(roundedUpMilliseconds)) }
}
