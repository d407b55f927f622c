import ArgumentKit
import ImageFetch

extension Specs {
    /// The remote cache tier of get and prefetch (see RemoteSettings.swift and man imgfetch, REMOTE CACHE).
    static let remoteCache: [OptionSpec] = [
        .value("remote-cache", valueName: "URL", help: "A remote cache tier behind the local one: http(s)://HOST/PREFIX/ (GET, HEAD, PUT) or s3://BUCKET/PREFIX (SigV4; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION). Only http(s) sources use it. Also IMGFETCH_REMOTE_CACHE."),
        .value("s3-endpoint", valueName: "URL", help: "The S3-compatible endpoint of an s3:// --remote-cache (MinIO, Ceph, R2).", defaultDescription: "https://s3.REGION.amazonaws.com"),
        .value("remote-cache-mode", valueName: "MODE", help: "read: take hits, never upload; write: upload, never read; read-write: both.", defaultDescription: "read-write", completion: .choices(RemoteCacheMode.allCases.map(\.rawValue))),
        .value("remote-timeout", valueName: "SECONDS", help: "The longest one request to the remote cache may take (at least 1 s), and how long the run waits at its end for queued uploads before abandoning them (with a warning).", defaultDescription: "30"),
    ]
}
