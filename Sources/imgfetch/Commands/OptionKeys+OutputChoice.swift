import ArgumentKit
import ImageFetch

/// `-f auto`'s candidates and the placeholders (get and prefetch).
extension OptionKeys {
    static let accept: TextKey = .value("accept", valueName: "LIST", help: "With -f auto: the formats tried (comma-separated: \(AutoFormat.acceptable.map(\.rawValue).joined(separator: ", "))); the smallest that keeps the picture's transparency wins. Default: webp and jpeg, or webp and png for a picture with transparency. Never the HTTP Accept header.", defaultDescription: "webp,jpeg (png with transparency)")
    static let placeholder: TextKey = .value("placeholder", valueName: "LIST", help: "Also compute blurhash, thumbhash or both (comma-separated) from the image, for --json (\"blurhash\", \"thumbhash\", \"average_color\"); kept in the cache entry, so a hit does not decode. Not part of the cache key.", completion: .choices(["blurhash", "thumbhash", "blurhash,thumbhash"]))
}

extension Specs {
    /// `-f auto`'s candidates and the placeholders (get and prefetch).
    static let outputChoice = OptionSpec.list(
        OptionKeys.accept, OptionKeys.placeholder)
}
