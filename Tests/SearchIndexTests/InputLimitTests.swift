import Foundation
import Testing
@testable import SearchIndex

/// Input limits: an overlong line, an endless file or an oversized array is an error that
/// names the limit and the line, found after reading at most the limit.
@Suite struct InputLimitTests {
  /// The lines of `text` read with a limit of `limit` bytes: each line, or "error" for one
  /// over the limit.
  func lines(_ text: String, limit: Int) throws -> [String] {
    try withTemporaryDirectory { directory in
      let path = try writeFile(text, named: "lines.txt", in: directory)
      let handle = try #require(FileHandle(forReadingAtPath: path))
      defer { try? handle.close() }
      var reader = LineReader(handle: handle, maximumLineLength: limit)
      var result: [String] = []
      while true {
        do {
          guard let line = try reader.nextLine() else { break }
          result.append(String(decoding: line, as: UTF8.self))
        } catch let error as LineReader.LineTooLong {
          result.append("error: \(error)")
        }
      }
      return result
    }
  }

  @Test func aLineOverTheLimitIsAnErrorAndTheNextLineIsRead() throws {
    #expect(try lines("short\n" + String(repeating: "x", count: 25) + "\nafter\n", limit: 10)
      == ["short", "error: line longer than 10 bytes", "after"])
    // A long line that spans many reads is skipped whole.
    #expect(try lines(String(repeating: "y", count: 3 << 20) + "\nnext", limit: 1000)
      == ["error: line longer than 1000 bytes", "next"])
    // Exactly the limit is fine, with either line ending; a last line without one too.
    #expect(try lines("0123456789\r\n0123456789\n0123456789", limit: 10) == ["0123456789", "0123456789", "0123456789"])
    #expect(try lines("0123456789A", limit: 10) == ["error: line longer than 10 bytes"])
  }

  @Test func anEndlessLineEndsWithAnErrorAtItsFirstLine() throws {
    try withTemporaryDirectory { directory in
      let zero = directory.appendingPathComponent("zero.jsonl").path
      try FileManager.default.createSymbolicLink(atPath: zero, withDestinationPath: "/dev/zero")
      var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
      #expect(throws: IngestError(file: zero, line: 1,
                                  message: "line longer than \(ItemReader.maximumLineBytes) bytes; split the item's text or store it elsewhere")) {
        try reader.read(path: zero) { _, _, _ in }
      }
    }
  }

  @Test func anEndlessFileWithoutAnExtensionIsBinary() throws {
    var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
    #expect(throws: IngestError(file: "/dev/zero", line: nil, message: "binary file (not text); not indexed")) {
      try reader.read(path: "/dev/zero") { _, _, _ in }
    }
  }

  @Test func anOverlongItemLineIsReportedAtItsLine() throws {
    try withTemporaryDirectory { directory in
      let long = #"{"id":"big","attributes":{"title":""# + String(repeating: "a", count: ItemReader.maximumLineBytes) + "\"}}\n"
      let path = try writeFile(#"{"id":"a"}"# + "\n" + long, named: "items.jsonl", in: directory)
      var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
      var seen: [String] = []
      #expect(throws: IngestError(file: path, line: 2,
                                  message: "line longer than \(ItemReader.maximumLineBytes) bytes; split the item's text or store it elsewhere")) {
        try reader.read(path: path) { item, _, _ in seen.append(item.uniqueIdentifier) }
      }
      #expect(seen == ["a"])
    }
  }
}
