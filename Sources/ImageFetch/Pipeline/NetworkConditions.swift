#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The state of the network as the pipeline sees it. Low-data mode makes it *constrained*
/// (Apple's Low Data Mode): requests that do not allow constrained access fail before sending a byte.
public final class NetworkConditions: Sendable {
    private let probe: (any MeteredNetworkProbing)?
    /// 0: not known yet (the probe is asked), 1: constrained, 2: not constrained.
    private let known: Atomic<UInt8>

    public init(isConstrained: Bool = false) {
        probe = nil
        known = Atomic(isConstrained ? 1 : 2)
    }

    /// `--low-data=auto`: constrained when `probe` finds the connection metered. It is asked by the
    /// first request that would be refused on a constrained network (never on a cache hit); two
    /// such requests at once may both ask it, and get the same answer.
    public init(probe: any MeteredNetworkProbing) {
        self.probe = probe
        known = Atomic(0)
    }

    public var isConstrained: Bool {
        switch known.load(ordering: .acquiring) {
        case 1: return true
        case 2: return false
        default:
            let constrained = probe?.isMetered() ?? false
            known.store(constrained ? 1 : 2, ordering: .releasing)
            return constrained
        }
    }
}

/// Tells whether the default connection is metered (for `--low-data=auto`).
public protocol MeteredNetworkProbing: Sendable {
    func isMetered() -> Bool
}

public enum MeteredNetworkProbe {
    /// NetworkManager over D-Bus via `busctl`; absent NetworkManager (or busctl) means not metered.
    public static let systemDefault: any MeteredNetworkProbing = NetworkManagerMeteredProbe()
}

/// Reads NetworkManager's `Metered` property (NMMetered: 1 yes, 3 guess-yes are metered; 0 unknown,
/// 2 no, 4 guess-no are not) with `busctl --system get-property`, within a 2 s timeout.
public struct NetworkManagerMeteredProbe: MeteredNetworkProbing {
    public init() {}

    public func isMetered() -> Bool {
        guard let output = ProcessRunner.output(of: ["busctl", "--system", "--timeout=2", "get-property",
                                                     "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager",
                                                     "org.freedesktop.NetworkManager", "Metered"]) else { return false }
        return NetworkManagerMeteredProbe.parse(output)
    }

    /// Parses busctl's `u 1` answer.
    public static func parse(_ output: String) -> Bool {
        let fields = output.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 2, fields[0] == "u", let value = Int(fields[1]) else { return false }
        return value == 1 || value == 3
    }
}

/// Runs a program found on PATH and returns its stdout when it exits 0 (nil otherwise or when missing).
enum ProcessRunner {
    static func output(of arguments: [String]) -> String? {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard spawned == 0 else { return nil }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(pipe[0], $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = (status & 0x7f) == 0 && ((status >> 8) & 0xff) == 0
        return exited ? String(decoding: data, as: UTF8.self) : nil
    }
}
