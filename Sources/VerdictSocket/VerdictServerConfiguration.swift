public struct VerdictServerConfiguration: Sendable {
    public var path: String
    /// A listening socket passed by systemd; used as is, and its file is left in place on stop.
    public var inheritedDescriptor: Int32?
    public var maxClients: Int
    /// A client's pending output before it is disconnected.
    public var clientQueueBytes: Int

    public init(
        path: String = "/run/sealtrust-scand/scand.sock", inheritedDescriptor: Int32? = nil, maxClients: Int = 256,
        clientQueueBytes: Int = 4_194_304
    ) {
        self.path = path
        self.inheritedDescriptor = inheritedDescriptor
        self.maxClients = maxClients
        self.clientQueueBytes = clientQueueBytes
    }
}
