import ArgumentKit
import ImageFetch

/// The remote cache tier's settings from the command line and the environment, for every command
/// that has `--remote-cache` (and `--s3-endpoint`): the option wins over `IMGFETCH_REMOTE_CACHE`;
/// AWS credentials come only from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`
/// and `AWS_REGION`; https trusts what the origin would (`CURL_CA_BUNDLE`, `SSL_CERT_FILE`, ...,
/// and `--cacert`, `--capath`, `-k` on the commands that have them).
enum RemoteSettings {
    /// nil when no remote cache is named (neither the option nor the variable, or an empty one).
    static func parse(_ parsed: ParsedCommand, environment: (String) -> String?,
                      tls: TLSOptions? = nil) -> RemoteStoreSettings? {
        func env(_ name: String) -> String? {
            guard let v = environment(name), !v.isEmpty else { return nil }
            return v
        }
        guard let url = parsed.value("remote-cache").flatMap({ $0.isEmpty ? nil : $0 }) ?? env("IMGFETCH_REMOTE_CACHE") else {
            return nil
        }
        return RemoteStoreSettings(
            url: url, s3Endpoint: parsed.value("s3-endpoint"), accessKeyID: env("AWS_ACCESS_KEY_ID"),
            secretAccessKey: env("AWS_SECRET_ACCESS_KEY"), sessionToken: env("AWS_SESSION_TOKEN"), region: env("AWS_REGION"),
            tls: tls ?? TLSOptions.resolve(cacert: nil, capath: nil, insecure: false, environment: environment))
    }

    /// The store the settings name; a URL, endpoint or credential that cannot be used is a usage error.
    static func store(_ settings: RemoteStoreSettings, commandPath: [String]) throws(UsageError) -> any RemoteStoring {
        do { return try RemoteStores.make(settings) } catch {
            let text: String = if case .invalidSource(let message) = error { message } else { "remote cache: \(error)" }
            throw UsageError(text, commandPath: commandPath)
        }
    }
}
