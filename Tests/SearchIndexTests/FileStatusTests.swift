import Foundation
import Testing
@testable import SearchIndex

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `FileStatus`: one `stat` call that gives what `FileManager.attributesOfItem` gave, to the
/// bit, so the file versions recorded by earlier builds still match.
@Suite struct FileStatusTests {
  /// Sets the modification (and access) time of `path`.
  func touch(_ path: String, seconds: Int, nanoseconds: Int) {
    var times = [timespec(tv_sec: seconds, tv_nsec: nanoseconds), timespec(tv_sec: seconds, tv_nsec: nanoseconds)]
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
  }

  @Test func matchesFoundationsAttributes() throws {
    try withTemporaryDirectory { directory in
      let path = try writeFile("seven b", named: "f.txt", in: directory)
      var random = SplitMix64(seed: 19)
      // The nanoseconds where adding them to the seconds rounds (…999 and near it) first.
      let nanoseconds = [0, 1, 500, 999_999_999, 999_999_880, 999_999_881, 123_456_789]
        + (0..<400).map { _ in Int(random.next() % 1_000_000_000) }
      for (number, nanosecond) in nanoseconds.enumerated() {
        let seconds = 1_600_000_000 + number * 7_919
        touch(path, seconds: seconds, nanoseconds: nanosecond)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let status = try #require(FileStatus(path: path))
        let foundation = try #require(attributes[.modificationDate] as? Date).timeIntervalSince1970
        #expect(status.modificationInterval == foundation, "\(seconds).\(nanosecond)")
        #expect(status.modificationSeconds == Int64(seconds) && status.modificationNanoseconds == Int64(nanosecond))
        #expect(status.size == (attributes[.size] as? NSNumber)?.int64Value)
      }
      #expect(FileStatus(path: directory.appendingPathComponent("missing").path) == nil)
      // A link is followed: the document's size and time, not the link's (Debian links
      // `python3.1.gz` to `python3.11.1.gz`; a new target is a changed document).
      let link = directory.appendingPathComponent("link.txt").path
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
      #expect(FileStatus(path: link) == FileStatus(path: path))
    }
  }
}
