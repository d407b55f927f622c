import ArgumentKit

/// Every option of the command tree, declared once as a typed key (`OptionKey`): the specs are built
/// from them (CommandSpecs*.swift, `OptionSpec.list`), the commands read them by key
/// (`parsed[OptionKeys.jobs]`), so a misspelt or mistyped option does not compile. Grouped by concern
/// in `OptionKeys+*.swift`; `OptionReadsTests` checks that each command reads only what its spec
/// declares. Not read by key path (`parsed[\.jobs]`): a key path to a static property is instantiated
/// at run time, its types resolved by mangled name, which cost a cache hit ~1.7 M instructions.
enum OptionKeys {
    static let cacheDir: TextKey = .value("cache-dir", valueName: "DIR", help: "Cache directory.", defaultDescription: "$IMGFETCH_CACHE_DIR, else $XDG_CACHE_HOME/imgfetch, else ~/.cache/imgfetch", global: true, completion: .directory)
    static let output: TextKey = .value("output", short: "o", valueName: "FILE", help: "Write the image to FILE (- for stdout). A regular file is replaced atomically, keeping its mode; a device, FIFO or /dev/stdout is written in place; a symlink is written through. Without it, stdout when stdout is not a terminal. One source only.", completion: .file)
    /// `get`'s `--no-progress` (prefetch's key, said of the meter).
    static let meterHelp = "Never show the download meter (on a terminal, a line of bytes, total, rate and time left after half a second of downloading)."
}
