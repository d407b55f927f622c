/// Which certificates an https request trusts.
///
/// libcurl is loaded with dlopen and reads none of the variables curl's own tool reads, so the
/// precedence of the curl tool is applied here, in one place (`resolve`):
/// `--cacert FILE` > `CURL_CA_BUNDLE` > `SSL_CERT_FILE` (and/or `SSL_CERT_DIR`) > the system bundle
/// libcurl was built with. `--capath DIR` is used with whichever file wins; without `--capath`,
/// `SSL_CERT_DIR` is used when `--cacert` and `CURL_CA_BUNDLE` are not given.
public struct TLSOptions: Sendable, Hashable {
    /// A CA bundle (PEM) to verify servers with; nil = libcurl's default.
    public var caFile: String?
    /// A directory of hashed CA certificates; nil = libcurl's default.
    public var caPath: String?
    /// Verify nothing (`-k`): any certificate, any host name. Default false.
    public var insecure = false

    public init(caFile: String? = nil, caPath: String? = nil, insecure: Bool = false) {
        self.caFile = caFile
        self.caPath = caPath
        self.insecure = insecure
    }

    /// Where the trust comes from, for messages (`the CA file given`, `CURL_CA_BUNDLE`, ...; empty for
    /// the system bundle): never a path or a certificate.
    /// Words for messages, not what is trusted: in no key (`NotCounted`).
    @NotCounted public var origin: String = ""

    /// The settings curl's tool would use, from the options (nil = not given) and the environment.
    /// Empty variables count as unset.
    public static func resolve(cacert: String?, capath: String?, insecure: Bool,
                               environment: (String) -> String?) -> TLSOptions {
        func env(_ name: String) -> String? {
            guard let v = environment(name), !v.isEmpty else { return nil }
            return v
        }
        var tls = TLSOptions(insecure: insecure)
        if let cacert {
            tls.caFile = cacert
            tls.origin = "the CA file given"
        } else if let bundle = env("CURL_CA_BUNDLE") {
            tls.caFile = bundle
            tls.origin = "CURL_CA_BUNDLE"
        } else {
            tls.caFile = env("SSL_CERT_FILE")
            tls.caPath = env("SSL_CERT_DIR")
            tls.origin = [tls.caFile.map { _ in "SSL_CERT_FILE" }, tls.caPath.map { _ in "SSL_CERT_DIR" }]
                .compactMap { $0 }.joined(separator: ", ")
        }
        if let capath {
            tls.caPath = capath
            tls.origin += (tls.origin.isEmpty ? "" : ", ") + "the CA directory given"
        }
        return tls
    }

}
