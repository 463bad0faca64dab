import Foundation
import Testing
@testable import SearchIndex

@Suite struct JSONParserTests {
  /// A document the parser must reject, and where it must say the problem is.
  struct SyntaxErrorCase: Sendable, CustomTestStringConvertible {
    var text: String
    var message: String
    var line: Int
    var column: Int
    var testDescription: String { text.debugDescription }
  }

  static let syntaxErrors: [SyntaxErrorCase] = [
    .init(text: "", message: "unexpected end of input, expected a value", line: 1, column: 1),
    .init(text: "{\"a\": 1,\n \"b\" 2}", message: "expected ':' after member name", line: 2, column: 6),
    .init(text: "[1, 2,\n\n  ]", message: "unexpected character ']', expected a value", line: 3, column: 3),
    .init(text: "\"abc", message: "unterminated string", line: 1, column: 5),
    .init(text: "{\"é\": x}", message: "unexpected character 'x', expected a value", line: 1, column: 7),
    .init(text: "[tru]", message: "invalid literal, expected 'true'", line: 1, column: 2),
    .init(text: "[1] 2", message: "unexpected text after the JSON value", line: 1, column: 5),
    .init(text: "\"a\tb\"", message: "control character in string", line: 1, column: 3),
    .init(text: "\"\\x\"", message: "invalid escape '\\x'", line: 1, column: 4),
    .init(text: "{\"a\":1,}", message: "expected a quoted member name", line: 1, column: 8),
    .init(text: "{\"a\":1 \"b\":2}", message: "expected ',' or '}' in object", line: 1, column: 8),
    .init(text: "[1 2]", message: "expected ',' or ']' in array", line: 1, column: 4),
    .init(text: "\n\n  {'a': 1}", message: "expected a quoted member name", line: 3, column: 4),
  ]

