import Foundation

/// A manual page's troff source (`man` or BSD `mdoc` macros) read as text: what `man` shows,
/// without the layout. Enough of troff for searching and quoting: requests and macros
/// break or join lines, escapes become their characters or nothing, macro definitions,
/// conditionals and comments are dropped; no number registers, no hyphenation, no tables'
/// layout (their cells are text).
struct ManPage: Equatable {
  /// The names the NAME section gives (`gzip, gunzip, zcat \- ...`), first the page's own.
  var names: [String] = []
  /// What the NAME section says the command does, after its dash.
  var summary: String?
  /// The page's name as `.TH` or `.Dt` gives it, lowercased (`TAR` -> `tar`).
  var headerName: String?
  /// The text: headings and paragraphs apart by a blank line, a display's lines one per line.
  var text = ""
  /// The page that this one only includes (`.so man1/gzip.1`): an alias, not a page.
  var includes: String?

  /// True when a file's first bytes are troff: `.TH`, `.Dd`, `.SH` or `.so` comes before any
  /// line of text (comments, definitions, settings and conditionals may come first: pod2man
  /// writes many).
  static func looksLikeManPage(_ prefix: [UInt8]) -> Bool {
    guard TextDecoding.looksLikeText(prefix) else { return false }
    let text = String(decoding: prefix, as: UTF8.self)
    // Split by bytes (as `Reader.read`): "\r\n" is one `Character`.
    var lines = text.utf8.split(separator: 10, omittingEmptySubsequences: false).map { Substring($0) }
    // The last line of a prefix may be cut.
    if prefix.count >= TextDecoding.sniffLength { lines.removeLast() }
    var definitionEnd: String?
    var continued = false
    for line in lines {
      // A line after one that ends in a backslash is part of it.
      let wasContinued = continued
      continued = continues(line.hasSuffix("\r") ? line.dropLast() : line)
      if wasContinued { continue }
      if let end = definitionEnd {
        if ends(line, end) { definitionEnd = nil }
        continue
      }
      let trimmed = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
      // Blank lines, and the braces of a conditional's block.
      if trimmed.isEmpty || trimmed.hasPrefix("\\}") || trimmed.hasPrefix("\\{") { continue }
      guard let control = trimmed.first, control == "." || control == "'" else {
        // A line of escapes that prints nothing (`\t`) is not text either.
        if trimmed.first == "\\", Escapes.render(String(trimmed)).allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
        return false
      }
      let request = requestName(trimmed.dropFirst())
      if ["TH", "Dd", "so", "SH"].contains(request) { return true }
      if ["de", "de1", "am", "am1", "ig"].contains(request) { definitionEnd = ".." }
    }
    return false
  }

  /// True when `line` ends a definition or an `.ig` block closed by `terminator` (`..`,
  /// `.zZ`): spaces may follow the control character (`.  .`).
  static func ends(_ line: some StringProtocol, _ terminator: String) -> Bool {
    guard let control = line.first, control == ".", terminator.count > 1 else { return false }
    let name = line.dropFirst().drop { $0 == " " || $0 == "\t" }
    return name.hasPrefix(terminator.dropFirst())
  }

  /// True when `line` goes on in the next one: it ends in a backslash that is not itself
  /// escaped (an odd run of them).
  static func continues(_ line: some StringProtocol) -> Bool {
    line.reversed().prefix { $0 == "\\" }.count % 2 == 1
  }

  /// The name of a request whose control character has been dropped: `SH NAME` -> `SH`.
  static func requestName(_ line: Substring) -> String {
    let rest = line.drop { $0 == " " || $0 == "\t" }
    if rest.hasPrefix("\\\"") { return "\\\"" }
    if rest.hasPrefix("\\#") { return "\\#" }
    return String(rest.prefix { $0 != " " && $0 != "\t" && $0 != "\r" })
  }

  static func parse(_ source: String) -> ManPage {
    var reader = Reader()
    reader.read(source)
    return reader.page
  }

