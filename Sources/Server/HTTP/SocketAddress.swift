import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address parsed from a numeric host (or `localhost`).
struct SocketAddress {
  private enum Storage {
    case v4(sockaddr_in)
    case v6(sockaddr_in6)
  }

  private var storage: Storage

  init?(host: String, port: UInt16) {
    let host = host == "localhost" ? "127.0.0.1" : host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    var v4 = sockaddr_in()
    if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
      v4.sin_family = sa_family_t(AF_INET)
      v4.sin_port = port.bigEndian
      storage = .v4(v4)
      return
    }
    var v6 = sockaddr_in6()
    if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
      v6.sin6_family = sa_family_t(AF_INET6)
      v6.sin6_port = port.bigEndian
      storage = .v6(v6)
      return
    }
    return nil
  }

  var isIPv6: Bool {
    if case .v6 = storage { return true }
    return false
  }

  /// True for 127.0.0.0/8, ::1 and localhost: addresses only this machine can reach.
  static func isLoopback(_ host: String) -> Bool {
    guard let address = SocketAddress(host: host, port: 0) else { return false }
    switch address.storage {
    case .v4(let v4): return UInt32(bigEndian: v4.sin_addr.s_addr) >> 24 == 127
    case .v6(var v6):
      var loopback = in6addr_loopback
      return memcmp(&v6.sin6_addr, &loopback, MemoryLayout<in6_addr>.size) == 0
    }
  }

  mutating func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
    switch storage {
    case .v4(var v4):
      return withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    case .v6(var v6):
      return withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }
  }
}
