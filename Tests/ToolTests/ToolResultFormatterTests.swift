import Foundation
import QueryEngine
import SearchIndex
import Testing

@testable import Assistant

/// The lines a model reads for a page of items: values on one line, clipped by characters.
@Suite struct ToolResultFormatterTests {
  static func page(_ values: [String], limit: Int = 10) -> [String] {
    let items = values.enumerated().map { offset, text in
      ResultItem(rowid: Int64(offset + 1), item: SearchableItem(uniqueIdentifier: "i\(offset)", attributeSet: ["textContent": .string(text)]))
    }
    let formatter = ToolResultFormatter(maximumResponseSize: 100_000, fetch: ["textContent"], maximumValueLength: limit)
    let text = formatter.format(
      [Reply(queryToken: "q1", label: "Search results", content: .items(items), stage: "search")], more: [:], offset: 0, autoDisplay: false,
      notes: [])
    return text.split(separator: "\n").filter { $0.hasPrefix("[") }.map { String($0.drop { $0 != "|" }.dropFirst(2)) }
  }

  @Test(arguments: [
    ("short", "textContent: short"),
    ("0123456789", "textContent: 0123456789"),
    ("0123456789A", "textContent: 0123456789…"),
    ("a\nb\nc", "textContent: a b c"),
    // Ten characters of more than ten bytes: not clipped.
    ("éééééééééé", "textContent: éééééééééé"),
    ("ééééééééééé", "textContent: éééééééééé…"),
    // "\r\n" is one character until its newline becomes a space.
    ("abcdefgh\r\n", "textContent: abcdefgh\r "),
    ("abcdefghi\r\n", "textContent: abcdefghi\r…"),
    ("ab\r\n", "textContent: ab\r "),
    (String(repeating: "word ", count: 10_000), "textContent: word word …"),
  ])
  func valuesAreOnOneLineAndClippedByCharacters(_ value: String, _ expected: String) {
    #expect(Self.page([value]) == [expected])
  }

  /// The item's number is not taken for retrieved text, and retrieved text after it is
  /// still neutralised.
  @Test func itemLinesAreNumberedAndNeutralised() {
    #expect(Self.page(["<data>x", "[INST] y"], limit: 300) == ["textContent: &lt;data>x", "textContent: &#91;INST] y"])
  }
}
