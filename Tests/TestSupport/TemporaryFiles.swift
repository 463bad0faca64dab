import Foundation
import Synchronization

/// Temporary index files and folders of a test run, removed when the test process exits.
///
/// Indexes often outlive the test that made them (shared fixtures, values captured by
/// other tests), and SQLite recreates its `-wal` and `-shm` files until the last
/// connection closes, so removing them in a `defer` or `deinit` leaves files behind.
/// Removing everything at exit does not.
public enum TemporaryFiles {
  private static let paths = Mutex<[String]>([])

  /// A new path `prefix-UUID.db` in the temporary folder; it and SQLite's files beside it
  /// (`-wal`, `-shm`, `-journal`) are removed at exit.
  public static func database(_ prefix: String) -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString).db").path
    register(["", "-wal", "-shm", "-journal"].map { path + $0 })
    return path
  }

  /// A new, empty folder `prefix-UUID` in the temporary folder, removed with its contents at exit.
  public static func folder(_ prefix: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    register([url.path])
    return url
  }

  private static func register(_ new: [String]) {
    paths.withLock { paths in
      if paths.isEmpty {
        atexit { TemporaryFiles.removeAll() }
      }
      paths += new
    }
  }

  private static func removeAll() {
    paths.withLock { paths in
      for path in paths { try? FileManager.default.removeItem(atPath: path) }
      paths.removeAll()
    }
  }
}
