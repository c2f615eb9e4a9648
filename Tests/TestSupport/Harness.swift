/// Every suite that imports TestSupport also gets the tools' launchers (sandbox API, virtual tag, private pcscd),
/// which live outside Tests/ because the benchmarks use them too.
@_exported import Harness
