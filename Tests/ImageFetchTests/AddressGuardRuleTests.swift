import CCurl
import Glibc
import XCTest
@testable import ImageFetch

/// The C guard (`ifc_address_denied`) with `--deny-private-addresses`' ranges: an IPv6 address
/// that reaches an IPv4 one (NAT64, 6to4, IPv4-compatible) is checked as that IPv4 address too.
final class AddressGuardRuleTests: XCTestCase {
    private func denied(_ address: String, _ ranges: [AddressRange] = AddressRange.nonPublic) -> Bool {
        let rules = ranges.flatMap(\.rule)
        var raw = [UInt8](repeating: 0, count: 16)
        let family: Int32 = inet_pton(AF_INET, address, &raw) == 1 ? 4 : 6
        if family == 6 { XCTAssertEqual(inet_pton(AF_INET6, address, &raw), 1, address) }
        return ifc_address_denied(rules, Int32(ranges.count), family, raw) == 1
    }

    func testIPv6FormsOfAPrivateIPv4AddressAreDenied() {
        for address in ["64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::10.1.2.3",
                        "64:ff9b:1:c0a8:1:100::", "64:ff9b:1::192.168.0.1",
                        "2002:a9fe:a9fe::1", "2002:7f00:1::", "2002:c0a8:101:1::1",
                        "::127.0.0.1", "::10.0.0.1", "::169.254.169.254"] {
            XCTAssertTrue(denied(address), address)
        }
    }

    func testIPv6FormsOfAPublicIPv4AddressAndPlainIPv6AreAllowed() {
        for address in ["64:ff9b::808:808", "2002:808:808::1", "::8.8.8.8", "2001:db8::1", "2606:4700::1111", "8.8.8.8"] {
            XCTAssertFalse(denied(address), address)
        }
        XCTAssertTrue(denied("::1") && denied("::") && denied("fe80::1") && denied("127.0.0.1"))
    }

    func testAUsersIPv4RangeCoversTheEmbeddingForms() {
        let mine = [AddressRange(parsing: "203.0.113.0/24")!]
        XCTAssertTrue(denied("64:ff9b::203.0.113.9", mine))
        XCTAssertTrue(denied("2002:cb00:7109::", mine))
        XCTAssertFalse(denied("64:ff9b::203.0.114.9", mine))
    }
}
