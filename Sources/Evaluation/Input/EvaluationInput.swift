import Foundation
import SearchIndex

/// Reading evaluation inputs: whole files, JSON Lines objects and identifiers, with errors
/// that name the file and line (`IngestError`, so the CLI exits 65 for bad data and 66 for a
/// missing file).
package enum EvaluationInput {
  /// The text of `path`; a missing or unreadable file is a `missingInput` error.
  package static func read(path: String) throws(IngestError) -> String {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
      throw IngestError(.missingInput, file: path, line: nil, message: "no such file")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw IngestError(.missingInput, file: path, line: nil, message: "cannot read the file")
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw IngestError(file: path, line: nil, message: "the file is not UTF-8 text")
    }
    return text
  }

  /// The non-blank lines of `text` with their 1-based line numbers.
  package static func lines(_ text: String) -> [(number: Int, text: Substring)] {
    var result: [(Int, Substring)] = []
    var number = 0
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      number += 1
      let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
      if trimmed.allSatisfy(\.isWhitespace) { continue }
      result.append((number, trimmed))
    }
    return result
  }

  /// Each non-blank line of `text` parsed as a JSON object.
  package static func objects(_ text: String, file: String) throws(IngestError) -> [(line: Int, object: JSONObject)] {
    var result: [(Int, JSONObject)] = []
    for (number, line) in lines(text) {
      let value: JSONValue
      do { value = try JSONParser.parse(String(line)) } catch {
        throw IngestError(file: file, line: number, message: "not a JSON object: \(error.message) at column \(error.column)")
      }
      guard case .object(let object) = value else {
        throw IngestError(file: file, line: number, message: "expected a JSON object, found \(value.kindDescription)")
      }
      result.append((number, object))
    }
    return result
  }

  /// An identifier member: a string, or a number written without a fraction (`"1"` or `1`).
  package static func identifier(_ value: JSONValue?, key: String, file: String, line: Int) throws(IngestError) -> String? {
    switch value {
    case nil, .null?: return nil
    case .string(let s)?:
      guard !s.isEmpty else { throw IngestError(file: file, line: line, message: "'\(key)' is empty") }
      return s
    case .number(let n)?: return JSONValue.format(number: n)
    case let other?: throw IngestError(file: file, line: line, message: "'\(key)' must be a string, found \(other.kindDescription)")
    }
  }

  /// A required, non-empty string member.
  package static func text(_ object: JSONObject, key: String, file: String, line: Int) throws(IngestError) -> String {
    switch object[key] {
    case nil, .null?: throw IngestError(file: file, line: line, message: "missing '\(key)'")
    case .string(let s)?:
      guard !s.allSatisfy(\.isWhitespace) else { throw IngestError(file: file, line: line, message: "'\(key)' is empty") }
      return s
    case let other?: throw IngestError(file: file, line: line, message: "'\(key)' must be a string, found \(other.kindDescription)")
    }
  }
}
