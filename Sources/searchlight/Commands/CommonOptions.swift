import Foundation
import SearchIndex

/// Options and helpers shared by the commands that open an index.
enum Common {
  static let db = OptionSpec(name: "db", kind: .value, valueName: "FILE", help: "The index file.")
  static let indexName = OptionSpec(name: "index", kind: .value, valueName: "NAME", help: "The named index in the file (default: default).")
  static let format = OptionSpec(name: "format", kind: .value, valueName: "FORMAT", help: "Output format: table or json.")
  static let protection = OptionSpec(
    name: "protection", kind: .value, valueName: "CLASS,...", help: "Protection classes to grant (comma-separated).")
  static let now = OptionSpec(
    name: "now", kind: .value, valueName: "ISO8601", help: "Fix the clock of $time (also SEARCHLIGHT_NOW); TZ is honoured. Expiry follows the real clock.")

  /// The `--db` value, or a usage error naming the command.
  static func dbPath(_ arguments: ParsedArguments, command: String) throws -> String {
    guard let path = arguments.value("db") else {
      if let fromEnvironment = ProcessInfo.processInfo.environment["SEARCHLIGHT_DB"], !fromEnvironment.isEmpty {
        return fromEnvironment
      }
      throw UsageError(message: "missing '--db <FILE>'", command: command)
    }
    return path
  }

  /// Opens the index named by `--db`/`--index`; `create` only for commands that write, and
  /// `readOnly` for commands that only read (they never create or change a file).
  static func openIndex(_ arguments: ParsedArguments, command: String, create: Bool, readOnly: Bool = false) throws -> SearchIndex {
    let path = try dbPath(arguments, command: command)
    if let version = SearchIndex.pendingMigration(path: path) {
      FileHandle.standardError.write(Data(
        "searchlight: upgrading \(path) from schema version \(version) to \(Schema.version) (one transaction; a large index takes a while)\n".utf8))
    } else if case let missing = SearchIndex.pendingIndexes(path: path), !missing.isEmpty {
      FileHandle.standardError.write(Data(
        "searchlight: upgrading \(path) with the indexes \(missing.joined(separator: ", ")) (one transaction; a large index takes a while)\n".utf8))
    }
    do {
      let index = try SearchIndex(path: path, name: arguments.value("index") ?? "default", create: create, readOnly: readOnly)
      // An optional cap on the file's size in pages (quotas; fault tests simulate a full disk).
      if let pages = ProcessInfo.processInfo.environment["SEARCHLIGHT_MAX_PAGES"].flatMap(Int.init) {
        try index.limitFileSize(pages: pages)
      }
      return index
    } catch {
      throw CommandFailure(error)
    }
  }

  /// `--format`, checked against the allowed values.
  static func format(_ arguments: ParsedArguments, allowed: [String], default defaultValue: String, command: String) throws -> String {
    let value = arguments.value("format") ?? defaultValue
    guard allowed.contains(value) else {
      throw UsageError(message: "unknown format '\(value)'; use one of \(allowed.joined(separator: ", "))", command: command)
    }
    return value
  }

  /// The clock: `--now`, else SEARCHLIGHT_NOW, else the system clock.
  static func now(_ arguments: ParsedArguments, command: String) throws -> Date {
    let text = arguments.value("now") ?? ProcessInfo.processInfo.environment["SEARCHLIGHT_NOW"]
    guard let text, !text.isEmpty else { return Date() }
    guard let date = ISO8601.parse(text, defaultZone: TimeZone.current) else {
      throw UsageError(message: "'\(text)' is not an ISO-8601 date (e.g. 2026-11-29T12:00:00Z)", command: command)
    }
    return date
  }

  /// The access scope from `--protection`. Expiry follows the real clock: `--now` and
  /// SEARCHLIGHT_NOW pin `$time` only, so they cannot bring an expired item back.
  static func scope(_ arguments: ParsedArguments, command: String) throws -> AccessScope {
    let classes = arguments.all("protection").flatMap { $0.split(separator: ",") }.map {
      String($0).trimmingCharacters(in: .whitespaces)
    }.filter { !$0.isEmpty }
    // Checked here too, so a bad --now is a usage error for every command that takes it.
    _ = try now(arguments, command: command)
    return AccessScope(protectionClasses: Set(classes))
  }

  /// "X free: `searchlight rebuild --db F --compact` gives it back" when the file's free pages
  /// are a real share of it (a tenth and at least a megabyte); nil otherwise, since later
  /// writes reuse them anyway.
  static func compactionHint(path: String, fileBytes: Int64, freeBytes: Int64) -> String? {
    guard freeBytes >= 1 << 20, freeBytes * 10 >= fileBytes else { return nil }
    return "\(formatBytes(freeBytes)) free: `searchlight rebuild --db \(path) --compact` gives it back"
  }

  /// Human-readable byte counts.
  static func formatBytes(_ bytes: Int64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
    return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
  }
}
