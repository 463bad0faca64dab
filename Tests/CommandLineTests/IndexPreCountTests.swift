import Foundation
import SearchIndex
import Testing
@testable import searchlight

/// `index`'s quick count of the items a run will read (its progress total), on files larger
/// than the megabyte it reads at a time, so lines and mbox separators cross chunk edges.
@Suite struct IndexPreCountTests {
  private func count(_ name: String, _ bytes: [UInt8]) throws -> Int? {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("precount-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent(name).path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return IndexPreCount.items(in: DocumentFile(path: path, identifier: name))
  }

  /// Lines of every length around the chunk size, blank and white-space-only lines among
  /// them, and a last line without its newline.
  @Test func jsonLinesAreCountedAcrossChunks() throws {
    var bytes: [UInt8] = []
    var expected = 0
    var length = 1
    while bytes.count < 3 << 20 {
      bytes += Array("{\"id\":\"\(expected)\",\"title\":\"".utf8) + Array(repeating: UInt8(ascii: "x"), count: length) + Array("\"}\n".utf8)
      expected += 1
      if expected % 7 == 0 { bytes += Array(" \t\r\n\n".utf8) }
      length = length * 3 % 400_009 + 1
    }
    bytes += Array("{\"id\":\"last\"}".utf8)
    expected += 1
    #expect(try count("items.jsonl", bytes) == expected)
  }

  /// A device never ends (the count used to read `/dev/zero` forever once it stopped
  /// mapping files): anything but a regular file is unknown.
  @Test(arguments: [("/dev/zero", "jsonl"), ("/dev/zero", "mbox"), ("/dev/null", "json")])
  func aDeviceIsUnknown(device: String, pathExtension: String) throws {
    let link = FileManager.default.temporaryDirectory.appendingPathComponent("device-\(UUID().uuidString).\(pathExtension)").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: device)
    defer { try? FileManager.default.removeItem(atPath: link) }
    #expect(IndexPreCount.items(in: DocumentFile(path: link, identifier: "device.\(pathExtension)")) == nil)
  }

  @Test func aJSONArrayCountsItsObjectsAndAnObjectFileIsOneLinePerLine() throws {
    #expect(try count("items.json", Array("  \n[{\"id\":\"a\"},\n{\"id\":\"b\"}]\n".utf8)) == 2)
    #expect(try count("items.json", Array("{\"id\":\"a\"}\n{\"id\":\"b\"}\n".utf8)) == 2)
    // Pretty-printed items: not one a line.
    #expect(try count("item.json", Array("\n{  \r\n  \"id\": \"a\"\n}\n".utf8)) == 1)
    #expect(try count("items.jsonl", Array("{\n".utf8)) == 1)
    // Objects nested in items, and braces and quotes inside strings, are not items.
    let nested = #"[{"id":"a","attributes":{"title":"{[\"}","keywords":[{"x":1}]}}, {"id":"b \\\"{"}, {"id":"c"}]"#
    #expect(try count("nested.json", Array(nested.utf8)) == 3)
    #expect(try count("pretty.json", Array("{\n \"id\": \"a\", \"attributes\": {\"t\": \"}\"}\n}\n{\n \"id\": \"b\"\n}\n".utf8)) == 2)
  }

  /// Items across the chunk edges of a large array: the count is the number of items.
  @Test func aLargeJSONArrayIsCountedAcrossChunks() throws {
    var text = "[\n"
    var expected = 0
    while text.utf8.count < 3 << 20 {
      if expected > 0 { text += ",\n" }
      text += #"{"id":"\#(expected)","attributes":{"title":"\#(String(repeating: "{", count: expected % 97))","keywords":["a","b"]}}"#
      expected += 1
    }
    text += "\n]\n"
    #expect(try count("big.json", Array(text.utf8)) == expected)
  }

  /// `From ` starts a message only at the start of a line, wherever the chunk edge falls;
  /// a line that merely contains it, or starts with part of it, does not.
  @Test func mailboxMessagesAreCountedAcrossChunks() throws {
    let chunk = 1 << 20
    for offset in 0..<6 {
      // A separator line that starts `offset` bytes before the first chunk's end.
      var bytes = Array("From a@b Mon Jan 1 00:00:00 2024\nSubject: one\n\nbody From x\nFro\n".utf8)
      bytes += Array(repeating: UInt8(ascii: "y"), count: chunk - offset - bytes.count - 1) + [0x0A]
      bytes += Array("From c@d Tue Jan 2 00:00:00 2024\nSubject: two\n\n>From quoted\n".utf8)
      #expect(try count("mail.mbox", bytes) == 2, "offset \(offset)")
    }
    #expect(try count("mail.mbox", Array("no separator at all\n".utf8)) == 1)
  }
}
