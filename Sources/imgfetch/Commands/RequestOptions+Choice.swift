import ArgumentKit
import ImageFetch

/// `-f auto`'s `--accept LIST` and `--placeholder LIST`.
extension RequestOptions {
    /// `--accept avif,webp,jpeg`: the candidates of `-f auto` (nil: the default ones). Only with `-f auto`.
    static func accept(_ parsed: ParsedCommand, format: ImageFormat) throws(UsageError) -> [ImageFormat]? {
        guard let text = parsed[OptionKeys.accept] else { return nil }
        guard format == .auto else { throw UsageError("--accept names the candidates of -f auto: add -f auto") }
        let names = AutoFormat.acceptable.map(\.rawValue).joined(separator: ", ")
        var formats: [ImageFormat] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = item.trimmedItem
            guard let format = ImageFormat(name: name), AutoFormat.acceptable.contains(format) else {
                throw UsageError("invalid value '\(text)' for '--accept': '\(name)' is not one of \(names)")
            }
            formats.append(format)
        }
        return AutoFormat.normalized(formats)
    }

    /// `-f auto` chooses the format per image: an `-o FILE` whose extension names one contradicts it.
    static func checkAuto(_ format: ImageFormat, outputPath: String?) throws(UsageError) {
        guard format == .auto, let outputPath, let named = try RequestOptions.format(ofOutput: outputPath) else { return }
        throw UsageError("'-o \(outputPath)' names the format (\(named.rawValue)) and -f auto chooses one per image: drop the extension, or give -f \(named.rawValue)")
    }

    /// `--placeholder blurhash,thumbhash` (either or both).
    static func placeholders(_ parsed: ParsedCommand) throws(UsageError) -> Set<PlaceholderKind> {
        guard let text = parsed[OptionKeys.placeholder] else { return [] }
        var kinds = Set<PlaceholderKind>()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = item.trimmedItem
            guard let kind = PlaceholderKind(rawValue: name.lowercased()) else {
                throw UsageError("invalid value '\(text)' for '--placeholder': expected blurhash, thumbhash or both (comma-separated)")
            }
            kinds.insert(kind)
        }
        return kinds
    }
}

extension Substring {
    fileprivate var trimmedItem: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
