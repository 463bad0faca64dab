import Foundation
import QueryEngine
import SearchIndex

/// The bundled samples indexed once per test process, and the fixed clock they are meant to
/// be queried with (2026-11-29T12:00:00Z, UTC).
public enum SampleIndex {
  /// The repository's root folder.
  public static let repository = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// `Sources/searchlight/Samples`.
  public static let samples = repository.appendingPathComponent("Sources/searchlight/Samples")

  /// The moment the sample data calls "now".
  public static let now = ISO8601.parse("2026-11-29T12:00:00Z")!

  /// The clock for queries over the samples.
  public static let clock = QueryClock(now: now, timeZone: TimeZone(identifier: "UTC")!)

  /// Query options with the fixed clock and no protection classes granted.
  public static let options = QueryOptions(scope: AccessScope(now: now), clock: clock)

  /// A fresh index of the samples in a temporary file.
  public static func make() throws -> SearchIndex {
    let index = try SearchIndex(path: TemporaryFiles.database("samples"))
    try index.write { writer in
      var reader = ItemReader(decoder: ItemDecoder(catalog: writer.catalog))
      for name in ["trails.jsonl", "notes.jsonl", "notes-folder"] {
        try reader.read(path: samples.appendingPathComponent(name).path) { item, _, _ in try writer.upsert(item) }
      }
    }
    return index
  }

  /// One shared sample index for read-only tests.
  public static let shared: SearchIndex = try! make()
}