  /// One pass over the source's lines.
  private struct Reader {
    var page = ManPage()
    /// The text so far: blocks and the breaks between them.
    var lines: [String] = []
    var lastWasDisplay = false
    var words: [String] = []
    /// A `.TP` tag comes next: the next line of text is a line of its own.
    var tagNext = false
    /// Inside `.nf`/`.EX` (or an mdoc display): each line of text is a line of its own.
    var noFill = false
    /// Inside a macro definition or an `.ig` block: lines up to this terminator are skipped.
    var skipUntil: String?
    /// Inside a table (`.TS`): true until the format lines (ending with `.`) are past.
    var tableFormat = false
    var inTable = false
    /// The character between a table's cells (`tab(;)`), a tab unless its options say.
    var cellSeparator: Character = "\t"
    /// Inside the NAME section, and its first block (the names and summary; some pages follow
    /// it with their synopsis).
    var inNameSection = false
    var nameLine: String?
    /// mdoc: the page's name, which a bare `.Nm` repeats.
    var mdocName: String?

    mutating func read(_ source: String) {
      var pending = ""
      // Lines by their bytes: a `Character` split keeps "\r\n" whole (one grapheme), which
      // left a page written with CRLF one line long, and costs a grapheme walk besides.
      for raw in source.utf8.split(separator: 10, omittingEmptySubsequences: false) {
        var line = String(Substring(raw.last == 13 ? raw.dropLast() : raw))
        if ManPage.continues(line) {
          line.removeLast()
          pending += line
          continue
        }
        handle(pending + line)
        pending = ""
      }
      if !pending.isEmpty { handle(pending) }
      flush()
      finish()
    }

    mutating func flush() {
      guard !words.isEmpty else { return }
      emit(words.joined(separator: " "))
      words = []
    }

    mutating func emit(_ line: String) {
      let spaced = line.utf8.contains(9) ? String(decoding: line.utf8.map { $0 == 9 ? 32 : $0 }, as: UTF8.self) : line
      let trimmed = spaced.trimming(" ")
      guard !trimmed.isEmpty else { return }
      // Blocks are apart by a blank line, as `man` shows them (and so no reader takes a long
      // paragraph for a line wrapped at a margin); a display's or a table's lines follow on.
      let display = noFill || inTable
      if !lines.isEmpty { lines.append(display && lastWasDisplay ? "\n" : "\n\n") }
      lines.append(trimmed)
      lastWasDisplay = display
      if inNameSection, nameLine == nil { nameLine = trimmed }
    }

    mutating func text(_ line: String) {
      let rendered = Escapes.render(line)
      if tagNext || noFill {
        flush()
        emit(rendered)
        tagNext = false
      } else if rendered.allSatisfy({ $0 == " " || $0 == "\t" }) {
        flush()
      } else {
        words.append(rendered)
      }
    }

    mutating func handle(_ line: String) {
      if let terminator = skipUntil {
        if ManPage.ends(line, terminator) { skipUntil = nil }
        return
      }
      guard let control = line.first, control == "." || control == "'" else {
        if inTable {
          if tableFormat {
            if let open = line.range(of: "tab("), let separator = line[open.upperBound...].first, separator != ")" {
              cellSeparator = separator
            }
            if line.trimming(" \t").hasSuffix(".") { tableFormat = false }
            return
          }
          flush()
          emit(Escapes.render(String(line.map { $0 == cellSeparator ? " " : $0 })))
          return
        }
        text(line)
        return
      }
      let name = ManPage.requestName(line.dropFirst())
      // Comments, and a control character alone.
      if name.isEmpty || name == "\\\"" || name == "\\#" { return }
      let body = line.dropFirst().drop { $0 == " " || $0 == "\t" }
      let arguments = Arguments.split(body.dropFirst(name.count))
      request(name, arguments)
    }

