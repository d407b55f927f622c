#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The state of the network as the pipeline sees it. Low-data mode makes it *constrained*
/// (Apple's Low Data Mode): requests that do not allow constrained access fail before sending a byte.
public final class NetworkConditions: Sendable {
    private let probe: (any MeteredNetworkProbing)?
    /// 0: not known yet (the probe is asked), else a `MeteredAnswer` (1: constrained, 2 and up: not).
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
        case 0:
            let answer = probe?.answer() ?? .notMetered
            known.store(answer.rawValue, ordering: .releasing)
            return answer == .metered
        default: return false
        }
    }

    /// What the probe answered (`--low-data=auto`), once a request has asked it; nil before, and
    /// for a fixed setting.
    public var probed: MeteredAnswer? {
        probe == nil ? nil : MeteredAnswer(rawValue: known.load(ordering: .acquiring))
    }
}

/// A metered-network probe's answer, and why.
public enum MeteredAnswer: UInt8, Sendable {
    /// Metered (NetworkManager's Metered 1 "yes" or 3 "guess yes").
    case metered = 1
    /// Not metered (2 "no" or 4 "guess no").
    case notMetered = 2
    /// NetworkManager does not know (0 "unknown"): taken as not metered.
    case unknown = 3
    /// NetworkManager could not be asked (no busctl, no system bus, no NetworkManager, a timeout):
    /// taken as not metered.
    case unavailable = 4
}

/// Tells whether the default connection is metered (for `--low-data=auto`).
public protocol MeteredNetworkProbing: Sendable {
    func isMetered() -> Bool
    /// The answer with its reason; by default `isMetered()`'s.
    func answer() -> MeteredAnswer
}

extension MeteredNetworkProbing {
    public func answer() -> MeteredAnswer { isMetered() ? .metered : .notMetered }
}

public enum MeteredNetworkProbe {
    /// NetworkManager over D-Bus via `busctl`; absent NetworkManager (or busctl) means not metered.
    public static let systemDefault: any MeteredNetworkProbing = NetworkManagerMeteredProbe()
}

/// Reads NetworkManager's `Metered` property (NMMetered: 1 yes, 3 guess-yes are metered; 0 unknown,
/// 2 no, 4 guess-no are not) with `busctl --system get-property`, within a 2 s timeout.
public struct NetworkManagerMeteredProbe: MeteredNetworkProbing {
    public init() {}

    public func isMetered() -> Bool { answer() == .metered }

    public func answer() -> MeteredAnswer {
        guard let output = ProcessRunner.output(of: ["busctl", "--system", "--timeout=2", "get-property",
                                                     "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager",
                                                     "org.freedesktop.NetworkManager", "Metered"]) else { return .unavailable }
        return NetworkManagerMeteredProbe.answer(output)
    }

    /// Parses busctl's `u 1` answer.
    public static func parse(_ output: String) -> Bool { answer(output) == .metered }

    static func answer(_ output: String) -> MeteredAnswer {
        let fields = output.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 2, fields[0] == "u", let value = Int(fields[1]) else { return .unavailable }
        switch value {
        case 1, 3: return .metered
        case 0: return .unknown
        default: return .notMetered
        }
    }
}

/// Runs a program found on PATH and returns its stdout when it exits 0 (nil otherwise or when missing).
enum ProcessRunner {
    static func output(of arguments: [String]) -> String? {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { return nil }
        FileSystem.closeOnExecAll()   // the pipe's ends too: the child's stdout is a dup2 of one
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
