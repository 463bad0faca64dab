import SearchIndex

/// A validator for the subset of JSON Schema the tool schemas use: `type` (a name or a list),
/// `enum`, `const`, `properties`, `required`, `additionalProperties: false`, `items`, `anyOf`
/// and `$ref` into the root's `$defs`. Annotations (`description`, `title`) are ignored.
struct JSONSchemaValidator {
  /// The document `$ref`s resolve against.
  let root: JSONValue

  /// Keywords this validator understands; a schema using others is out of its subset.
  static let keywords: Set<String> = [
    "type", "enum", "const", "properties", "required", "additionalProperties", "items", "anyOf", "$ref", "$defs", "description", "title",
  ]

  /// The problems of `value` under `schema` (the root when nil); empty when it is valid.
  func errors(_ value: JSONValue, _ schema: JSONValue? = nil, path: String = "$") -> [String] {
    let schema = schema ?? root
    var problems: [String] = []
    if let reference = schema["$ref"]?.stringValue {
      guard let target = resolve(reference) else { return ["\(path): unresolved $ref \(reference)"] }
      problems += errors(value, target, path: path)
    }
    if let options = schema["anyOf"]?.arrayValue {
      let attempts = options.map { errors(value, $0, path: path) }
      if !attempts.contains(where: \.isEmpty) {
        let closest = attempts.min { $0.count < $1.count } ?? []
        problems.append("\(path): matches none of \(options.count) alternatives; closest: \(closest.joined(separator: "; "))")
      }
    }
    if let type = schema["type"] {
      let names = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue ?? ""]
      if !names.contains(where: { Self.matches(value, type: $0) }) {
        problems.append("\(path): expected \(names.joined(separator: " or ")), got \(value.kindDescription)")
        return problems
      }
    }
    if let allowed = schema["enum"]?.arrayValue, !allowed.contains(value) {
      problems.append("\(path): \(value.compactText) is not one of \(JSONValue.array(allowed).compactText)")
    }
    if let constant = schema["const"], constant != value {
      problems.append("\(path): expected \(constant.compactText), got \(value.compactText)")
    }
    if case .object(let object) = value {
      let properties = schema["properties"]?.objectValue ?? JSONObject()
      for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
        problems.append("\(path): missing required property '\(name)'")
      }
      for (name, member) in object {
        if let property = properties[name] {
          problems += errors(member, property, path: "\(path).\(name)")
        } else if schema["additionalProperties"] == .bool(false) {
          problems.append("\(path): property '\(name)' is not allowed")
        }
      }
    }
    if case .array(let elements) = value, let items = schema["items"] {
      for (index, element) in elements.enumerated() { problems += errors(element, items, path: "\(path)[\(index)]") }
    }
    return problems
  }

  static func matches(_ value: JSONValue, type: String) -> Bool {
    switch (type, value) {
    case ("string", .string), ("boolean", .bool), ("object", .object), ("array", .array), ("null", .null), ("number", .number): true
    case ("integer", .number(let n)): n == n.rounded()
    default: false
    }
  }

  /// The schema a `#/$defs/NAME` reference names.
  func resolve(_ reference: String) -> JSONValue? {
    guard reference.hasPrefix("#/") else { return nil }
    var node: JSONValue? = root
    for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
    return node
  }

  /// The call as a strict-mode model sends it: every property the call leaves out whose schema
  /// accepts null is present as null.
  func filled(_ value: JSONValue, _ schema: JSONValue? = nil) -> JSONValue {
    let schema = schema ?? root
    if let reference = schema["$ref"]?.stringValue, let target = resolve(reference) { return filled(value, target) }
    if let options = schema["anyOf"]?.arrayValue {
      for option in options {
        let candidate = filled(value, option)
        if errors(candidate, option).isEmpty { return candidate }
      }
      return value
    }
    switch value {
    case .object(let object):
      guard let properties = schema["properties"]?.objectValue else { return value }
      var result = JSONObject()
      for (name, member) in object { result[name] = properties[name].map { filled(member, $0) } ?? member }
      for (name, property) in properties where object[name] == nil && errors(.null, property).isEmpty {
        result[name] = JSONValue.null
      }
      return .object(result)
    case .array(let elements):
      guard let items = schema["items"] else { return value }
      return .array(elements.map { filled($0, items) })
    default:
      return value
    }
  }

  /// Every schema object inside `schema` (itself included), with a path for messages.
  static func subschemas(_ schema: JSONValue, path: String = "#") -> [(path: String, schema: JSONValue)] {
    guard case .object(let object) = schema else { return [] }
    var result = [(path, schema)]
    for (key, member) in object {
      switch key {
      case "properties", "$defs":
        for (name, child) in member.objectValue ?? JSONObject() { result += subschemas(child, path: "\(path)/\(key)/\(name)") }
      case "items":
        result += subschemas(member, path: "\(path)/items")
      case "anyOf":
        for (index, child) in (member.arrayValue ?? []).enumerated() { result += subschemas(child, path: "\(path)/anyOf/\(index)") }
      default:
        break
      }
    }
    return result
  }
}
