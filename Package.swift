// swift-tools-version:6.0
import PackageDescription

// libvips and libcurl are *not* linked: the C shims resolve them with dlopen on first use,
// so a cache hit never pays their ~60 ms of dynamic loading (see README, "Start-up").

// The C shims' debug information in DWARF 4: clang 21 writes DWARF 5 by default, whose forms
// (DW_FORM_strx1, DW_FORM_addrx, ...) valgrind 3.19 cannot read ("Possibly corrupted debuginfo
// file"), which made the binary impossible to profile (`make bench-instructions`). The Swift
// modules and the static stdlib are DWARF 4 already.
let shim: [CSetting] = [.unsafeFlags(["-gdwarf-4"])]
// Generic metadata by accessor, not by mangled name: by default the compiler refers to a generic
// type's metadata (`[Source]`, `KeyedEncodingContainer<EntryKey.CodingKeys>`, ...) by its mangled
// name, which the runtime demangles on first use and whose protocol requirements it proves by
// scanning every conformance record in the binary, once per requirement (~130,000 instructions
// each): ~2.4 M of a cache hit's 6.1 M instructions. An accessor passes the witness tables it has.
let swift: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]
let package = Package(
    name: "imgfetch",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "imgfetch", targets: ["imgfetch"]),
        .library(name: "ImageFetch", targets: ["ImageFetch"]),
    ],
    targets: [
        .target(name: "CCurl", cSettings: shim, linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // Animated GIFs: its frames resized by CCodecs' Lanczos3 (vips_animated.c).
        .target(name: "CVips", dependencies: ["CCodecs"], cSettings: shim, linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // 8-bit pixels without libvips: the Lanczos3 resizer, the WebP and PNG encoders (libwebp, libpng dlopen'ed).
        .target(name: "CCodecs", cSettings: shim, linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread"), .linkedLibrary("m")]),
        // The JPEG path: libjpeg alone (dlopen'ed too), no libvips; CCodecs' resizer.
        .target(name: "CJpeg", dependencies: ["CCodecs"], cSettings: shim, linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread"), .linkedLibrary("m")]),
        // PNG, WebP and GIF sources decoded without libvips (libpng, libwebp, giflib dlopen'ed); CCodecs' resizer.
        .target(name: "CDecoders", dependencies: ["CCodecs"], cSettings: shim, linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread"), .linkedLibrary("m")]),
        .target(name: "CSignals", cSettings: shim),
        // Plain HTTP GETs of the remote tier over a socket, without libcurl.
        .target(name: "CNet", cSettings: shim, linkerSettings: [.linkedLibrary("pthread")]),
        // SHA-256 and SHA-512 by libcrypto's static archive (libssl-dev): seven of its members, nothing loaded at run time.
        .target(name: "CCrypto", cSettings: shim, linkerSettings: [.unsafeFlags(["-Xlinker", "-l:libcrypto.a"])]),
        .target(name: "ImageFetch", dependencies: ["CCurl", "CVips", "CJpeg", "CCodecs", "CDecoders", "CSignals", "CNet", "CCrypto"], swiftSettings: swift),
        .target(name: "ArgumentKit", swiftSettings: swift),
        .executableTarget(name: "imgfetch", dependencies: ["ImageFetch", "ArgumentKit", "CSignals"], swiftSettings: swift),
        .testTarget(name: "ImageFetchTests", dependencies: ["ImageFetch"]),
        .testTarget(name: "ArgumentKitTests", dependencies: ["ArgumentKit"]),
        // The CLI's own parts: the list format, list reading, output names.
        .testTarget(name: "imgfetchTests", dependencies: ["imgfetch", "ImageFetch"]),
        // The remote store tests call HTTPRemoteStore directly; every other end-to-end test runs the binary.
        .testTarget(name: "EndToEndTests", dependencies: ["ImageFetch"]),
    ],
    swiftLanguageModes: [.v6]
)
