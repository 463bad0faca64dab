import Foundation
import Synchronization
import Testing
@testable import SearchIndex

/// Creating and opening index files: concurrent creators of one new file all succeed, a read
/// never creates or changes a file, and a create that fails leaves nothing behind.
@Suite struct OpeningTests {
  /// Starts `count` threads that each run `body(thread)` as close to the same moment as
  /// possible, and waits for them; returns the errors they threw.
  func together(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) -> [String] {
    let errors = Mutex<[String]>([])
    let start = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for number in 0..<count {
      done.enter()
      Thread {
        start.wait()
        do { try body(number) } catch { errors.withLock { $0.append("thread \(number): \(error)") } }
        done.leave()
      }.start()
    }
    for _ in 0..<count { start.signal() }
    done.wait()
    return errors.withLock { $0 }
  }

  @Test(arguments: ["default", "other"])
  func creatorsOfOneNewFileAtOnceAllSucceed(name: String) throws {
    try withTemporaryDirectory { directory in
      for trial in 0..<10 {
        let path = directory.appendingPathComponent("fresh-\(trial).db").path
        let errors = together(6) { number in
          let index = try SearchIndex(path: path, name: name)
          try index.indexSearchableItems([item("item-\(number)", [("title", .string("Creator \(number)"))])])
        }
        #expect(errors.isEmpty, "trial \(trial): \(errors)")
        let index = try SearchIndex(path: path, name: name, create: false)
        #expect(try index.allItems().map(\.uniqueIdentifier).sorted() == (0..<6).map { "item-\($0)" })
        #expect(try index.indexNames() == [name])
      }
    }
  }

  @Test func readingAnEmptyFileLeavesItEmpty() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("empty.db").path
      #expect(FileManager.default.createFile(atPath: path, contents: nil))
      #expect {
        _ = try SearchIndex(path: path, create: false, readOnly: true)
      } throws: { error in
        "\(error)" == "'\(path)' is not a Searchlight index: the file is empty"
      }
      let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
      #expect(size == 0)
    }
  }

  @Test func readingAMissingFileCreatesNothing() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("missing.db").path
      #expect(throws: SearchIndexError.self) { _ = try SearchIndex(path: path, create: true, readOnly: true) }
      let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
      #expect(left.isEmpty)
    }
  }

  @Test func aReadOnlyOpenReadsAndRefusesWrites() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("index.db").path
      try SearchIndex(path: path).indexSearchableItems([item("a", [("title", .string("Alpha"))])])
      let reader = try SearchIndex(path: path, create: false, readOnly: true)
      #expect(try reader.allItems().map(\.uniqueIdentifier) == ["a"])
      #expect(throws: SearchIndexError.self) { try reader.indexSearchableItems([item("b")]) }
      #expect(try reader.allItems().count == 1)
    }
  }

  @Test func aFailedCreateLeavesNoEmptyFile() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("new.db").path
      // SQLite can open (and so create) the file but not its rollback journal, so making the
      // tables fails after the file exists.
      try FileManager.default.createDirectory(atPath: path + "-journal", withIntermediateDirectories: false)
      #expect(throws: SearchIndexError.self) { _ = try SearchIndex(path: path) }
      #expect(!FileManager.default.fileExists(atPath: path))
      var isFolder: ObjCBool = false
      #expect(FileManager.default.fileExists(atPath: path + "-journal", isDirectory: &isFolder) && isFolder.boolValue,
              "only what the create made is removed")
    }
  }

  @Test func theImmutableURIEscapesWhatURIsReserve() {
    #expect(SearchIndex.immutableURI("/tmp/a b/c?d#e%f.db") == "file:/tmp/a%20b/c%3Fd%23e%25f.db?immutable=1")
  }
}
