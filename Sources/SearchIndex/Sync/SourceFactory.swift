import Foundation

/// Recreates sources from the configuration a sync recorded in the index.
public enum SourceFactory {
  /// The source a configuration describes; nil for an unknown kind.
  public static func source(_ configuration: JSONValue) throws -> (any ItemSource)? {
    switch configuration["kind"]?.stringValue {
    case "folder":
      guard let folder = configuration["folder"]?.stringValue else { return nil }
      return FolderSource(folder: folder, domain: configuration["domain"]?.stringValue ?? "notes")
    case "sqlite":
      guard let path = configuration["path"]?.stringValue, let table = configuration["table"]?.stringValue,
        let id = configuration["id"]?.stringValue, let updated = configuration["updated"]?.stringValue
      else { return nil }
      let mapping: [(String, String)] = (configuration["map"]?.arrayValue ?? []).compactMap { pair in
        let parts = (pair.stringValue ?? "").split(separator: "=", maxSplits: 1).map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
      }
      return try SQLiteTableSource(path: path, table: table, idColumn: id, updatedColumn: updated, mapping: mapping,
                                   domain: configuration["domain"]?.stringValue)
    default:
      return nil
    }
  }
}
