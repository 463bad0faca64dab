import Foundation
import SearchIndex

/// The bearer tokens of `--token-file` and the protection classes each grants.
///
/// The file is `{"tokens":[{"token":"...","protection":["classA"]}, ...]}`; `protection` is
/// optional (none granted). Tokens are compared in constant time: every configured token is
/// compared in full, whatever matches, so the time taken says nothing about any of them.
package struct AccessTokens: Sendable {
  package struct Token: Sendable {
    package var secret: [UInt8]
    package var protection: Set<String>

    package init(secret: [UInt8], protection: Set<String>) {
      self.secret = secret
      self.protection = protection
    }
  }

  package let tokens: [Token]

  package init(_ tokens: [Token]) { self.tokens = tokens }

  /// Reads a token file; the error message names what is wrong.
  package static func load(path: String) throws -> AccessTokens {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw TokenFileError(message: "\(path): cannot read the token file")
    }
    return try parse(String(decoding: data, as: UTF8.self), name: path)
  }

  package static func parse(_ text: String, name: String = "token file") throws -> AccessTokens {
    let json: JSONValue
    do { json = try JSONParser.parse(text) } catch {
      throw TokenFileError(message: "\(name): \(error)")
    }
    guard let list = json["tokens"]?.arrayValue else {
      throw TokenFileError(message: "\(name): expected {\"tokens\":[{\"token\":\"...\",\"protection\":[...]}]}")
    }
    var tokens: [Token] = []
    for (number, entry) in list.enumerated() {
      guard let secret = entry["token"]?.stringValue, !secret.isEmpty else {
        throw TokenFileError(message: "\(name): tokens[\(number)] needs a non-empty \"token\" string")
      }
      var protection: Set<String> = []
      if let classes = entry["protection"], !classes.isNull {
        guard let array = classes.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
          throw TokenFileError(message: "\(name): tokens[\(number)].protection must be an array of strings")
        }
        protection = Set(array.compactMap(\.stringValue))
      }
      tokens.append(Token(secret: Array(secret.utf8), protection: protection))
    }
    guard !tokens.isEmpty else { throw TokenFileError(message: "\(name): the token file lists no tokens") }
    return AccessTokens(tokens)
  }

  /// The token an `Authorization: Bearer TOKEN` header names, or nil.
  package func token(forAuthorization header: String?) -> Token? {
    guard let header else { return nil }
    let prefix = "bearer "
    guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else { return nil }
    let candidate = Array(header.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces).utf8)
    var found: Int = -1
    for (position, token) in tokens.enumerated() where Self.constantTimeEqual(token.secret, candidate) {
      found = position
    }
    return found >= 0 ? tokens[found] : nil
  }

  /// Compares every byte of the longer input (no early exit), so equal-length prefixes take
  /// no less time than whole matches.
  static func constantTimeEqual(_ secret: [UInt8], _ candidate: [UInt8]) -> Bool {
    var difference = UInt(secret.count ^ candidate.count)
    let length = max(secret.count, candidate.count)
    for position in 0..<length {
      let a = position < secret.count ? secret[position] : 0
      let b = position < candidate.count ? candidate[position] : 0
      difference |= UInt(a ^ b)
    }
    return difference == 0
  }
}

/// A token file that cannot be used.
package struct TokenFileError: Error, CustomStringConvertible {
  package var message: String
  package var description: String { message }
}
