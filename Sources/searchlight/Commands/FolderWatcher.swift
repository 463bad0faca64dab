import Foundation
import SearchIndex

#if canImport(Glibc)
  import Glibc
#endif

/// Waits for a folder tree to change, for `sync --watch`: inotify on Linux (every
/// subfolder watched, new ones added as they appear), so a change is synced within a
/// second. `isActive` is false where inotify is unavailable or fails (another platform, the
/// watch limit reached for the folder itself); the caller then polls.
///
/// Files a sync never reads do not wake it (`DocumentImporters.walkIncludes`): hidden files
/// (editors' swap files), formats no importer reads and SQLite's own files (an index kept
/// inside the folder it indexes would otherwise wake itself).
final class FolderWatcher {
  private let folder: String
  private var descriptor: Int32 = -1
  /// Watched folders by watch descriptor.
  private var watched: [Int32: String] = [:]
  /// False once a subfolder could not be watched (the system's watch limit): waits then also
  /// end after `interval`, so changes there are still found by the next sync.
  private var complete = true
  /// Seconds between syncs when not every folder is watched.
  private let interval: Double

  /// A burst of events (a save is often several) settles for this long before the sync runs.
  static let quiet: Int32 = 100
  /// A stream of events never delays a sync by more than this (seconds).
  static let longestDelay = 0.5

  init(folder: String, interval: Double) {
    self.folder = folder
    self.interval = interval
    #if os(Linux)
      descriptor = inotify_init1(Int32(IN_CLOEXEC))
      guard descriptor >= 0 else { return }
      addTree(folder)
      if watched.isEmpty {
        close(descriptor)
        descriptor = -1
      }
    #endif
  }

  deinit {
    #if os(Linux)
      if descriptor >= 0 { close(descriptor) }
    #endif
  }

  /// Whether changes are reported by the system (else the caller polls).
  var isActive: Bool { descriptor >= 0 }

  /// Blocks until something a sync would read changes in the folder, then until the burst of
  /// events settles (`quiet` ms without one, at most `longestDelay`). Returns at once when
  /// the watcher is not active, and after `interval` when some subfolder is not watched.
  func waitForChange() {
    #if os(Linux)
      guard descriptor >= 0 else { return }
      var buffer = [UInt8](repeating: 0, count: 64 << 10)
      let timeout = complete ? Int32(-1) : Int32(max(200, min(interval * 1000, 3_600_000)))
      while true {
        guard wait(milliseconds: timeout) else { return }
        if drain(&buffer) { break }
      }
      let deadline = Date().addingTimeInterval(Self.longestDelay)
      while Date() < deadline, wait(milliseconds: Self.quiet) {
        _ = drain(&buffer)
      }
    #endif
  }

  #if os(Linux)
    /// Waits until events can be read; false on a timeout or an error.
    private func wait(milliseconds: Int32) -> Bool {
      while true {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&request, 1, milliseconds)
        if ready < 0, errno == EINTR { continue }
        return ready > 0
      }
    }

    private static let mask = UInt32(truncatingIfNeeded: IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_ONLYDIR)

    /// Watches `path` and every folder under it that a sync walks (not hidden ones).
    private func addTree(_ path: String) {
      let handle = inotify_add_watch(descriptor, path, Self.mask)
      guard handle >= 0 else {
        complete = false
        return
      }
      watched[handle] = path
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
      for name in names.sorted() where !name.hasPrefix(".") {
        let child = (path as NSString).appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: child, isDirectory: &isDirectory), isDirectory.boolValue {
          addTree(child)
        }
      }
    }

    /// Reads the pending events; true when one concerns a file or folder a sync reads. New
    /// folders are watched as they appear.
    private func drain(_ buffer: inout [UInt8]) -> Bool {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { return false }
      var relevant = false
      let header = MemoryLayout<inotify_event>.size
      var offset = 0
      while offset + header <= count {
        let (handle, mask, length) = buffer.withUnsafeBytes { bytes in
          let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
          return (event.wd, event.mask, Int(event.len))
        }
        let nameBytes = buffer[(offset + header)..<min(offset + header + length, count)].prefix { $0 != 0 }
        let name = String(decoding: nameBytes, as: UTF8.self)
        offset += header + length
        if mask & UInt32(truncatingIfNeeded: IN_IGNORED) != 0 {
          watched[handle] = nil
          continue
        }
        if mask & UInt32(truncatingIfNeeded: IN_Q_OVERFLOW) != 0 {
          relevant = true
          continue
        }
        guard !name.isEmpty, Self.wakes(name) else { continue }
        relevant = true
        let isFolder = mask & UInt32(truncatingIfNeeded: IN_ISDIR) != 0
        let arrived = mask & UInt32(truncatingIfNeeded: IN_CREATE | IN_MOVED_TO) != 0
        if isFolder, arrived, let parent = watched[handle] {
          addTree((parent as NSString).appendingPathComponent(name))
        }
      }
      return relevant
    }
  #endif

  /// Whether a change to a file or folder named `name` wakes a sync.
  static func wakes(_ name: String) -> Bool { DocumentImporters.walkIncludes(name) }
}
