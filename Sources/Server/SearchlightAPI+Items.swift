import Dispatch
import Foundation
import QueryEngine
import SearchIndex

extension SearchlightAPI {
  /// `GET /v1/items/{id}`: the item's canonical JSON, or 404. A protected item the scope does
  /// not grant and an expired item get the very 404 of a missing one.
  func item(_ id: String, scope: AccessScope) -> HTTPResponse {
    do {
      guard let item = try index.item(withIdentifier: id), Self.isVisible(item, in: scope) else {
        return Self.noItem(id)
      }
      return Self.json(.object(item.jsonObject))
    } catch {
      return Self.failure(error)
    }
  }

  static func noItem(_ id: String) -> HTTPResponse {
    APIError.response(404, "no item with id '\(id)'")
  }

  /// The rule of `AccessScope.sqlCondition` for one item read by identifier: not expired by
  /// the real clock, and unprotected or of a granted class.
  static func isVisible(_ item: SearchableItem, in scope: AccessScope) -> Bool {
    if let expiration = item.expirationDate, expiration <= scope.now { return false }
    if let protection = item.protectionClass, !scope.protectionClasses.contains(protection) { return false }
    return true
  }

  /// `POST /v1/items` with JSON Lines: every item is decoded, checked and written in one
  /// transaction, so a bad line (400 naming `line K`) writes nothing. `{"indexed":N}`.
  func addItems(_ request: HTTPRequest) -> HTTPResponse {
    let text = String(decoding: request.body, as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.contains(where: { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) else {
      return APIError.response(400, "the body has no items; send one item JSON object per line")
    }
    do {
      let count = try index.write { writer -> Int in
        var decoder = ItemDecoder(catalog: writer.catalog)
        var checker = ItemChecker(catalog: writer.catalog)
        var count = 0
        for (offset, line) in lines.enumerated() {
          let number = offset + 1
          let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
          if trimmed.isEmpty { continue }
          let value: JSONValue
          do { value = try JSONParser.parse(String(trimmed)) } catch let error as JSONParser.SyntaxError {
            throw LineError(line: number, message: "not JSON: \(error.message) at column \(error.column)")
          }
          let item: SearchableItem
          do {
            item = try decoder.decode(value)
            try checker.check(item)
          } catch let error as ItemDecodingError {
            throw LineError(line: number, message: error.message)
          }
          do { try writer.upsert(item) } catch let error as SearchIndexError {
            if case .invalidItem(_, let message) = error { throw LineError(line: number, message: message) }
            throw error
          }
          count += 1
        }
        return count
      }
      if count > 0, let hook = configuration.afterItemsWritten { Self.afterWrites.async(execute: hook) }
      return Self.json(["indexed": .number(Double(count))])
    } catch let error as LineError {
      return APIError.response(400, "line \(error.line): \(error.message); nothing was written", extra: [("line", .number(Double(error.line)))])
    } catch {
      return Self.failure(error)
    }
  }

  /// Where `afterItemsWritten` runs: one at a time, in order.
  static let afterWrites = DispatchQueue(label: "searchlight.serve.after-writes")

  /// One bad line of a `POST /v1/items` body.
  struct LineError: Error {
    var line: Int
    var message: String
  }

  /// `DELETE /v1/items/{id}`: `{"deleted":1}`, or 404 when the scope sees no such item (a
  /// hidden item is neither deleted nor revealed).
  func deleteItem(_ id: String, scope: AccessScope) -> HTTPResponse {
    do {
      guard let item = try index.item(withIdentifier: id), Self.isVisible(item, in: scope) else { return Self.noItem(id) }
      let deleted = try index.deleteSearchableItems(withIdentifiers: [item.uniqueIdentifier])
      return Self.json(["deleted": .number(Double(deleted))])
    } catch {
      return Self.failure(error)
    }
  }

  /// `DELETE /v1/items?domain=D`: deletes the items of the domain and its sub-domains (as
  /// `delete --domain`) that the scope sees; hidden items are neither deleted nor counted.
  /// `{"deleted":N}`.
  func deleteDomain(_ request: HTTPRequest, scope: AccessScope) -> HTTPResponse {
    guard let domain = request.query["domain"], !domain.isEmpty else {
      return APIError.response(400, "give the domain to delete: DELETE /v1/items?domain=D (or DELETE /v1/items/{id})")
    }
    do { try ItemDecoder.validateDomain(domain) } catch {
      return APIError.response(400, error.message)
    }
    do {
      // The visible items of the domain, found by a query in the caller's scope (the domain
      // is an escaped string literal of the query, never SQL text).
      let escaped = Self.escapedForQuery(domain)
      let text = "domainIdentifier == \"\(escaped)\" || domainIdentifier == \"\(escaped).*\""
      let options = options(scope)
      let executor = executor
      var identifiers: [String] = []
      var seen: Set<String> = []
      _ = try executor.execute(try executor.prepare(text, options: options), options: options) { reply in
        switch reply.content {
        case .items(let items), .scoredItems(let items):
          for item in items where seen.insert(item.item.uniqueIdentifier).inserted { identifiers.append(item.item.uniqueIdentifier) }
        default: break
        }
      }
      var deleted = 0
      for start in stride(from: 0, to: identifiers.count, by: 500) {
        deleted += try index.deleteSearchableItems(withIdentifiers: Array(identifiers[start..<min(start + 500, identifiers.count)]))
      }
      return Self.json(["deleted": .number(Double(deleted))])
    } catch {
      return Self.failure(error)
    }
  }

  /// `text` inside a query's double-quoted string, matched literally: quote, backslash and the
  /// wildcards `*` and `?` escaped.
  static func escapedForQuery(_ text: String) -> String {
    var out = ""
    for character in text {
      if character == "\\" || character == "\"" || character == "*" || character == "?" { out.append("\\") }
      out.append(character)
    }
    return out
  }
}
