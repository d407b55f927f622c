// PLACEHOLDER (remote-core branch): the remote-transport branch owns this file and its real
// `make` (HTTPRemoteStore for http/https and s3://). Replaced by that one at merge.
public enum RemoteStores {}

extension RemoteStores {
    /// The store `settings` name. This build has no transport: always a usage problem.
    public static func make(_ settings: RemoteStoreSettings) throws(FetchError) -> any RemoteStoring {
        throw .invalidSource("remote cache: not available in this build")
    }
}
