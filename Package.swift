// swift-tools-version:6.0
import PackageDescription

// libvips and libcurl are *not* linked: the C shims resolve them with dlopen on first use,
// so a cache hit never pays their ~60 ms of dynamic loading (see README, "Start-up").
let package = Package(
    name: "imgfetch",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "imgfetch", targets: ["imgfetch"]),
        .library(name: "ImageFetch", targets: ["ImageFetch"]),
    ],
    targets: [
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        .target(name: "CVips", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // The JPEG path: libjpeg alone (dlopen'ed too), no libvips.
        .target(name: "CJpeg", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread"), .linkedLibrary("m")]),
        .target(name: "CSignals"),
        // Plain HTTP GETs of the remote tier over a socket, without libcurl.
        .target(name: "CNet", linkerSettings: [.linkedLibrary("pthread")]),
        .target(name: "ImageFetch", dependencies: ["CCurl", "CVips", "CJpeg", "CSignals", "CNet"]),
        .target(name: "ArgumentKit"),
        .executableTarget(name: "imgfetch", dependencies: ["ImageFetch", "ArgumentKit", "CSignals"]),
        .testTarget(name: "ImageFetchTests", dependencies: ["ImageFetch"]),
        .testTarget(name: "ArgumentKitTests", dependencies: ["ArgumentKit"]),
        // The CLI's own parts: the list format, list reading, output names.
        .testTarget(name: "imgfetchTests", dependencies: ["imgfetch", "ImageFetch"]),
        // The remote store tests call HTTPRemoteStore directly; every other end-to-end test runs the binary.
        .testTarget(name: "EndToEndTests", dependencies: ["ImageFetch"]),
    ],
    swiftLanguageModes: [.v6]
)
