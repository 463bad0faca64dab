import SearchIndex

/// An invalid tool call, returned to the model in band so it can correct the call: where
/// (a JSON path), what is wrong, what was expected, and a corrected example.
public struct ToolCallError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The JSON path of the offending value, e.g. `$.query.value.root.value.children[1]`.
  public var path: String
  public var message: String
  /// The expected shape, in words.
  public var expected: String?
  /// A corrected example of the value at `path`.
  public var example: String?

  public init(path: String, message: String, expected: String? = nil, example: String? = nil) {
    self.path = path
    self.message = message
    self.expected = expected
    self.example = example
  }

  public var description: String {
    var text = "invalid tool call at \(path): \(message)"
    if let expected { text += "\nexpected: \(expected)" }
    if let example { text += "\nexample: \(example)" }
    return text
  }

  /// The error as JSON: `{"error":{"path","message","expected","example"}}`.
  public var jsonValue: JSONValue {
    var object = JSONObject([("path", .string(path)), ("message", .string(message))])
    if let expected { object["expected"] = .string(expected) }
    if let example { object["example"] = .string(example) }
    return .object(JSONObject([("error", .object(object))]))
  }
}

/// A JSON value with the path it was found at, for decoding with precise errors.
struct JSONCursor {
  let value: JSONValue
  let path: String

  init(_ value: JSONValue, path: String = "$") {
    self.value = value
    self.path = path
  }

  func fail(_ message: String, expected: String? = nil, example: String? = nil) -> ToolCallError {
    ToolCallError(path: path, message: message, expected: expected, example: example)
  }

  /// The member `key`; nil when absent or null (optional fields may be either).
  func optional(_ key: String) -> JSONCursor? {
    guard case .object(let object) = value, let member = object[key], !member.isNull else { return nil }
    return JSONCursor(member, path: "\(path).\(key)")
  }

  /// The member `key`, or an error naming it.
  func required(_ key: String, expected: String, example: String? = nil) throws(ToolCallError) -> JSONCursor {
    guard case .object = value else { throw fail("expected an object, got \(value.kindDescription)", expected: expected, example: example) }
    guard let member = optional(key) else {
      throw ToolCallError(path: "\(path).\(key)", message: "missing required field '\(key)'", expected: expected, example: example)
    }
    return member
  }

  /// Rejects members other than `allowed` (strict mode: additionalProperties false).
  func checkKeys(_ allowed: [String], example: String? = nil) throws(ToolCallError) {
    guard case .object(let object) = value else {
      throw fail("expected an object, got \(value.kindDescription)", example: example)
    }
    for key in object.keys where !allowed.contains(key) {
      var message = "unknown field '\(key)'"
      if let suggestion = closestMatch(to: key, in: allowed) { message += "; did you mean '\(suggestion)'?" }
      throw ToolCallError(path: "\(path).\(key)", message: message, expected: "fields: \(allowed.joined(separator: ", "))", example: example)
    }
  }

  func string() throws(ToolCallError) -> String {
    guard case .string(let s) = value else { throw fail("expected a string, got \(value.kindDescription)") }
    return s
  }

  func number() throws(ToolCallError) -> Double {
    guard case .number(let n) = value else { throw fail("expected a number, got \(value.kindDescription)") }
    return n
  }

  func integer(in range: ClosedRange<Int>? = nil) throws(ToolCallError) -> Int {
    let n = try number()
    guard n == n.rounded(), abs(n) < 1e15 else { throw fail("expected a whole number, got \(JSONValue.format(number: n))") }
    if let range, !range.contains(Int(n)) {
      throw fail("\(Int(n)) is out of range \(range.lowerBound)...\(range.upperBound)")
    }
    return Int(n)
  }

  func bool() throws(ToolCallError) -> Bool {
    guard case .bool(let b) = value else { throw fail("expected true or false, got \(value.kindDescription)") }
    return b
  }

  func array() throws(ToolCallError) -> [JSONCursor] {
    guard case .array(let elements) = value else { throw fail("expected an array, got \(value.kindDescription)") }
    return elements.enumerated().map { JSONCursor($1, path: "\(path)[\($0)]") }
  }

  func strings() throws(ToolCallError) -> [String] {
    var result: [String] = []
    for element in try array() { result.append(try element.string()) }
    return result
  }

  /// A discriminated union `{"type": T, "value": V}`: its type (checked against `allowed`) and
  /// value (nil when the variant has none).
  func discriminated(_ allowed: [String], what: String, example: String) throws(ToolCallError) -> (String, JSONCursor?) {
    guard case .object = value else {
      throw fail("expected a \(what) object {\"type\": ..., \"value\": ...}, got \(value.kindDescription)", expected: "type one of \(allowed.joined(separator: ", "))", example: example)
    }
    let typeCursor = try required("type", expected: "one of \(allowed.joined(separator: ", "))", example: example)
    let type = try typeCursor.string()
    guard allowed.contains(type) else {
      var message = "unknown \(what) type \"\(type)\""
      if let suggestion = closestMatch(to: type, in: allowed) { message += "; did you mean \"\(suggestion)\"?" }
      throw ToolCallError(path: typeCursor.path, message: message, expected: "one of \(allowed.joined(separator: ", "))", example: example)
    }
    return (type, optional("value"))
  }
}