  @Test(arguments: syntaxErrors)
  func syntaxErrorsReportMessageLineAndColumn(_ testCase: SyntaxErrorCase) {
    #expect {
      _ = try JSONParser.parse(testCase.text)
    } throws: { error in
      guard let error = error as? JSONParser.SyntaxError else { return false }
      return error.message == testCase.message && error.line == testCase.line && error.column == testCase.column
    }
  }

  @Test func syntaxErrorDescriptionNamesLineAndColumn() {
    let error = JSONParser.SyntaxError(message: "unterminated string", line: 4, column: 9)
    #expect(error.description == "unterminated string at line 4, column 9")
  }

  @Test func parsesEveryKindOfValue() throws {
    let value = try JSONParser.parse(#" {"s":"x","n":-1.5e2,"t":true,"f":false,"z":null,"a":[1,[]],"o":{}} "#)
    #expect(value == ["s": "x", "n": -150.0, "t": true, "f": false, "z": nil, "a": [1, []], "o": [:]])
  }

  @Test func objectsKeepTheirMemberOrder() throws {
    let value = try JSONParser.parse(#"{"zebra":1,"apple":2,"mango":3}"#)
    #expect(value.objectValue?.keys == ["zebra", "apple", "mango"])
  }

  @Test func decodesEveryEscape() throws {
    let value = try JSONParser.parse(#""\"\\\/\b\f\n\r\t\u00e9\u0041""#)
    #expect(value == .string("\"\\/\u{8}\u{c}\n\r\té" + "A"))
  }

  @Test(arguments: [#""\ud83d\ude00""#, #""\uD83D\uDE00""#])
  func joinsSurrogatePairsIntoOneScalar(_ text: String) throws {
    #expect(try JSONParser.parse(text) == .string("😀"))
  }

  @Test(arguments: [
    (#""\ud83d""#, "unpaired surrogate in \\u escape"),
    (#""\ud83dx""#, "unpaired surrogate in \\u escape"),
    (#""\ude00""#, "unpaired surrogate in \\u escape"),
    (#""\ud83d\u0041""#, "invalid low surrogate in \\u escape"),
    (#""\u00""#, "invalid hex digit in \\u escape"),
    (#""\u12G4""#, "invalid hex digit in \\u escape"),
  ])
  func rejectsBrokenUnicodeEscapes(_ text: String, _ message: String) {
    #expect {
      _ = try JSONParser.parse(text)
    } throws: { ($0 as? JSONParser.SyntaxError)?.message == message }
  }

  @Test func rejectsStringsThatAreNotUTF8() {
    var parser = JSONParser(bytes: [0x22, 0x61, 0xFF, 0x22])
    #expect {
      _ = try parser.parseDocument()
    } throws: { ($0 as? JSONParser.SyntaxError)?.message == "string is not valid UTF-8" }
  }

  @Test(arguments: [#"{"a":1,"b":2,"a":3}"#, #"[{"x":{"k":1,"k":1}}]"#])
  func rejectsDuplicateMembers(_ text: String) {
    #expect {
      _ = try JSONParser.parse(text)
    } throws: { ($0 as? JSONParser.SyntaxError)?.message.hasPrefix("duplicate member") == true }
  }

  /// Names are checked where they end, as before values were parsed first: the error points
  /// after the repeated name (line 2, column 4), not after its value.
  @Test func aDuplicateMemberIsReportedAtItsName() {
    #expect {
      _ = try JSONParser.parse("{\"a\":1,\n\"a\":[1,2,3]}")
    } throws: { ($0 as? JSONParser.SyntaxError).map { ($0.line, $0.column) } ?? (0, 0) == (2, 4) }
  }

  /// A string read whole (no escape) and one with escapes after a plain start are the same
  /// strings a byte-by-byte reading gives, non-ASCII text included.
  @Test func stringsWithAndWithoutEscapesDecodeAlike() throws {
    #expect(try JSONParser.parse(#"["Zoë plain", "Zoë \"quoted\" \u00e9\n", "", "\\"]"#) == ["Zoë plain", "Zoë \"quoted\" é\n", "", "\\"])
    #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse("[\"tab\there\"]") }
    #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(#"["unterminated"#) }
  }

  /// Strings with escapes (a document's text has one on every line) decode a run at a time:
  /// random texts written with every escape form, or with the character itself, read back as
  /// written, alone and as a record's member.
  @Test func escapedStringsReadBackAsWritten() throws {
    var generator = SplitMix64(seed: 28)
    let pieces: [String] = ["plain words ", "\n", "\"", "\\", "/", "\u{01}", "\u{1F}", "\t", "é", "日本", "😀", "\u{7F}", "x"]
    for round in 0..<3_000 {
      var text = ""
      var json = "\""
      for _ in 0..<Int(generator.next() % 40) {
        let piece = pieces[Int(generator.next() % UInt64(pieces.count))]
        let repeats = round % 10 == 0 ? Int(generator.next() % 300) + 1 : 1
        for _ in 0..<repeats {
          text += piece
          for scalar in piece.unicodeScalars {
            let form = generator.next() % 3
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += form == 0 ? "\\u000a" : "\\n"
            case "\t": json += form == 0 ? "\\u0009" : "\\t"
            case "/": json += form == 0 ? "\\/" : "/"
            case _ where scalar.value < 0x20: json += String(format: "\\u%04x", scalar.value)
            case _ where scalar.value > 0xFFFF && form == 0:
              let v = scalar.value - 0x10000
              json += String(format: "\\u%04X\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF))
            case _ where scalar.value >= 0x80 && scalar.value <= 0xFFFF && form == 0: json += String(format: "\\u%04x", scalar.value)
            default: json.unicodeScalars.append(scalar)
            }
          }
        }
      }
      json += "\""
      #expect(try JSONParser.parse(json) == .string(text), "\(json)")
      let record = "{\"skip\":\(json),\"keep\":\(json)}"
      #expect(try JSONParser.parseObject(Array(record.utf8), keeping: { $0 == "keep" })["keep"] == .string(text), "\(json)")
    }
  }

  /// A broken escape after many good ones is reported where it is, as a byte-by-byte reading
  /// reports it.
  @Test(arguments: [
    (#"\x"#, "invalid escape '\\x'", 2), (#"\ud83d"#, "unpaired surrogate in \\u escape", 6),
    (#"\ude00"#, "unpaired surrogate in \\u escape", 6), (#"\ud83d\u0041"#, "invalid low surrogate in \\u escape", 12),
    (#"\u12G4"#, "invalid hex digit in \\u escape", 4), ("\u{01}", "control character in string", 0),
  ])
  func aBrokenEscapeAfterGoodOnesIsReportedWhereItIs(_ broken: String, _ message: String, _ offset: Int) {
    let good = String(repeating: #"line\n\"é\" "#, count: 40)
    let text = "\"" + good + broken + "\""
    #expect {
      _ = try JSONParser.parse(text)
    } throws: { error in
      guard let error = error as? JSONParser.SyntaxError else { return false }
      return error.message == message && error.line == 1 && error.column == 1 + good.count + 1 + offset
    }
  }

  /// Reading a few members of a record builds only those, and they equal a whole parse's;
  /// the members passed over still have to be well formed.
  @Test func aRecordsChosenMembersEqualAWholeParses() throws {
    let text = #"{"a":"x \"q\" \\","skip":{"n":[1,2.5e3,-0,{"deep":["\u00e9\\",true,null]}],"s":"}]"},"b":[1,"é"],"c":false,"last":"end"}"#
    guard case .object(let whole) = try JSONParser.parse(text) else { Issue.record("not an object"); return }
    let chosen = try JSONParser.parseObject(Array(text.utf8)) { ["a", "b", "last"].contains($0) }
    #expect(chosen.count == 3)
    for (name, value) in chosen { #expect(whole[name] == value, "\(name)") }
    #expect(try JSONParser.parseObject(Array(text.utf8)) { _ in false }.count == 0)
    for bad in [#"{"a":1,"skip":[1,}"#, #"{"skip":"open}"#, #"{"skip":{"k" 1},"a":1}"#, #"{"skip":tru,"a":1}"#, #"{"a":1} x"#, "[1]"] {
      #expect(throws: JSONParser.SyntaxError.self, "\(bad)") { try JSONParser.parseObject(Array(bad.utf8)) { $0 == "a" } }
    }
  }

  /// Members are handed over in order with the tag their name was recognised by (raw bytes,
  /// no escapes); a name written with an escape is parsed instead and carries none.
  @Test func membersComeWithTheTagsOfTheirNames() throws {
    let text = #"{"title":"a","rating":4.5,"t\u0069tle2":[1],"other":null}"#
    var seen: [String] = []
    try JSONParser.forEachMember(Array(text.utf8), recognise: { bytes in
      let name = String(decoding: bytes, as: UTF8.self)
      return name.hasPrefix("title") ? (name, name.count) : nil
    }, keeping: { name, _ in name != "other" }) { name, tag, value in
      seen.append("\(name) \(tag.map(String.init) ?? "-") \(value.compactText)")
    }
    #expect(seen == ["title 5 \"a\"", "rating - 4.5", "title2 - [1]"])
  }

  /// A repeated name is found whichever way each spelling was read (two recognised tags,
  /// a recognised name and the same name with an escape, two unrecognised names), at the
  /// position `parse` reports it, and also among members passed over.
  @Test(arguments: [#"{"title":1,"title":2}"#, #"{"title":1,"t\u0069tle":2}"#, #"{"x":1,"x":2}"#, #"{"title":1,"x":0,"title":2}"#])
  func aRepeatedNameIsFoundHoweverItWasRead(_ text: String) throws {
    let bytes = Array(text.utf8)
    func position(_ body: () throws -> Void) -> (Int, Int)? {
      do { try body(); return nil } catch let error as JSONParser.SyntaxError {
        #expect(error.message.hasPrefix("duplicate member"), "\(error.message)")
        return (error.line, error.column)
      } catch { return nil }
    }
    let expected = try #require(position { _ = try JSONParser.parse(text) })
    let recognised = position {
      try JSONParser.forEachMember(bytes, recognise: { String(decoding: $0, as: UTF8.self) == "title" ? ("title", 7) : nil }, keeping: { _, _ in true }) { _, _, _ in }
    }
    #expect(recognised.map { [$0.0, $0.1] } == [expected.0, expected.1])
    let passedOver = position { try JSONParser.forEachMember(bytes, recognise: { _ in nil }, keeping: { _, _ in false }) { _, _, _ in } }
    #expect(passedOver.map { [$0.0, $0.1] } == [expected.0, expected.1])
  }

  /// Short numbers are computed from their digits; every one equals what `Double(_:)` reads,
  /// bit for bit (negative zero included), and long ones and exponents still parse.
  @Test func numbersEqualTheStandardLibrarysReading() throws {
    var texts = ["0", "-0", "-0.0", "4.7", "0.1", "0.3", "123456789012345", "1234567890123456", "9007199254740993",
                 "0.000000000000001", "0.0000000000000001", "1e3", "-2.5E-3", "179769313486231570000", "3.141592653589793"]
    var generator = SplitMix64(seed: 11)
    for _ in 0..<2_000 {
      let whole = generator.next() % 1_000_000_000
      let fraction = generator.next() % 1_000_000
      let places = Int(generator.next() % 7)
      let sign = generator.next() % 2 == 0 ? "" : "-"
      texts.append(places == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(String(String(fraction).prefix(places)))")
    }
    for text in texts {
      guard case .number(let parsed) = try JSONParser.parse(text) else { Issue.record("\(text) is not a number"); continue }
      let expected = try #require(Double(text))
      #expect(parsed.bitPattern == expected.bitPattern, "\(text): \(parsed) against \(expected)")
    }
  }

  @Test func allowsTheSameMemberInDifferentObjects() throws {
    #expect(try JSONParser.parse(#"[{"a":1},{"a":2}]"#) == [["a": 1], ["a": 2]])
  }

  @Test func acceptsDeepButReasonableNesting() throws {
    let depth = 500
    let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    var value = try JSONParser.parse(text)
    var levels = 1
    while case .array(let elements) = value, let first = elements.first {
      value = first
      levels += 1
    }
    #expect(levels == depth)
  }

  @Test(arguments: [String(repeating: "[", count: 100_000), String(repeating: #"{"a":"#, count: 100_000)])
  func rejectsHostileNestingWithoutExhaustingTheStack(_ text: String) {
    #expect {
      _ = try JSONParser.parse(text)
    } throws: { ($0 as? JSONParser.SyntaxError)?.message == "JSON nested too deeply" }
  }

  @Test(arguments: [
    ("0", 0.0), ("-0", 0.0), ("7", 7.0), ("-12.75", -12.75), ("1e3", 1000.0), ("1E+3", 1000.0),
    ("1.5e-2", 0.015), ("123456789012", 123_456_789_012.0), ("0.1", 0.1),
  ])
  func parsesNumbers(_ text: String, _ expected: Double) throws {
    #expect(try JSONParser.parse(text) == .number(expected))
  }

  @Test(arguments: [
    ("01", "unexpected text after the JSON value"),
    ("1.", "invalid number: expected digits after '.'"),
    ("-", "invalid number"),
    ("1e", "invalid number: expected exponent digits"),
    ("1e+", "invalid number: expected exponent digits"),
    ("1e400", "number out of range"),
    ("-1e400", "number out of range"),
    (".5", "unexpected character '.', expected a value"),
    ("+1", "unexpected character '+', expected a value"),
    ("NaN", "unexpected character 'N', expected a value"),
  ])
  func rejectsMalformedNumbers(_ text: String, _ message: String) {
    #expect {
      _ = try JSONParser.parse(text)
    } throws: { ($0 as? JSONParser.SyntaxError)?.message == message }
  }

  @Test func arrayElementsReportTheLineTheyStartOn() throws {
    var parser = JSONParser("[\n  {\"a\": 1},\n\n  {\"b\":\n   2}, 3\n]\n")
    let elements = try parser.parseArrayElementsWithLines()
    #expect(elements.map(\.line) == [2, 4, 5])
    #expect(elements.map(\.value) == [["a": 1], ["b": 2], 3])
  }

  @Test func arrayElementsOfAnEmptyArrayAreNone() throws {
    var parser = JSONParser(" [ ] ")
    #expect(try parser.parseArrayElementsWithLines().isEmpty)
  }

  @Test func arrayElementsRequireAnArray() {
    var parser = JSONParser(#"{"id":"x"}"#)
    #expect {
      _ = try parser.parseArrayElementsWithLines()
    } throws: { ($0 as? JSONParser.SyntaxError)?.message == "expected '['" }
  }

  @Test func compactTextRoundTripsThroughTheParser() throws {
    let value: JSONValue = [
      "text": "quote \" backslash \\ newline \n tab \t control \u{1} é 😀",
      "numbers": [0, -3, 5.25, 1e20, 0.1],
      "flags": [true, false, nil],
      "nested": ["empty": [:], "list": []],
    ]
    #expect(try JSONParser.parse(value.compactText) == value)
    #expect(try JSONParser.parse(value.prettyText) == value)
  }

  @Test func compactTextEscapesControlCharactersAndWritesIntegersWithoutFraction() {
    let value: JSONValue = ["a": "\u{1}\n", "b": 5.0, "c": 5.5]
    #expect(value.compactText == #"{"a":"\u0001\n","b":5,"c":5.5}"#)
    #expect(JSONValue.string("\u{1F}\u{7F}\r\\").compactText == #""\u001f\#u{7F}\r\\""#)
  }

  @Test func prettyTextIndentsTwoSpacesALevel() {
    let value: JSONValue = ["a": [1, ["b": nil]], "c": [:], "d": []]
    #expect(value.prettyText == "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": []\n}")
  }

  @Test func parsesUTF8DataSuchAsAnHTTPBody() throws {
    let body = Data(#"{"z": 1, "é": ["x"]}"#.utf8)
    let value = try JSONParser.parse(body)
    #expect(value.objectValue?.keys == ["z", "é"])
    #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(Data("{} x".utf8)) }
  }

  @Test func intValueOnlyForWholeNumbers() {
    #expect(JSONValue.number(42).intValue == 42)
    #expect(JSONValue.number(-7).intValue == -7)
    #expect(JSONValue.number(4.5).intValue == nil)
    #expect(JSONValue.number(1e300).intValue == nil)
    #expect(JSONValue.string("3").intValue == nil)
  }
  /// Strings are scanned eight bytes at a time: a quote, backslash or control character at
  /// any position of a word, or in the tail after the last whole word, is found, whether the
  /// string is read or passed over.
  @Test func everyPositionOfAStringIsScanned() throws {
    for length in 0..<40 {
      let plain = String((0..<length).map { Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8($0 % 26))) })
      #expect(try JSONParser.parse("\"\(plain)\"") == .string(plain))
      for position in 0..<max(1, length) where length > 0 {
        var characters = Array(plain)
        characters[position] = "é"
        let accented = String(characters)
        #expect(try JSONParser.parse("[\"\(accented)\", 1]") == .array([.string(accented), .number(1)]))
        // An escaped quote at the position; kept and skipped members around it.
        var escaped = Array(plain)
        escaped.insert(contentsOf: ["\\", "\""], at: position)
        let text = "{\"skip\": \"\(String(escaped))\", \"keep\": \"\(String(escaped))\", \"n\": 2}"
        let object = try JSONParser.parseObject(Array(text.utf8), keeping: { $0 != "skip" })
        var expected = Array(plain)
        expected.insert("\"", at: position)
        #expect(object["keep"] == .string(String(expected)))
        #expect(object["skip"] == nil && object["n"] == .number(2))
        // A raw control character at the position is an error in both.
        var broken = Array(plain)
        broken[position] = "\u{01}"
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse("\"\(String(broken))\"") }
        let brokenObject = "{\"skip\": \"\(String(broken))\", \"n\": 2}"
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parseObject(Array(brokenObject.utf8), keeping: { $0 != "skip" }) }
      }
      // Unterminated at every length.
      #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse("\"\(plain)") }
    }
  }
}
