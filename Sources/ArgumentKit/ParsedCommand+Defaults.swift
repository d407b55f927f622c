extension ParsedCommand {
    /// This command with `defaults` (options parsed from elsewhere, e.g. a config file) put
    /// before its own options: a single-value option given here wins (the last value wins), a
    /// repeatable one gets the defaults' values first, flags count both. Path and positionals are
    /// this command's.
    public func withDefaults(_ defaults: ParsedCommand) -> ParsedCommand {
        var counts = defaults.counts
        for (name, n) in self.counts { counts[name, default: 0] += n }
        var values = defaults.optionValues
        for (name, list) in optionValues { values[name, default: []] += list }
        var merged = ParsedCommand(path: path, counts: counts, optionValues: values, positionals: positionals,
                                   positionalsByName: positionalsByName, knownOptions: knownOptions)
        merged.readObserver = readObserver
        return merged
    }
}
