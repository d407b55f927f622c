import ArgumentKit

/// Writing images to a directory (get and prefetch): see OutputDirectory.swift.
extension OptionKeys {
    static let outputDir: TextKey = .value("output-dir", valueName: "DIR", help: "Also write each delivered image to DIR, atomically, named by --name. Needed by get with several sources.", completion: .directory)
    static let name: TextKey = .value("name", valueName: "TEMPLATE", help: "File names in --output-dir: {name} (the source's file name without extension), {ext} (the output format's), {key}, {line}, {host}, {path} (the URL's path, decoded, each component made safe: .. and hidden names become _; the last one takes the output format's extension: p087.jpg written as WebP is p087.webp), {dir} (its directory part), {stem} (the last component without its extension), {w}, {h}; may hold / for subdirectories, never .. . A name taken earlier in the run gets -LINE before its extension (list order decides), the same image under the same name is written once; files from before the run are replaced (kept with --no-clobber).", defaultDescription: "{name}.{ext}")
    static let createDirs: FlagKey = .flag("create-dirs", help: "Create --output-dir and the subdirectories --name makes; with get -o, the file's directories (as curl's).")
    static let noClobber: FlagKey = .flag("no-clobber", help: "Keep a file that is already there instead of replacing it (exit 0, as wget -nc; the record adds \"output\": \"kept\"); decided as the file is created, never by a check before.")
}

extension Specs {
    /// Writing images to a directory (get and prefetch): see OutputDirectory.swift.
    static let outputDir = OptionSpec.list(
        OptionKeys.outputDir, OptionKeys.name, OptionKeys.createDirs, OptionKeys.noClobber)
}
