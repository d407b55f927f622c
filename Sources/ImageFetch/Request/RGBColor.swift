/// An sRGB colour (8 bits a channel): `--background`'s value.
public struct RGBColor: Sendable, Hashable, Encodable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let white = RGBColor(red: 255, green: 255, blue: 255)
    public static let black = RGBColor(red: 0, green: 0, blue: 0)

    /// The names `init(parsing:)` takes besides hex.
    public static let names: [(String, RGBColor)] = [
        ("white", .white), ("black", .black),
        ("red", RGBColor(red: 255, green: 0, blue: 0)), ("green", RGBColor(red: 0, green: 128, blue: 0)),
        ("blue", RGBColor(red: 0, green: 0, blue: 255)), ("grey", RGBColor(red: 128, green: 128, blue: 128)),
        ("gray", RGBColor(red: 128, green: 128, blue: 128)),
    ]

    /// A name (`white`, `black`, `red`, `green`, `blue`, `grey`/`gray`) or hex `#RGB`, `#RRGGBB`
    /// (the `#` optional); nil otherwise.
    public init?(parsing text: String) {
        let lower = text.lowercased()
        if let named = RGBColor.names.first(where: { $0.0 == lower }) { self = named.1; return }
        var hex = Substring(lower)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        guard hex.count == 3 || hex.count == 6, hex.allSatisfy(\.isHexDigit) else { return nil }
        let digits = hex.count == 3 ? hex.flatMap { [$0, $0] } : Array(hex)
        func byte(_ i: Int) -> UInt8 { UInt8(String(digits[i...i + 1]), radix: 16) ?? 0 }
        self.init(red: byte(0), green: byte(2), blue: byte(4))
    }

    /// `ffffff`: six lower-case hex digits.
    public var hex: String {
        [red, green, blue].map { v in
            let s = String(v, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }
}
