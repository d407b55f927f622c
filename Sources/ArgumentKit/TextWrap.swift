/// Greedy word wrapping for help output (character counts; help text is ASCII).
enum TextWrap {
    /// Wraps `text` to lines of at most `width` characters. The first line is
    /// prefixed by `firstIndent` spaces, later lines by `indent` spaces.
    /// Existing line breaks are kept; a word longer than the room available
    /// gets a line of its own.
    static func wrap(_ text: String, width: Int, indent: Int = 0, firstIndent: Int? = nil) -> [String] {
        var lines: [String] = []
        var lineIndent = firstIndent ?? indent
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(repeating: " ", count: lineIndent)
            var lineHasWord = false
            for word in paragraph.split(separator: " ") {
                if lineHasWord, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = String(repeating: " ", count: indent)
                    lineHasWord = false
                }
                line += (lineHasWord ? " " : "") + word
                lineHasWord = true
            }
            lines.append(lineHasWord ? line : "")
            lineIndent = indent
        }
        return lines
    }

    /// Wraps a command's discussion: consecutive lines that start in column 0 are one paragraph,
    /// which flows to `width` whatever its line breaks in the source (a blank line ends it); an
    /// indented line (an example, a list item) is kept on its own, its leading spaces the indentation
    /// of its continuation lines.
    static func wrapPreservingIndent(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var paragraph: [Substring] = []
        func flush() {
            if !paragraph.isEmpty { lines += wrap(paragraph.joined(separator: " "), width: width) }
            paragraph = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let leading = line.prefix { $0 == " " }.count
            if leading == 0 && !line.isEmpty {
                paragraph.append(line)
                continue
            }
            flush()
            lines += wrap(String(line.dropFirst(leading)), width: width, indent: leading)
        }
        flush()
        return lines
    }
}
