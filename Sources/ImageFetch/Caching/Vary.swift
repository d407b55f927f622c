/// `Vary` (RFC 9111 §4.1) for a client whose request headers are always the same: a stored response
/// is reused only when the headers it varies on have the values imgfetch sends now (a header it does
/// not send matches only a response stored without it). `Vary: *` is never reused (not stored).
public enum Vary {
    /// The request headers every http(s) request carries, lower-cased names (conditional headers aside);
    /// `saveData`: low-data mode's `Save-Data: on` too (`FetchOptions.saveData`).
    public static func sentHeaders(saveData: Bool = false) -> [(name: String, value: String)] {
        [("user-agent", HTTPLoader.userAgent), ("accept", "*/*")] + (saveData ? [("save-data", "on")] : [])
    }

    /// The lower-cased field names of every `Vary` line; nil when one of them is `*`. At most 32.
    public static func names(_ headers: HTTPHeaders) -> [String]? {
        var names: [String] = []
        for line in headers.values("vary") {
            for part in line.split(separator: ",") {
                let name = part.trimmed().lowercased()
                if name == "*" { return nil }
                if !name.isEmpty && names.count < 32 && !names.contains(name) { names.append(name) }
            }
        }
        return names
    }

    /// What is stored with an entry: `name=value` of each varied header as sent (empty when not sent),
    /// one per line; nil when the response does not vary.
    public static func selection(for names: [String], saveData: Bool = false) -> String? {
        guard !names.isEmpty else { return nil }
        let sent = sentHeaders(saveData: saveData)
        return names.map { name in name + "=" + (sent.first { $0.name == name }?.value ?? "") }.joined(separator: "\n")
    }

    /// Whether a stored selection matches the headers sent now; `saveData` is asked only when the
    /// selection names `save-data` (with `--low-data=auto` it may ask NetworkManager).
    public static func matches(_ stored: String?, saveData: @autoclosure () -> Bool = false) -> Bool {
        guard let stored else { return true }
        let names = stored.split(separator: "\n").map { line in String(line.prefix { $0 != "=" }) }
        return selection(for: names, saveData: names.contains("save-data") && saveData()) == stored
    }
}