    mutating func request(_ name: String, _ arguments: [String]) {
      switch name {
      case "TH", "Dt":
        if let first = arguments.first { page.headerName = Escapes.render(first).lowercased() }
      case "SH", "Sh", "SS", "Ss":
        flush()
        tagNext = false
        noFill = false
        let heading = Escapes.render(arguments.joined(separator: " "))
        let isSection = name == "SH" || name == "Sh"
        if isSection { finishNameSection() }
        emit(heading)
        if isSection, heading.uppercased() == "NAME" { inNameSection = true }
      case "PP", "LP", "P", "Pp", "Lp", "sp", "Sp", "br", "HP", "RS", "RE", "ne", "bp", "in", "ti", "Bl", "El", "YS":
        flush()
      case "TP":
        flush()
        tagNext = true
      case "IP":
        // The tag (a bullet, an option) starts the paragraph.
        flush()
        tagNext = false
        if let tag = arguments.first { words.append(Escapes.render(tag)) }
      case "nf", "EX", "Bd", "Vb":
        flush()
        noFill = true
      case "fi", "EE", "Ed", "Ve":
        flush()
        noFill = false
      case "TS":
        flush()
        inTable = true
        tableFormat = true
        cellSeparator = "\t"
      case "T&":
        tableFormat = true
      case "TE":
        inTable = false
        tableFormat = false
      case "de", "de1", "am", "am1", "ig":
        // A definition ends at `..`, an `.ig` at `..` or the terminator it names.
        skipUntil = name == "ig" && !arguments.isEmpty ? "." + arguments[0] : ".."
      case "so":
        if lines.isEmpty && words.isEmpty, let target = arguments.first { page.includes = target }
      case "B", "I", "SM", "SB", "R":
        if !arguments.isEmpty { text(arguments.joined(separator: " ")) }
      case "BR", "RB", "BI", "IB", "IR", "RI":
        if !arguments.isEmpty { text(arguments.joined()) }
      case "OP":
        if !arguments.isEmpty { text("[" + arguments.joined(separator: " ") + "]") }
      case "SY":
        flush()
        if let command = arguments.first { words.append(Escapes.render(command)) }
      case "UE", "ME":
        // The link's text was the lines before; what follows `.UE` closes up to it.
        if let punctuation = arguments.first, let last = words.popLast() { words.append(last + Escapes.render(punctuation)) }
      case "Nm":
        // mdoc: the page's name; a bare `.Nm` repeats the first.
        if let first = arguments.first, mdocName == nil { mdocName = Escapes.render(first) }
        let rendered = arguments.isEmpty ? (mdocName ?? "") : Mdoc.render(arguments)
        if !rendered.isEmpty { text(rendered) }
      case "Nd":
        text("- " + Mdoc.render(arguments))
      case "It":
        flush()
        tagNext = false
        let item = Mdoc.render(arguments)
        if !item.isEmpty { emit(item) }
      case "Dl", "D1":
        flush()
        emit(Mdoc.render(arguments))
      default:
        // An mdoc macro's words are text; a request or macro this reader does not know
        // (settings, conditionals, a page's own macros, index entries) is left out.
        if Mdoc.macros.contains(name) {
          let rendered = Mdoc.render([name] + arguments)
          if !rendered.isEmpty { text(rendered) }
        }
      }
    }

    mutating func finishNameSection() {
      guard inNameSection else { return }
      inNameSection = false
      guard let line = nameLine else { return }
      nameLine = nil
      // "gzip, gunzip, zcat - compress or expand files"; pod2man's "--", an em dash.
      let dash = [" - ", " -- ", " \u{2014} ", " \u{2013} "].compactMap { line.range(of: $0) }.min { $0.lowerBound < $1.lowerBound }
      let names = (dash.map { line[..<$0.lowerBound] } ?? Substring(line)).split(separator: ",").map { String($0).trimming(" ") }
        .filter { !$0.isEmpty }
      if page.names.isEmpty { page.names = names.map { $0.hasSuffix(" -") ? String($0.dropLast(2)) : $0 } }
      if let dash, page.summary == nil { page.summary = String(line[dash.upperBound...]).trimming(" ") }
    }

    mutating func finish() {
      finishNameSection()
      page.text = lines.joined()
    }
  }

