/// The imgfetch version, sent in `User-Agent: imgfetch/VERSION` and printed by `--version`.
public enum ImageFetchVersion {
    public static let string = "0.1.0"
}
