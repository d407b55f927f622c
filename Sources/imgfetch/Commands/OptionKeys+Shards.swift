import ArgumentKit

/// `prefetch`'s shard files for job runners (see ShardDirectory.swift and man imgfetch, SHARDS).
extension OptionKeys {
    static let shardDir: TextKey = .value("shard-dir", valueName: "DIR", help: "With --shard and a list file: write the shard's records to DIR/KKKKK-of-NNNNN.ndjson and, once its last line is done, its marker DIR/KKKKK-of-NNNNN.stats.json (counts, failures by code and cause, times, a digest of the list and of every option that changes a line's outputs, the SHA-256 of the records and tar), each atomically. A shard whose marker has the same digest and whose files match is not run again (exit 0, nothing fetched). A run holds DIR/KKKKK-of-NNNNN.lock (flock) from the marker's check to its write: a second run of the shard exits 2 naming the first's host and pid.", completion: .directory)
    static let saveRemaining: TextKey = .value("save-remaining", valueName: "FILE", help: "At the end (also after Ctrl-C or SIGTERM), write every line of this run's share not delivered (failed, malformed, cancelled, never started; never other shards' lines), as written, atomically, mode 0600: imgfetch prefetch FILE finishes the job. From standard input, the part not yet read is not in it.", completion: .file)
    static let shardTar: FlagKey = .flag("shard-tar", help: "With --shard-dir: also write the shard's ok lines as a webdataset tar, DIR/KKKKK-of-NNNNN.tar (POSIX ustar), streamed as results arrive and renamed into place after the last line, before the marker: for each, KEY.EXT (the output image) then KEY.json (its record), KEY the row's --key-column value (a repeated one fails its row), else the list line zero-padded to 9 digits. It is one of the shard's outputs: a marker of a run without --shard-tar is another digest.")
    static let redo: FlagKey = .flag("redo", help: "With --shard-dir: run the shard even when its marker is there (and replace it).")
}

extension Specs {
    /// `prefetch`'s shard files for job runners (see ShardDirectory.swift and man imgfetch, SHARDS).
    static let shards = OptionSpec.list(
        OptionKeys.shardDir, OptionKeys.saveRemaining, OptionKeys.shardTar, OptionKeys.redo)
}