  /// A request's arguments: separated by spaces, `"..."` one argument (`""` a quote in it).
  enum Arguments {
    static func split(_ text: Substring) -> [String] {
      var arguments: [String] = []
      var current = ""
      var quoted = false
      var started = false
      var index = text.startIndex
      while index < text.endIndex {
        let character = text[index]
        if quoted {
          if character == "\"" {
            let next = text.index(after: index)
            if next < text.endIndex, text[next] == "\"" {
              current.append("\"")
              index = text.index(after: next)
              continue
            }
            quoted = false
          } else {
            current.append(character)
          }
        } else if character == " " || character == "\t" {
          if started { arguments.append(current) }
          current = ""
          started = false
        } else if character == "\"" && !started {
          quoted = true
          started = true
        } else if character == "\\", text[index...].hasPrefix("\\\"") {
          break
        } else {
          current.append(character)
          started = true
        }
        index = text.index(after: index)
      }
      if started { arguments.append(current) }
      return arguments
    }
  }

  /// BSD `mdoc` macros on a line: flags get their dash, options their brackets, references
  /// their section; the names of the macros themselves are not text.
  enum Mdoc {
    static let macros: Set<String> = [
      "Fl", "Ar", "Op", "Oo", "Oc", "Xr", "Pa", "Ev", "Cm", "Ic", "Li", "Va", "Dv", "Er", "Em", "Sy", "Ql", "Ad", "An",
      "Lk", "Mt", "Sx", "Tn", "Dq", "Qq", "Sq", "Pq", "Bq", "Aq", "Brq", "Do", "Dc", "Po", "Pc", "Qo", "Qc", "So", "Sc",
      "Bo", "Bc", "Ns", "Pf", "No", "Fn", "Fa", "Fo", "Fc", "Vt", "Ms", "St", "Bx", "Ox", "Nx", "Fx", "Ux", "At", "Lb",
      "Ot", "Cd", "In", "Ta", "Ap", "Eo", "Ec", "Dx", "Bsx", "%A", "%T", "%B", "%J", "%D", "%N", "%V", "%P",
      "%I", "%O", "%R", "%U", "%Q", "Nm", "Es", "En",
    ]

    /// The text of an mdoc line's words (macro names included).
    static func render(_ words: [String]) -> String {
      var out: [String] = []
      var joinNext = false
      var closers: [String] = []
      var index = 0
      func add(_ word: String) {
        if joinNext, let last = out.popLast() {
          out.append(last + word)
        } else {
          out.append(word)
        }
        joinNext = false
      }
      while index < words.count {
        let word = words[index]
        index += 1
        switch word {
        case "Fl":
          // `Fl x` is -x; a bare `Fl` a lone dash, joined to a `Fl` after it (`Fl Fl apple`
          // is --apple).
          if index < words.count, !macros.contains(words[index]) {
            add("-" + Escapes.render(words[index]))
            index += 1
          } else {
            add("-")
            if index < words.count, words[index] == "Fl" { joinNext = true }
          }
        case "Op", "Oo": add("["); joinNext = true; if word == "Op" { closers.append("]") }
        case "Oc": appendClosing("]", to: &out)
        case "Dq", "Do", "Qq", "Qo": add("\u{201C}"); joinNext = true; if word == "Dq" || word == "Qq" { closers.append("\u{201D}") }
        case "Dc", "Qc": appendClosing("\u{201D}", to: &out)
        case "Sq", "So": add("\u{2018}"); joinNext = true; if word == "Sq" { closers.append("\u{2019}") }
        case "Sc": appendClosing("\u{2019}", to: &out)
        case "Pq", "Po": add("("); joinNext = true; if word == "Pq" { closers.append(")") }
        case "Pc": appendClosing(")", to: &out)
        case "Bq", "Bo": add("["); joinNext = true; if word == "Bq" { closers.append("]") }
        case "Bc": appendClosing("]", to: &out)
        case "Aq": add("<"); joinNext = true; closers.append(">")
        case "Brq": add("{"); joinNext = true; closers.append("}")
        case "Ns", "Ap":
          joinNext = true
          if word == "Ap" { add("'"); joinNext = true }
        case "Xr":
          if index < words.count {
            var reference = Escapes.render(words[index])
            index += 1
            if index < words.count, !macros.contains(words[index]) {
              reference += "(\(Escapes.render(words[index])))"
              index += 1
            }
            add(reference)
          }
        case "Pf":
          if index < words.count {
            add(Escapes.render(words[index]))
            index += 1
            joinNext = true
          }
        case "Ar":
          if index >= words.count || macros.contains(words[index]) { add("file ...") }
        case "Bx": add("BSD")
        case "Ox": add("OpenBSD")
        case "Nx": add("NetBSD")
        case "Fx": add("FreeBSD")
        case "Ux": add("UNIX")
        case "Bsx": add("BSD/OS")
        case "Dx": add("DragonFly")
        case _ where macros.contains(word):
          continue
        case "|", ".", ",", ";", ":", ")", "]", "?", "!":
          // Punctuation closes up to the word before it.
          joinNext = true
          add(word)
        default:
          add(Escapes.render(word))
        }
      }
      for closer in closers.reversed() { appendClosing(closer, to: &out) }
      return out.joined(separator: " ")
    }

