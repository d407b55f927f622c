import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// vips_init loads every libvips module, ImageMagick, poppler and openslide among them: ~15 ms and
/// ~5 MB per process that an image fetcher never uses. Pointing `$VIPSHOME` at a directory in the
/// cache that links only the image-format modules (heif for AVIF/HEIC, jxl) avoids that.
/// The variable is set here, before any thread exists (setenv is not thread-safe), and only when
/// that directory already exists; the shim creates it the first time libvips is loaded, for the
/// runs after. So an unusable cache directory never leaves libvips without its modules, and a
/// `VIPSHOME` set by the user is left alone.
enum VipsModules {
    static func configure(arguments: [String] = CommandLine.arguments) {
        guard getenv("VIPSHOME") == nil else { return }
        var cacheDir: String?
        var i = 1
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" { break }
            if a == "--cache-dir", i + 1 < arguments.count { cacheDir = arguments[i + 1]; i += 1 } else if a.hasPrefix("--cache-dir=") { cacheDir = String(a.dropFirst("--cache-dir=".count)) }
            i += 1
        }
        // No cache directory: the command reports it; libvips then loads all its modules.
        guard let directory = try? RequestOptions.cacheDirectory(cacheDir, environment: Console.environment) else { return }
        let absolute = directory.hasPrefix("/") ? directory : Source.currentDirectory() + "/" + directory
        let home = absolute + "/v1/vips"
        VipsBridge.setModuleHome(home)
        if FileSystem.isDirectory(home) { setenv("VIPSHOME", home, 1) }
    }
}
