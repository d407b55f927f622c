import ArgumentKit
import ImageFetch

/// The config file of `get` and `prefetch`, curlrc-like: `$XDG_CONFIG_HOME/imgfetch/config`
/// (`~/.config/imgfetch/config` when XDG_CONFIG_HOME is unset or not absolute), or `--config FILE`;
/// none with `--no-config`. One long option per line, with or without its `--`, its value after
/// blanks, `=` or `:` (`user-agent = "My Agent/1"`; double quotes keep blanks, `\"` and `\\`
/// inside); a flag alone (`insecure`); blank lines and `# comments` are skipped. Options of the
/// other command (`jobs` for get) are ignored; global ones (`cache-dir`) are allowed. Options on the command line win: a single-value
/// option given there replaces the file's; repeatable ones (`header`, `alt`) add to it.
/// An error names FILE:LINE. `--config` and `--no-config` are not allowed inside.
enum ConfigFile {
    /// Largest config file read, in bytes.
    static let maxBytes = 1 << 20

    static func apply(to parsed: ParsedCommand, environment: (String) -> String?) throws(UsageError) -> ParsedCommand {
        guard parsed.path == ["get"] || parsed.path == ["prefetch"] else { return parsed }
        let explicit = parsed[OptionKeys.config]
        if parsed[OptionKeys.noConfig] {
            if explicit != nil { throw parsed.error("--config and --no-config cannot be used together") }
            return parsed
        }
        let path = explicit ?? defaultPath(environment: environment)
        if let status = FileSystem.status(path), !status.isRegular || status.size > Int64(maxBytes) {
            // Never read: a FIFO or a device could hang or never end.
            throw parsed.error("\(shown(path)): the config file must be a regular file of at most 1 MiB")
        }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readRegular(path, maxBytes: maxBytes) } catch {
            if explicit == nil, FileSystem.status(path) == nil { return parsed }   // no default file: nothing to read
            throw parsed.error("cannot read the config file \(shown(path)): \(error.message)")
        }
        guard bytes.count <= maxBytes else { throw parsed.error("\(shown(path)): config file larger than 1 MiB") }
        guard !bytes.contains(0) else { throw parsed.error("\(shown(path)): config file holds a NUL byte") }
        var arguments: [String] = []
        for (index, raw) in lines(of: bytes).enumerated() {
            let place = "\(shown(path)):\(index + 1)"
            do {
                let args = try lineArguments(raw, command: parsed.path)
                if args.isEmpty { continue }
                // Each line alone first, so a bad one is named by its place.
                let single = try parse(parsed.path, args)
                _ = try RequestOptions(single, environment: environment)
                arguments += args
            } catch {
                throw parsed.error("\(place): \(ListParser.quoted(error.message, limit: 300, marks: false))")
            }
        }
        if arguments.isEmpty { return parsed }
        return parsed.withDefaults(try parse(parsed.path, arguments))
    }

    /// The lines of the file, split on the byte LF (a String would read CR LF as one character and
    /// never split a Windows file), each without its CR, the first without a UTF-8 byte order mark.
    static func lines(of bytes: [UInt8]) -> [Substring] {
        bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated().map { index, line in
            var b = line[...]
            if index == 0, b.starts(with: [0xEF, 0xBB, 0xBF]) { b = b.dropFirst(3) }
            if b.last == 0x0D { b = b.dropLast() }
            return Substring(String(decoding: b, as: UTF8.self))
        }
    }

    /// Options that name where one command's output goes: never a default for every run.
    static let notInConfig = Set(OptionSpec.list(
        OptionKeys.config, OptionKeys.noConfig, OptionKeys.output, OptionKeys.outputDir, OptionKeys.name).map { $0.long })

    /// A path for a message: whole, control characters escaped.
    static func shown(_ path: String) -> String { ListParser.quoted(path, limit: 4096, marks: false) }

    /// `$XDG_CONFIG_HOME/imgfetch/config`, else `~/.config/imgfetch/config`.
    static func defaultPath(environment: (String) -> String?) -> String {
        if let xdg = environment("XDG_CONFIG_HOME"), xdg.hasPrefix("/") { return xdg + "/imgfetch/config" }
        return (environment("HOME") ?? "/root") + "/.config/imgfetch/config"
    }

    private static func parse(_ path: [String], _ args: [String]) throws(UsageError) -> ParsedCommand {
        // A stand-in positional: the config gives options only.
        guard case .command(let parsed) = try Specs.parser(for: path).parse(path + args + ["--", "config-placeholder"]) else {
            throw UsageError("--help and --version are not options for a config file")
        }
        return parsed
    }

    /// The command-line arguments one line stands for: none for a blank or comment line, or one
    /// known to the other command only.
    static func lineArguments(_ raw: Substring, command: [String]) throws(UsageError) -> [String] {
        var line = raw
        while let c = line.first, c == " " || c == "\t" { line.removeFirst() }
        while let c = line.last, c == " " || c == "\t" || c == "\r" { line.removeLast() }
        if line.isEmpty || line.hasPrefix("#") { return [] }
        if line.hasPrefix("--") { line.removeFirst(2) }
        let name = String(line.prefix { $0 != " " && $0 != "\t" && $0 != "=" && $0 != ":" })
        var rest = line.dropFirst(name.count)
        while let c = rest.first, c == " " || c == "\t" { rest.removeFirst() }
        if let c = rest.first, c == "=" || c == ":" { rest.removeFirst() }
        while let c = rest.first, c == " " || c == "\t" { rest.removeFirst() }
        if notInConfig.contains(name) { throw UsageError("--\(name) is not allowed in a config file") }
        let own = Specs.options(of: command)
        guard let spec = own.first(where: { $0.long == name }) else {
            let other = command == ["get"] ? Specs.prefetch.options : Specs.get.options
            if other.contains(where: { $0.long == name }) { return [] }
            throw UsageError("unknown option '--\(ListParser.quoted(name, limit: 40, marks: false))'")
        }
        switch spec.kind {
        case .flag:
            guard rest.isEmpty else { throw UsageError("--\(name) takes no value") }
            return ["--" + name]
        case .flagOrValue:
            return rest.isEmpty ? ["--" + name] : ["--\(name)=\(try unquote(rest))"]
        case .value, .repeatedValue:
            guard !rest.isEmpty else { throw UsageError("--\(name) needs a value") }
            return ["--" + name, try unquote(rest)]
        }
    }

    static func unquote(_ text: Substring) throws(UsageError) -> String {
        guard text.first == "\"" else { return String(text) }
        guard text.count >= 2, text.last == "\"" else { throw UsageError("unterminated \" in a value") }
        var out = ""
        var escaped = false
        for c in text.dropFirst().dropLast() {
            if escaped { out.append(c); escaped = false } else if c == "\\" { escaped = true } else { out.append(c) }
        }
        if escaped { throw UsageError("a value ends with a lone \\") }
        return out
    }
}

extension Specs {
    /// The options of `get` or `prefetch`.
    static func options(of path: [String]) -> [OptionSpec] {
        (path == ["get"] ? get.options : prefetch.options) + parser(for: path).options.filter(\.global)
    }
}
