#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file's size and modification time from one `stat` call.
///
/// `FileManager.attributesOfItem` also looks up the owner's and group's names (a read of the
/// user database per call on Linux) and boxes every attribute: a folder walk asked it two or
/// three times per file, about a second of a 20,000-file folder. The modification time is
/// the same `Double` Foundation's `modificationDate.timeIntervalSince1970` gives, so the
/// versions recorded for a folder's files by earlier builds still match
/// (`FileStatusTests.matchesFoundationsAttributes`).
package struct FileStatus: Sendable, Hashable {
  /// The size in bytes.
  package var size: Int64
  /// Seconds since 1970 of the last modification.
  package var modificationSeconds: Int64
  /// Nanoseconds past `modificationSeconds`.
  package var modificationNanoseconds: Int64

  /// The status of the file at `path` (links followed), nil when it cannot be read.
  package init?(path: String) {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    size = Int64(status.st_size)
    #if canImport(Darwin)
      modificationSeconds = Int64(status.st_mtimespec.tv_sec)
      modificationNanoseconds = Int64(status.st_mtimespec.tv_nsec)
    #else
      modificationSeconds = Int64(status.st_mtim.tv_sec)
      modificationNanoseconds = Int64(status.st_mtim.tv_nsec)
    #endif
  }

  /// The modification time as Foundation's `Date` of it gives it (seconds since 1970): the
  /// interval since 2001 that `Date` stores, read back since 1970.
  package var modificationInterval: Double {
    let sinceReference = Double(modificationSeconds) - Self.referenceOffset + Double(modificationNanoseconds) / 1_000_000_000
    return sinceReference + Self.referenceOffset
  }

  /// Seconds from 1970 to 2001, Foundation's reference date.
  static let referenceOffset = 978_307_200.0
}
