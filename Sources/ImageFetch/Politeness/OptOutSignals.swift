/// The opt-out signals a response's headers carry, read for a run that builds a dataset:
/// `X-Robots-Tag` (`noai`, `noimageai`, `noml`, `noindex`, `noimageindex`, for every agent or
/// scoped to the run's product token: `imgfetch: noai`), TDMRep's `tdm-reservation: 1` (W3C TDMRep
/// CG final report), and `Content-Usage` (draft-ietf-aipref-attach-05, vocabulary
/// draft-ietf-aipref-vocab-08).
public enum OptOutSignals {
    /// The X-Robots-Tag directives that opt an image out (img2dataset's defaults and `noml`).
    public static let robotsTagDirectives: Set<String> = ["noai", "noimageai", "noml", "noindex", "noimageindex"]

    /// The first X-Robots-Tag directive of `headers` that opts out for `agent`, as `X-Robots-Tag: D`.
    public static func robotsTag(_ headers: HTTPHeaders, agent: String) -> String? {
        for header in headers.all where header.name.lowercased() == "x-robots-tag" {
            var value = Substring(header.value.prefix(4096))
            // `AGENT: directives`: a product token before the first colon scopes the field to it.
            if let colon = value.firstIndex(of: ":") {
                let scope = value[..<colon].trimmingSpaces.lowercased()
                let isToken = !scope.isEmpty && scope.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 || $0 == 95 }
                if isToken, !robotsTagDirectives.contains(scope), !knownDirectivesWithValue.contains(scope) {
                    guard RobotsTxt.productToken(scope) == agent else { continue }
                    value = value[value.index(after: colon)...]
                }
            }
            for directive in value.split(separator: ",") {
                let word = directive.trimmingSpaces.lowercased()
                if robotsTagDirectives.contains(word) { return "X-Robots-Tag: \(word)" }
            }
        }
        return nil
    }

    /// Directives written `name: value` (never an agent's scope).
    static let knownDirectivesWithValue: Set<String> = ["unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"]

    /// TDMRep's header: true for `tdm-reservation: 1`, false for `0`, nil when absent or another value.
    public static func tdmReservation(_ headers: HTTPHeaders) -> Bool? {
        switch headers["tdm-reservation"]?.trimmingSpaces {
        case "1": true
        case "0": false
        default: nil
        }
    }

    /// The usage categories of the vocabulary (draft-ietf-aipref-vocab-08 §3), each with the
    /// broader one it is part of: `train-genai` within `train-ai` within `bots` (automated processing).
    public static let broader: [String: String] = ["train-genai": "train-ai", "train-ai": "bots", "search": "bots"]

    /// How a Content-Usage preference (an RFC 9651 dictionary) resolves for `category`: `n` (opted
    /// out), `y`, or nil (nothing said for it or a broader category). Unknown keys and values are
    /// ignored; `malformed` is true when the field does not parse (then nothing is said).
    public static func usage(_ field: String, category: String) -> (denied: Bool?, malformed: Bool) {
        guard let dictionary = StructuredDictionary(field) else { return (nil, true) }
        var current: String? = category
        while let key = current {
            if case .token(let value)? = dictionary[key], value == "y" || value == "n" { return (value == "n", false) }
            current = broader[key]
        }
        return (nil, false)
    }
}
