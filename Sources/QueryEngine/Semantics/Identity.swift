import Foundation
import SearchIndex

/// Who "me" is: the user's names, email addresses and phone numbers, read from an identity
/// file (`--identity FILE`, JSON `{"names":[...],"emails":[...],"phones":[...]}`).
public struct Identity: Sendable, Hashable {
  public var names: [String]
  public var emails: [String]
  public var phones: [String]

  public init(names: [String] = [], emails: [String] = [], phones: [String] = []) {
    self.names = names
    self.emails = emails
    self.phones = phones
  }

  public var isEmpty: Bool { names.isEmpty && emails.isEmpty && phones.isEmpty }

  /// Reads an identity file; errors name the file and what is wrong.
  public static func load(path: String) throws -> Identity {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw QueryRuntimeError("\(path): cannot read the identity file")
    }
    let value: JSONValue
    do { value = try JSONParser.parse(String(decoding: data, as: UTF8.self)) } catch {
      throw QueryRuntimeError("\(path):\(error.line): malformed JSON: \(error.message)")
    }
    guard case .object(let object) = value else { throw QueryRuntimeError("\(path): expected an object with names, emails, phones") }
    func strings(_ key: String) throws -> [String] {
      guard let member = object[key], !member.isNull else { return [] }
      guard case .array(let values) = member else { throw QueryRuntimeError("\(path): '\(key)' must be a list of strings") }
      return try values.map { value in
        guard case .string(let s) = value else { throw QueryRuntimeError("\(path): '\(key)' must be a list of strings") }
        return s
      }
    }
    return Identity(names: try strings("names"), emails: try strings("emails"), phones: try strings("phones"))
  }
}
