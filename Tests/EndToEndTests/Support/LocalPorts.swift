import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// TCP ports on 127.0.0.1 for the test servers started as separate programs (nginx, moto).
enum LocalPorts {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// A port no one listens on now (bound to 0, read, closed): a server started on it right away
    /// gets it unless another process races for it (callers retry).
    static func free() throws -> Int {
        let fd = try listeningSocket(backlog: 1)
        defer { close(fd.fd) }
        return fd.port
    }

    /// A socket listening on 127.0.0.1 that never accepts: a connection to it is made (the kernel
    /// queues it) but never answered, as a server that hangs. Close `fd` when done.
    static func listeningSocket(backlog: Int32 = 64) throws -> (fd: Int32, port: Int) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            close(fd)
            throw Failure(description: "bind/listen on 127.0.0.1 failed: \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            close(fd)
            throw Failure(description: "getsockname failed: \(errno)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether something accepts connections on 127.0.0.1:`port` (a TCP connect, nothing sent).
    static func isListening(_ port: Int) -> Bool {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Waits until `port` accepts connections or `process` exits or `seconds` pass.
    static func waitListening(_ port: Int, process: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if !process.isRunning { return false }
            if isListening(port) { return true }
            usleep(50_000)
        }
        return false
    }

    /// A listener whose accept queue is full (listen(0), then `fillers` connections never
    /// accepted): the kernel drops later SYNs, so a connect to it times out. Close every descriptor.
    static func fullListener(fillers count: Int = 4) throws -> (fd: Int32, port: Int, fillers: [Int32]) {
        let listener = try listeningSocket(backlog: 0)
        var fillers: [Int32] = []
        for _ in 0..<count {
            #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(listener.port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            fillers.append(fd)
        }
        usleep(200_000)
        return (listener.fd, listener.port, fillers)
    }
}
