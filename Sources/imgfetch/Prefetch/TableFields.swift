/// The cells of one table row, from its bytes as written (at most `ListLine.maxLength`).
enum TableFields {
    /// RFC 4180: fields separated by commas; a field in double quotes may hold commas, line breaks
    /// and doubled quotes (`""` is one `"`). A quote inside an unquoted field, or anything but a comma
    /// after a closing quote, or a quote left open, is an error (its message).
    static func csv(_ bytes: [UInt8]) -> Result<[String], TableRowError> {
        var fields: [String] = []
        var field: [UInt8] = []
        var index = 0
        let count = bytes.count
        while true {
            field.removeAll(keepingCapacity: true)
            if index < count && bytes[index] == 34 {
                index += 1
                var closed = false
                while index < count {
                    let byte = bytes[index]
                    index += 1
                    if byte != 34 { field.append(byte); continue }
                    if index < count && bytes[index] == 34 { field.append(34); index += 1; continue }
                    closed = true
                    break
                }
                guard closed else { return .failure(TableRowError("a quoted field is not closed")) }
                if index < count && bytes[index] != 44 {
                    return .failure(TableRowError("field \(fields.count + 1): a character after its closing quote (a quote inside a field is written \"\")"))
                }
            } else {
                while index < count && bytes[index] != 44 {
                    if bytes[index] == 34 {
                        return .failure(TableRowError("field \(fields.count + 1): a quote inside an unquoted field (quote the field, and write a quote as \"\")"))
                    }
                    field.append(bytes[index])
                    index += 1
                }
            }
            fields.append(String(decoding: field, as: UTF8.self))
            if index >= count { return .success(fields) }
            index += 1   // the comma
        }
    }

    /// Tab-separated values: fields separated by tabs, no quoting.
    static func tsv(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 9, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Why a row was not read (the caller adds the list's name and the row's number).
struct TableRowError: Error, Sendable {
    var message: String
    init(_ message: String) { self.message = message }
}
