import Foundation
@testable import SearchIndex

/// The checked-in document fixtures (`Tests/Fixtures/documents/`).
enum DocumentFixtures {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/documents")

  static func file(_ name: String) -> DocumentFile {
    DocumentFile(path: folder.appendingPathComponent(name).path, identifier: name)
  }

  /// The items a fixture gives, and the warnings reading it left.
  static func read(_ name: String, catalog: AttributeCatalog = AttributeCatalog()) throws -> ([SearchableItem], [IngestError]) {
    var reader = ItemReader(decoder: ItemDecoder(catalog: catalog))
    var items: [SearchableItem] = []
    try reader.read(file(name)) { item, _, _ in items.append(item) }
    return (items, reader.warnings)
  }
}