    private static func appendClosing(_ closer: String, to out: inout [String]) {
      if let last = out.popLast() { out.append(last + closer) } else { out.append(closer) }
    }
  }

  /// Troff escapes: special characters become theirs, font and size changes, zero-width
  /// marks, motions and number registers nothing; `\"` ends the line.
  enum Escapes {
    /// Works on the UTF-8 bytes, not on `Character`s: escapes and their names are ASCII, text
    /// between escapes is copied in runs, and a non-ASCII character is taken whole (its lead
    /// byte gives its length). A grapheme walk of every line was a tenth of reading a folder
    /// of manual pages.
    static func render(_ text: String) -> String {
      guard text.utf8.contains(backslash) else { return text }
      let bytes = Array(text.utf8)
      var out: [UInt8] = []
      out.reserveCapacity(bytes.count)
      var index = 0
      /// The bytes of the character at `index` (nil at the end), and past it.
      func take() -> ArraySlice<UInt8>? {
        guard index < bytes.count else { return nil }
        let start = index
        index = min(bytes.count, index + UTF8Validation.sequenceLength(lead: bytes[index]))
        return bytes[start..<index]
      }
      func next(is byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }
      /// The name after `(`: two characters; after `[`: up to `]`; else one character.
      func name() -> String {
        guard let first = take() else { return "" }
        if first.first == UInt8(ascii: "(") {
          let start = index
          _ = take()
          _ = take()
          return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        if first.first == UInt8(ascii: "[") {
          let start = index
          while index < bytes.count, bytes[index] != UInt8(ascii: "]") { index += 1 }
          defer { if index < bytes.count { index += 1 } }
          return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        return String(decoding: first, as: UTF8.self)
      }
      /// Skips an argument in quotes (`\h'1i'`), brackets or after `(`.
      func skipArgument() {
        guard index < bytes.count else { return }
        if next(is: UInt8(ascii: "[")) || next(is: UInt8(ascii: "(")) {
          _ = name()
        } else if let delimiter = take() {
          while let character = take(), !character.elementsEqual(delimiter) {}
        }
      }
      func append(_ text: String) { out.append(contentsOf: text.utf8) }
      while index < bytes.count {
        guard bytes[index] == backslash else {
          let start = index
          while index < bytes.count, bytes[index] != backslash { index += 1 }
          out.append(contentsOf: bytes[start..<index])
          continue
        }
        index += 1
        guard let escape = take() else { break }
        guard escape.count == 1, let byte = escape.first else {
          out.append(contentsOf: escape)  // a character of its own (`\é`)
          continue
        }
        switch Unicode.Scalar(byte) {
        case "f", "F", "m", "M": _ = name()
        case "s":
          // \s+2, \s-1, \s0, \s(12, \s[12]
          if next(is: UInt8(ascii: "+")) || next(is: UInt8(ascii: "-")) { index += 1 }
          if next(is: UInt8(ascii: "(")) || next(is: UInt8(ascii: "[")) {
            _ = name()
          } else {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
          }
        case "(", "[": index -= 1; append(special(name()))
        case "C": skipArgument()
        case "*": append(string(name()))
        case "n", "g", "k", "V", "Y", "$":
          if next(is: UInt8(ascii: "+")) || next(is: UInt8(ascii: "-")) { index += 1 }
          _ = name()
        case "z", "u", "d": continue
        case "h", "v", "w", "o", "b", "l", "L", "D", "X", "Z", "x", "S", "H", "N", "R", "A", "B": skipArgument()
        case "-": out.append(UInt8(ascii: "-"))
        case "e", "\\": out.append(backslash)
        case "&", "|", "^", "%", ":", ")", ",", "/", "{", "}", "c", "p", "a", "r", "!", "?": continue
        case " ", "~", "0", "t": out.append(UInt8(ascii: " "))
        case "\"", "#": index = bytes.count
        default: out.append(byte)  // `\'`, `\``, `\.` and any other: the character itself
        }
      }
      return String(decoding: out, as: UTF8.self)
    }

    static let backslash = UInt8(ascii: "\\")

    /// Special characters by name (`\(em`, `\[bu]`); those not listed are left out.
    static func special(_ name: String) -> String {
      if let mapped = specials[name] { return mapped }
      // \[u00E9]: a Unicode code point.
      if name.hasPrefix("u"), let value = UInt32(name.dropFirst(), radix: 16), let scalar = Unicode.Scalar(value) { return String(scalar) }
      return ""
    }

    static let specials: [String: String] = [
      "em": "\u{2014}", "en": "\u{2013}", "hy": "-", "mi": "-", "aq": "'", "dq": "\"", "oq": "\u{2018}", "cq": "\u{2019}",
      "lq": "\u{201C}", "rq": "\u{201D}", "bu": "\u{2022}", "co": "\u{00A9}", "rg": "\u{00AE}", "tm": "\u{2122}",
      "de": "\u{00B0}", "ti": "~", "ha": "^", "rs": "\\", "sl": "/", "ba": "|", "or": "|", "lh": "<-", "rh": "->",
      "->": "\u{2192}", "<-": "\u{2190}", "<=": "\u{2264}", ">=": "\u{2265}", "!=": "\u{2260}", "==": "==", "mu": "\u{00D7}",
      "di": "\u{00F7}", "+-": "\u{00B1}", "pl": "+", "eq": "=", "lt": "<", "gt": ">", "sq": "\u{25A1}", "ci": "\u{25CB}",
      "dg": "\u{2020}", "sc": "\u{00A7}", "ct": "\u{00A2}", "Eu": "\u{20AC}", "Po": "\u{00A3}", "Ye": "\u{00A5}",
      "e'": "\u{00E9}", "e`": "\u{00E8}", "a'": "\u{00E1}", "a`": "\u{00E0}", "o'": "\u{00F3}", ":u": "\u{00FC}",
      ":o": "\u{00F6}", ":a": "\u{00E4}", "ss": "\u{00DF}", ",c": "\u{00E7}", "~n": "\u{00F1}", "fi": "fi", "fl": "fl",
      "ff": "ff", "Fi": "ffi", "Fl": "ffl", "at": "@", "sh": "#", "Do": "$", "ru": "_", "ul": "_", "rn": "\u{203E}",
      "bv": "|", "br": "|",
    ]

    /// Strings by name (`\*(lq`, `\*[R]`); those a page defines itself are left out.
    static func string(_ name: String) -> String {
      switch name {
      case "lq", "L\"": return "\u{201C}"
      case "rq", "R\"": return "\u{201D}"
      case "R": return "\u{00AE}"
      case "Tm", "TM": return "\u{2122}"
      case "Aq", "aq": return "'"
      case "C+": return "C++"
      default: return ""
      }
    }
  }
}
