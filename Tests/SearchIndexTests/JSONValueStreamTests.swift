import Foundation
import Testing
@testable import SearchIndex

/// A JSON array (or a stream of values) read a value at a time from its file gives what
/// parsing the whole file gives: the same values at the same lines, or the same first syntax
/// error at the same line and column, wherever the reads' chunks cut the text.
@Suite struct JSONValueStreamTests {
  enum Outcome: Equatable {
    case values([JSONValue], lines: [Int])
    /// The values read before the error, and the error.
    case failure([JSONValue], JSONParser.SyntaxError)
  }

  static func whole(_ bytes: [UInt8], isArray: Bool) -> Outcome {
    var parser = JSONParser(bytes: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes)
    do {
      let elements = isArray ? try parser.parseArrayElementsWithLines() : try parser.parseValuesWithLines()
      return .values(elements.map(\.value), lines: elements.map(\.line))
    } catch {
      return .failure([], error)
    }
  }

  static func streamed(_ bytes: [UInt8], isArray: Bool, chunkSize: Int, in directory: URL) throws -> Outcome {
    let path = directory.appendingPathComponent("values.json").path
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    let handle = try #require(FileHandle(forReadingAtPath: path))
    defer { try? handle.close() }
    var stream = JSONValueStream(handle: handle, isArray: isArray, maximumValueBytes: 1 << 20, chunkSize: chunkSize)
    var (values, lines): ([JSONValue], [Int]) = ([], [])
    do {
      while let (value, line) = try stream.next() {
        values.append(value)
        lines.append(line)
      }
      return .values(values, lines: lines)
    } catch let error as JSONParser.SyntaxError {
      return .failure(values, error)
    }
  }

  /// Random JSON with strings that hold brackets, quotes, escapes and multi-byte letters,
  /// numbers of every form, literals, nesting and line breaks.
  struct Generator {
    var random = SystemRandomNumberGenerator()

    mutating func pick<T>(_ options: [T]) -> T { options.randomElement(using: &random)! }
    mutating func space() -> String { pick(["", "", " ", "\n", "\n  ", "\t"]) }

    mutating func value(depth: Int) -> String {
      switch Int.random(in: 0..<(depth > 2 ? 3 : 5), using: &random) {
      case 0: return pick(["\"a\"", "\"[{\"", "\"}]\\\"\"", "\"back\\\\\"", "\"é漢 😀\"", "\"\\u00e9\\n\"", "\"\""])
      case 1: return pick(["0", "-1", "12.5", "3e2", "-0.25E-3", "1234567"])
      case 2: return pick(["true", "false", "null"])
      case 3:
        let count = Int.random(in: 0...3, using: &random)
        var members: [String] = []
        for index in 0..<count { members.append(space() + "\"k\(index)\"" + space() + ":" + space() + value(depth: depth + 1)) }
        return "{" + members.joined(separator: ",") + space() + "}"
      default:
        let count = Int.random(in: 0...3, using: &random)
        return "[" + (0..<count).map { _ in space() + value(depth: depth + 1) }.joined(separator: ",") + space() + "]"
      }
    }

    /// An array of values, or values separated by white space; sometimes damaged: a byte
    /// replaced, added or removed, or the text cut short.
    mutating func document(isArray: Bool) -> [UInt8] {
      let values = (0..<Int.random(in: 0...6, using: &random)).map { _ in value(depth: 0) }
      let text = isArray
        ? pick(["", "\u{FEFF}"]) + space() + "[" + values.map { space() + $0 }.joined(separator: ",") + space() + "]" + space()
        : values.map { $0 + pick([" ", "\n", "\n\n"]) }.joined()
      var bytes = Array(text.utf8)
      guard !bytes.isEmpty, Bool.random(using: &random) else { return bytes }
      let position = Int.random(in: 0..<bytes.count, using: &random)
      let damage = Array(pick(["{", "}", "[", "]", ",", "\"", ":", "x", "\n", " ", "1", "\\", "tru"]).utf8)
      switch Int.random(in: 0..<4, using: &random) {
      case 0: bytes.replaceSubrange(position...position, with: damage)
      case 1: bytes.insert(contentsOf: damage, at: position)
      case 2: bytes.remove(at: position)
      default: bytes.removeSubrange(position...)
      }
      return bytes
    }
  }

  @Test(arguments: [true, false])
  func valuesReadOneAtATimeAreThoseOfTheWholeFile(isArray: Bool) throws {
    var generator = Generator()
    try withTemporaryDirectory { directory in
      for _ in 0..<1_500 {
        let bytes = generator.document(isArray: isArray)
        let chunkSize = generator.pick([1, 2, 3, 7, 64, 1 << 20])
        let expected = Self.whole(bytes, isArray: isArray)
        let found = try Self.streamed(bytes, isArray: isArray, chunkSize: chunkSize, in: directory)
        let text = String(decoding: bytes, as: UTF8.self).debugDescription
        switch (expected, found) {
        case (.values, .values):
          #expect(found == expected, "\(text), chunks of \(chunkSize)")
        case (.failure(_, let error), .failure(_, let streamedError)):
          // (The values read before it need not be the undamaged file's: a `}` put in place
          // of a comma ends an object early, and its next key is read as a value of its own.)
          #expect(streamedError == error, "\(text), chunks of \(chunkSize)")
        default:
          Issue.record("\(text), chunks of \(chunkSize): whole \(expected), streamed \(found)")
        }
      }
    }
  }

  /// A value past the limit is an error at its line, after reading no more than the limit;
  /// but a bracket gone wrong before the limit is reported as the parser reports it.
  @Test func aValueLongerThanTheLimitStopsTheRead() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("big.json").path
      let long = "[\n{\"id\":\"a\"},\n{\"id\":\"" + String(repeating: "x", count: 5_000) + "\"}\n]"
      #expect(FileManager.default.createFile(atPath: path, contents: Data(long.utf8)))
      let handle = try #require(FileHandle(forReadingAtPath: path))
      var stream = JSONValueStream(handle: handle, isArray: true, maximumValueBytes: 1_000, chunkSize: 64)
      #expect(try stream.next()?.line == 2)
      #expect(throws: JSONValueStream.ValueTooLong(limit: 1_000, line: 3)) { _ = try stream.next() }
      try handle.close()

      let broken = "[\n{\"id\":\"a\"},\n{\"id\" \"b\", \"text\": \"" + String(repeating: "x", count: 5_000) + "\"}\n]"
      #expect(FileManager.default.createFile(atPath: path, contents: Data(broken.utf8)))
      let again = try #require(FileHandle(forReadingAtPath: path))
      var brokenStream = JSONValueStream(handle: again, isArray: true, maximumValueBytes: 1_000, chunkSize: 64)
      _ = try brokenStream.next()
      #expect(throws: JSONParser.SyntaxError(message: "expected ':' after member name", line: 3, column: 7)) { _ = try brokenStream.next() }
      try again.close()
    }
  }
}
