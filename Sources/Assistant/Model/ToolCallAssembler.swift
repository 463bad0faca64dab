import Foundation
import SearchIndex

/// Rebuilds whole tool calls from the fragments a streaming server spreads over many chunks.
///
/// Fragments are keyed by their `index`: the first usually carries the id and name, the
/// rest carry pieces of the arguments text. Servers differ in the details, so this accepts
/// a missing index (falls back to the id, then to the position in the chunk), ids or names
/// repeated in every fragment, and arguments sent whole as an object.
struct ToolCallAssembler {
  /// What has arrived so far for one call.
  private struct Partial {
    var id: String?
    var name = ""
    var arguments = ""
  }

  /// Why fragments could not be assembled, phrased for `ModelError.malformed`.
  struct Problem: Error {
    let description: String
    init(_ description: String) { self.description = description }
  }

  private var partials: [Int: Partial] = [:]

  var isEmpty: Bool { partials.isEmpty }

  /// Adds the `tool_calls` array of one delta (or of a whole non-streamed message).
  /// Throws a description of the problem when the shape is wrong.
  mutating func add(_ toolCalls: JSONValue) throws(Problem) {
    guard let fragments = toolCalls.arrayValue else {
      throw Problem("tool_calls is not an array")
    }
    for (position, fragment) in fragments.enumerated() {
      guard fragment.objectValue != nil else {
        throw Problem("tool call fragment is not an object")
      }
      let id = fragment["id"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
      let index: Int
      if let explicit = fragment["index"]?.intValue {
        index = explicit
      } else if let id, let known = partials.first(where: { $0.value.id == id })?.key {
        index = known
      } else if id != nil {
        index = (partials.keys.max() ?? -1) + 1
      } else {
        index = position
      }
      // Taken out while it grows: a copy left in the dictionary would make every appended
      // fragment copy the arguments so far.
      var partial = partials.removeValue(forKey: index) ?? Partial()
      if partial.id == nil { partial.id = id }
      let function = fragment["function"]
      if let function, function.objectValue == nil, !function.isNull {
        throw Problem("tool call function is not an object")
      }
      switch function?["name"] {
      case .string(let name)?:
        // Some servers repeat the full name in every fragment; only a new piece is
        // appended, so both styles produce the same name.
        if partial.name.isEmpty {
          partial.name = name
        } else if name != partial.name {
          partial.name += name
        }
      case nil, .null?:
        break
      default:
        throw Problem("tool call name is not a string")
      }
      switch function?["arguments"] {
      case .string(let piece)?:
        partial.arguments += piece
      case .object?:
        partial.arguments = function?["arguments"]?.compactText ?? ""
      case nil, .null?:
        break
      default:
        throw Problem("tool call arguments are neither a string nor an object")
      }
      partials[index] = partial
    }
  }

  /// Returns the calls assembled so far in index order and forgets them.
  mutating func drain() throws(Problem) -> [ToolCall] {
    defer { partials.removeAll() }
    return try partials.keys.sorted().map { (index) throws(Problem) -> ToolCall in
      let partial = partials[index] ?? Partial()
      guard !partial.name.isEmpty else {
        throw Problem("tool call at index \(index) has no function name")
      }
      // A server that omits the id still needs one for the `.tool` reply to quote.
      let id = partial.id ?? "call_\(index)"
      let arguments = partial.arguments.trimmingCharacters(in: .whitespaces).isEmpty ? "{}" : partial.arguments
      return ToolCall(id: id, name: partial.name, arguments: arguments)
    }
  }
}
