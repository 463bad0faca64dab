import Foundation
import Testing
@testable import SearchIndex

/// Attribute sets written as literals and built in a closure mean what the tuple form means.
@Suite struct AttributeSetLiteralTests {
  @Test func aDictionaryLiteralKeepsOrderAndTypes() {
    let literal: AttributeSet = ["title": "Mist Trail", "rating": 4.5, "visits": 12, "open": true, "keywords": ["waterfall", "granite"]]
    let tuples = AttributeSet([
      ("title", .string("Mist Trail")), ("rating", .number(4.5)), ("visits", .number(12)), ("open", .bool(true)),
      ("keywords", .list([.string("waterfall"), .string("granite")])),
    ])
    #expect(literal == tuples)
    #expect(literal.names == ["title", "rating", "visits", "open", "keywords"])
    #expect(literal["visits"]?.numericValue == 12)
  }

  @Test func theBuilderAssignsInOrderAndLaterValuesWin() {
    let due: Date? = Date(timeIntervalSince1970: 1_800_000_000)
    let built = AttributeSet { set in
      set["title"] = "Packing list"
      set["title"] = "Packing list v2"
      if let due { set["dueDate"] = .date(due) }
    }
    #expect(built.names == ["title", "dueDate"])
    #expect(built.title == "Packing list v2")
    #expect(built["dueDate"] == .date(Date(timeIntervalSince1970: 1_800_000_000)))
  }
}
