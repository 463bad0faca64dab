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
      return Self.json(["indexed": .number(Double(count))])
    } catch let error as LineError {
      return APIError.response(400, "line \(error.line): \(error.message); nothing was written", extra: [("line", .number(Double(error.line)))])
    } catch {
      return Self.failure(error)
    }
  }

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

  /// `DELETE /v1/items?domain=D`: deletes the domain and its sub-domains (as `delete
  /// --domain`); `{"deleted":N}`.
  func deleteDomain(_ request: HTTPRequest) -> HTTPResponse {
    guard let domain = request.query["domain"], !domain.isEmpty else {
      return APIError.response(400, "give the domain to delete: DELETE /v1/items?domain=D (or DELETE /v1/items/{id})")
    }
    do { try ItemDecoder.validateDomain(domain) } catch {
      return APIError.response(400, error.message)
    }
    do {
      let deleted = try index.deleteSearchableItems(withDomainIdentifiers: [domain])
      return Self.json(["deleted": .number(Double(deleted))])
    } catch {
      return Self.failure(error)
    }
  }
}
