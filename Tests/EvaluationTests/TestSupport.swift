import Foundation
import QueryEngine
import SearchIndex
import Stages
@testable import Evaluation

/// A temporary index file holding `items`, removed after `body`.
func withIndex<T>(_ items: [SearchableItem], _ body: (SearchIndex) throws -> T) throws -> T {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("evaluation-tests-\(UUID().uuidString).db").path
  defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
  let index = try SearchIndex(path: path)
  try index.indexSearchableItems(items)
  return try body(index)
}

/// An item with a title and text.
func document(_ id: String, _ title: String, _ text: String = "") -> SearchableItem {
  SearchableItem(
    uniqueIdentifier: id, domainIdentifier: "docs", contentType: "document",
    attributeSet: AttributeSet([("title", .string(title)), ("textContent", .string(text))]))
}

/// A runner with the plain planner over `index`.
func plainRunner(_ index: SearchIndex) -> QuestionRunner {
  QuestionRunner(
    executor: QueryExecutor(index: index, registry: StandardLibrary.registry()), options: QueryOptions(),
    planner: PlainQuestionPlanner())
}
