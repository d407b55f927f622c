import ArgumentKit

/// Every option of the command tree, declared once as a typed key (`OptionKey`): the specs are built
/// from them (CommandSpecs*.swift, `OptionSpec.list`), the commands read them by key path
/// (`parsed[\.jobs]`), so a misspelt or mistyped option does not compile. Grouped by concern in
/// `OptionKeys+*.swift`; `OptionKeysTests` checks that each command reads only what its spec declares.
enum OptionKeys {
    static let cacheDir: TextKey = .value("cache-dir", valueName: "DIR", help: "Cache directory.", defaultDescription: "$IMGFETCH_CACHE_DIR, else $XDG_CACHE_HOME/imgfetch, else ~/.cache/imgfetch", global: true, completion: .directory)
    static let output: TextKey = .value("output", short: "o", valueName: "FILE", help: "Write the image to FILE (- for stdout). A regular file is replaced atomically, keeping its mode; a device, FIFO or /dev/stdout is written in place; a symlink is written through. Without it, stdout when stdout is not a terminal. One source only.", completion: .file)
    /// `get`'s `--no-progress` (prefetch's key, said of the meter).
    static let meterHelp = "Never show the download meter (on a terminal, a line of bytes, total, rate and time left after half a second of downloading)."
}

extension ParsedCommand {
    /// The value of the option `key` names (`parsed[\.jobs]`), read as its key declares.
    subscript<Value>(key: KeyPath<OptionKeys.Type, OptionKey<Value, Never>>) -> Value {
        self[OptionKeys.self[keyPath: key]]
    }

    /// The converted value of the option `key` names; a malformed one is a usage error.
    subscript<Value>(key: KeyPath<OptionKeys.Type, OptionKey<Value, UsageError>>) -> Value {
        get throws(UsageError) { try self[OptionKeys.self[keyPath: key]] }
    }
}
