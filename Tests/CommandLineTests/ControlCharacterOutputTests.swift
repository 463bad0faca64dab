import Foundation
import Testing
@testable import SearchIndex
@testable import searchlight

/// Stored text never drives the reader's terminal: control characters in titles and bodies
/// print as visible pictures in tables, CSV, text replies and offline answers; JSON escapes
/// them as JSON does.
@Suite struct ControlCharacterOutputTests {
  @Test func controlCharactersBecomePictures() {
    #expect(VisibleText.visible("a\u{1B}[2Jb\u{07}c\u{0}d") == "a\u{241B}[2Jb\u{2407}c\u{2400}d")
    #expect(VisibleText.visible("line\nnext\r\n\tx\u{7F}\u{9B}") == "line\nnext\r\n x\u{2421}<U+009B>")
    #expect(VisibleText.visible("line\nnext", keepingLines: false) == "line\u{240A}next")
    #expect(VisibleText.visible("café 東京") == "café 東京")
  }

  @Test func queryAndAskPrintNoRawControlCharacters() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-control-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let item = #"{"id": "evil", "domain": "notes", "attributes": {"title": "Evil\u001b]0;owned\u0007 note", "textContent": "Budget figures \u001b[2J cleared\u0000 here. The budget is 40 dollars."}}"#
    try (item + "\n").write(to: folder.appendingPathComponent("evil.jsonl"), atomically: true, encoding: .utf8)
    let indexed = try CLI.run(["index", "--db", "c.db", "evil.jsonl"], in: folder)
    #expect(indexed.status == 0, "\(indexed)")
    func isClean(_ output: String) -> Bool {
      !output.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n" && $0 != "\r") || (0x7F...0x9F).contains($0.value) }
    }
    for format in ["table", "csv"] {
      let result = try CLI.run(["query", "--db", "c.db", "--format", format, "--fetch", "title,textContent", "--", #"search "budget""#], in: folder)
      #expect(result.status == 0, "\(result)")
      #expect(isClean(result.stdout), "\(format): \(result.stdout.debugDescription)")
      #expect(result.stdout.contains("Evil\u{241B}]0;owned\u{2407} note"), "\(format): \(result.stdout)")
    }
    let text = try CLI.run(["query", "--db", "c.db", "--", #"search "budget" | top 1 | text"#], in: folder)
    #expect(text.status == 0, "\(text)")
    #expect(isClean(text.stdout), "\(text.stdout.debugDescription)")
    let ask = try CLI.run(["ask", "--db", "c.db", "--", "what is the budget?"], in: folder)
    #expect(ask.status == 0, "\(ask)")
    #expect(isClean(ask.stdout), "\(ask.stdout.debugDescription)")
    #expect(ask.stdout.contains("Evil\u{241B}]0;owned\u{2407} note"), "\(ask.stdout)")
    // JSON keeps the stored text exactly, escaped.
    let json = try CLI.run(["query", "--db", "c.db", "--format", "json", "--", #"search "budget""#], in: folder)
    #expect(json.stdout.contains(#"Evil\u001b]0;owned\u0007 note"#) || json.stdout.contains(#"Evil\u001B]0;owned\u0007 note"#), "\(json.stdout)")
  }
}
