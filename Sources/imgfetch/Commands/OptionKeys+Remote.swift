import ArgumentKit
import ImageFetch

/// The remote cache tier of get and prefetch (see RemoteSettings.swift and man imgfetch, REMOTE CACHE).
extension OptionKeys {
    static let remoteCache: TextKey = .value("remote-cache", valueName: "URL", help: "A remote cache tier behind the local one: http(s)://HOST/PREFIX/ (GET, HEAD, PUT) or s3://BUCKET/PREFIX (SigV4; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION). Only http(s) sources use it. Also IMGFETCH_REMOTE_CACHE.")
    static let s3Endpoint: TextKey = .value("s3-endpoint", valueName: "URL", help: "The S3-compatible endpoint of an s3:// --remote-cache (MinIO, Ceph, R2).", defaultDescription: "https://s3.REGION.amazonaws.com")
    static let remoteCacheMode: ValueKey<String> = .value("remote-cache-mode", valueName: "MODE", help: "read: take hits, never upload; write: upload, never read; read-write: both.", defaultDescription: "read-write", completion: .choices(RemoteCacheMode.allCases.map(\.rawValue)), parser: ValueParsers.oneOf(RemoteCacheMode.allCases.map(\.rawValue)))
    static let remoteCacert: TextKey = .value("remote-cacert", valueName: "FILE", help: "Trust the CA certificates in FILE (PEM) for an https:// remote cache or S3 endpoint, instead of CURL_CA_BUNDLE, SSL_CERT_FILE / SSL_CERT_DIR or the system bundle. --cacert and -k never apply to the remote cache.", completion: .file)
    static let remoteInsecure: FlagKey = .flag("remote-insecure", help: "Do not verify the remote cache's (or S3 endpoint's) certificate or name (warns on stderr every time). Anyone on the path could then serve and receive images for every URL.")
    static let remoteTimeout: ValueKey<Double> = .double("remote-timeout", valueName: "SECONDS", help: "The longest one request to the remote cache may take (at least 1 s), and how long the run waits at its end for queued uploads before abandoning them (with a warning).", defaultDescription: "30", range: 0...86_400)
}

extension Specs {
    /// The remote cache tier of get and prefetch (see RemoteSettings.swift and man imgfetch, REMOTE CACHE).
    static let remoteCache = OptionSpec.list(
        OptionKeys.remoteCache, OptionKeys.s3Endpoint, OptionKeys.remoteCacheMode, OptionKeys.remoteCacert,
        OptionKeys.remoteInsecure, OptionKeys.remoteTimeout)
}
