internal import CPCRE2

/// A compiled PCRE2 regular expression over UTF-8, matched with limits so a pathological
/// pattern cannot hang a query (https://www.pcre.org/current/doc/html/pcre2api.html#SEC21).
///
/// `@unchecked Sendable`: a compiled `pcre2_code` is read-only after compilation and PCRE2
/// documents it as safe to share between threads; every match creates its own match data.
final class Regex: @unchecked Sendable {
  private let code: OpaquePointer
  private let matchContext: OpaquePointer?

  /// Work limits per match: backtracking steps and nesting depth.
  static let matchLimit: UInt32 = 200_000
  static let depthLimit: UInt32 = 5_000

  /// Compiles `pattern`; `caseless` uses Unicode case folding.
  init(_ pattern: String, caseless: Bool) throws(QueryRuntimeError) {
    var options = UInt32(PCRE2_UTF | PCRE2_DOTALL | PCRE2_NO_UTF_CHECK)
    if caseless { options |= UInt32(PCRE2_CASELESS | PCRE2_UCP) }
    var errorCode: Int32 = 0
    var errorOffset: Int = 0
    let compiled = pattern.withCString { pointer in
      pointer.withMemoryRebound(to: UInt8.self, capacity: pattern.utf8.count) { bytes in
        pcre2_compile_8(bytes, pattern.utf8.count, options, &errorCode, &errorOffset, nil)
      }
    }
    guard let compiled else {
      var buffer = [UInt8](repeating: 0, count: 256)
      pcre2_get_error_message_8(errorCode, &buffer, buffer.count)
      let message = String(decoding: buffer.prefix(while: { $0 != 0 }), as: UTF8.self)
      throw QueryRuntimeError("invalid pattern at offset \(errorOffset): \(message)")
    }
    self.code = compiled
    let context = pcre2_match_context_create_8(nil)
    if let context {
      pcre2_set_match_limit_8(context, Self.matchLimit)
      pcre2_set_depth_limit_8(context, Self.depthLimit)
    }
    self.matchContext = context
  }

  deinit {
    pcre2_code_free_8(code)
    if let matchContext { pcre2_match_context_free_8(matchContext) }
  }

  /// True when the pattern matches `subject`; a match that exceeds the work limits counts as
  /// no match and sets `limitExceeded`.
  func matches(_ subject: String) -> (matched: Bool, limitExceeded: Bool) {
    guard let data = pcre2_match_data_create_from_pattern_8(code, nil) else { return (false, true) }
    defer { pcre2_match_data_free_8(data) }
    var subject = subject
    let rc = subject.withUTF8 { buffer in
      pcre2_match_8(code, buffer.baseAddress, buffer.count, 0, 0, data, matchContext)
    }
    if rc >= 0 { return (true, false) }
    if rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT { return (false, true) }
    return (false, false)
  }

  /// The first match in `subject` that starts at or after the byte offset `start` (only at
  /// `start` when `anchored`), as byte offsets; nil when there is none or the work limits cut
  /// the search off (a literal, the only pattern `PatternMatcher` searches this way, never
  /// backtracks).
  func firstMatch(in subject: UnsafeBufferPointer<UInt8>, from start: Int, anchored: Bool) -> Range<Int>? {
    guard let data = pcre2_match_data_create_from_pattern_8(code, nil) else { return nil }
    defer { pcre2_match_data_free_8(data) }
    let rc = pcre2_match_8(code, subject.baseAddress, subject.count, start, anchored ? UInt32(PCRE2_ANCHORED) : 0, data, matchContext)
    guard rc >= 0, let vector = pcre2_get_ovector_pointer_8(data) else { return nil }
    return vector[0]..<vector[1]
  }

  /// `text` with every regex metacharacter escaped.
  static func escape(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      if scalar.isASCII, !(scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) {
        if scalar == "\n" { out += "\\n"; continue }
        if scalar == "\0" { out += "\\x{0}"; continue }
        out += "\\"
      }
      out.unicodeScalars.append(scalar)
    }
    return out
  }
}

/// A failure while running a query (a pattern too complex, a cancelled query).
public struct QueryRuntimeError: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
