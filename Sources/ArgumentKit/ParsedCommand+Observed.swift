extension ParsedCommand {
    /// This command, telling `observe` the spec of every key read through it (also through copies,
    /// `withDefaults`): for a test that checks each command reads only what its spec declares. An
    /// observed command reports an undeclared read to `observe` instead of tripping the debug
    /// `assert`. Nothing observes outside tests.
    public func observingReads(_ observe: @escaping @Sendable (OptionSpec) -> Void) -> ParsedCommand {
        var copy = self
        copy.readObserver = observe
        return copy
    }
}
