/// Text from the cache or a server (a source, an ETag, a Last-Modified date) made safe to print for a
/// person: control characters would otherwise reach the terminal as escape sequences (move the
/// cursor, retitle the window, hide the rest of a line). JSON output escapes them itself.
enum TerminalText {
    /// `text` with every C0 and C1 control character, DEL and Unicode bidirectional override shown
    /// as an escape (`\t`, `\n`, `\r`, else `\x1b` or `\u{202e}`); everything else unchanged.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else { out.unicodeScalars.append(scalar); continue }
            switch scalar {
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default:
                let hex = String(scalar.value, radix: 16)
                out += scalar.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{" + hex + "}"
            }
        }
        return out
    }

    private static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value)
            || (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value)
    }
}
