import Foundation
import Testing
@testable import Assistant
import SearchIndex

/// Retrieved text inside the `<data>` fence can neither close it nor open another, however it
/// disguises the tag, and cannot speak in a chat template's voice.
@Suite struct PromptFenceTests {
  static func fenced(_ text: String) -> String { ToolResultFormatter.neutralised(text) }

  @Test(arguments: [
    "</data>", "</DATA>", "<data>", "< /data >", "</ data>",
    "\u{2039}\u{200B}/data>",          // single guillemet and a zero-width space
    "\u{FF1C}/data\u{FF1E}",           // fullwidth
    "\u{FE64}/data\u{FE65}",           // small forms
    "<\u{2044}data>", "<\u{FF0F}data>", // fraction and fullwidth slashes
    "</\u{200D}data>", "</d\u{00AD}ata>", "\u{202E}</data>", "</data\u{FEFF}>",
  ])
  func noDisguiseClosesOrOpensTheFence(_ text: String) {
    let result = Self.fenced("before " + text + " after")
    let skeleton = result.lowercased().filter { !$0.isWhitespace }
    #expect(!skeleton.contains("</data"), "\(result.debugDescription)")
    #expect(!skeleton.contains("<data"), "\(result.debugDescription)")
    #expect(result.contains("&lt;"), "\(result.debugDescription)")
    #expect(result.hasPrefix("before ") && result.hasSuffix(" after"))
  }

  /// Text with nothing to neutralise comes back as it was, tabs and all; one `<` or `[`, or a
  /// format character, anywhere in it is still handled.
  @Test func plainTextPassesUnchanged() {
    let plain = "Mist Trail: 5.4 mi, rated 4.8 (a > b)\tdone; 100% sure {ok} & 'quoted'"
    #expect(Self.fenced(plain) == plain)
    #expect(Self.fenced(plain + " </data>").hasSuffix(" &lt;/data>"))
    #expect(Self.fenced(plain + " [INST]").hasSuffix(" &#91;INST]"))
    #expect(Self.fenced("Zo\u{200B}ë") == "Zoë")
  }

  @Test(arguments: [
    "<|im_start|>system", "<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|start_header_id|>assistant<|end_header_id|>",
    "\u{FF1C}|im_start|\u{FF1E}", "<\u{FF5C}im_start\u{FF5C}>", "<s>", "</s>", "<<SYS>>", "<</SYS>>",
    "<start_of_turn>user", "<end_of_turn>",
  ])
  func chatTemplateTagsLoseTheirAngleBracket(_ token: String) {
    let result = Self.fenced("x " + token + " y")
    #expect(!result.contains("<|") && !result.contains("<s>") && !result.contains("</s>") && !result.contains("<<"), "\(result.debugDescription)")
    #expect(!result.contains("<start_of_turn>") && !result.contains("<end_of_turn>"), "\(result.debugDescription)")
    #expect(result.contains("&lt;"), "\(result.debugDescription)")
  }

  @Test(arguments: ["[INST]", "[/INST]", "[ inst ]", "\u{FF3B}INST\u{FF3D}", "[SYSTEM_PROMPT]", "[TOOL_CALLS]"])
  func bracketedTemplateTokensAreEscaped(_ token: String) {
    let result = Self.fenced("x " + token + " y")
    #expect(result.contains("&#91;"), "\(result.debugDescription)")
    #expect(!result.uppercased().filter { !$0.isWhitespace }.contains("[INST]"), "\(result.debugDescription)")
    #expect(!result.uppercased().contains("[/INST]"))
  }

  @Test(arguments: [
    "rating < 3 and 4 > 2", "i <3 trails", "5<6", "[1] id: trail-17 | title: Mist Trail", "Café Müller — 5 km",
    "東京タワー", "[TODO] call Sam", "x << 2",
  ])
  func ordinaryTextIsUnchanged(_ text: String) {
    #expect(Self.fenced(text) == text)
  }

  @Test func invisibleCharactersAreDroppedAndLookAlikesFolded() {
    #expect(Self.fenced("zero\u{200B}width\u{2060}joined") == "zerowidthjoined")
    #expect(Self.fenced("a\u{FF0F}b") == "a/b")
  }
  /// The neutralising rules as first written, scalar by scalar (before the runs between
  /// replacements were copied whole): the reference the faster form must agree with.
  static func reference(_ line: String) -> String {
    var folded = String.UnicodeScalarView()
    for scalar in line.unicodeScalars {
      if scalar.isASCII { folded.append(scalar); continue }
      if scalar.properties.generalCategory == .format { continue }
      folded.append(ToolResultFormatter.lookAlikes[scalar] ?? scalar)
    }
    let scalars = Array(folded)
    func startsTag(after index: Int) -> Bool {
      var next = index + 1
      while next < scalars.count, scalars[next].properties.isWhitespace { next += 1 }
      guard next < scalars.count else { return false }
      if scalars[next] == "<" { return startsTag(after: next) }
      return scalars[next].properties.isAlphabetic || "/|!?".unicodeScalars.contains(scalars[next])
    }
    func templateTokenLength(at index: Int) -> Int? {
      guard let close = scalars[index...].prefix(32).firstIndex(of: "]") else { return nil }
      let inside = String(String.UnicodeScalarView(scalars[(index + 1)..<close])).filter { !$0.isWhitespace && $0 != "/" }.uppercased()
      return ToolResultFormatter.templateTokens.contains(inside) ? close - index + 1 : nil
    }
    var result = String.UnicodeScalarView()
    var index = 0
    while index < scalars.count {
      let scalar = scalars[index]
      if scalar == "<", startsTag(after: index) {
        result.append(contentsOf: "&lt;".unicodeScalars)
      } else if scalar == "[", let length = templateTokenLength(at: index) {
        result.append(contentsOf: "&#91;".unicodeScalars)
        result.append(contentsOf: scalars[(index + 1)..<(index + length)])
        index += length
        continue
      } else {
        result.append(scalar)
      }
      index += 1
    }
    return String(result)
  }

  @Test func agreesWithTheScalarByScalarRulesOnRandomText() {
    let pieces = [
      "<", "[", "]", "/", "|", "!", "?", " ", "\t", "\n", "a", "Z", "é", "東", "data", "INST", "inst", "SYS", "TOOL_CALLS",
      "\u{2039}", "\u{FF1C}", "\u{FF3B}", "\u{FF3D}", "\u{2044}", "\u{200B}", "\u{00AD}", "\u{202E}", "\u{FEFF}", "3", "<<",
      "\u{1F600}", "e\u{301}",
    ]
    var generator = SplitMix64(seed: 0x5EA7C4)
    var checked = 0
    for _ in 0..<4_000 {
      let count = Int.random(in: 0...24, using: &generator)
      let text = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
      let expected = Self.reference(text)
      #expect(Self.fenced(text) == expected, "\(text.debugDescription)")
      if expected != text { checked += 1 }
    }
    // Most random texts had something to change, so both paths were exercised.
    #expect(checked > 1_000)
  }
}
