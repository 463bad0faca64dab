import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

/// Thousands of generated and mutated queries through the lexer, parser, binder and type
/// checker (and, when they check, the executor): nothing crashes, and every diagnostic points
/// inside the text.
@Suite struct FuzzTests {
  static let seeds = [
    #"title == "june*"cdw && contentModificationDate >= $time.today(-30)"#,
    #"(keywords == "launch"c || textContent == "budget*"cd) && rating > 3"#,
    #"InRange(distance, 2, 8) && * == "waterfall"cd"#,
    #"search "june launch" | where contentModificationDate >= $time.this_month | top 5"#,
    #"search domainIdentifier == "trails" && stateOrProvince == "California"c | group by keywords | count"#,
    #"search * | stats avg(distance), max(rating) by stateOrProvince"#,
    #"search "budget" | score 0.7 * relevance + 0.3 * recency(contentModificationDate, 30d) | top 10 | table title, contentModificationDate"#,
    #"search "launch" | fork (count as "Matches") (top 3 | text)"#,
    #"hikes = search "hike" && completionDate >= $time.this_year(-1); hikes | group by stateOrProvince | count"#,
    #"let m = search * | count; a = search "x"; b = search 'y'; merge(a, b) | where rating > $m"#,
    #"title ==[cd] "café" && !(dueDate == "*") || ** == 'x*'"#,
    #"dueDate > $time.iso(2026-10-01T00:00:00Z) && dueDate < 2026-12-01 && completionDate != 817300800"#,
    #"kMDItemTitle == june* && kMDItemAuthors == "Alex"w || pinned || -rating > -3"#,
    #"search "a\"b\\c\u00e9\*" | sort rating desc, title asc | limit 3 | select max-by rating"#,
    "title = \"x\" # a comment\n| top 2",
  ]

  static let fragments = [
    "title", "rating", "dueDate", "keywords", "*", "**", "==", "=", "!=", "<", ">", "<=", ">=", "&&", "||", "!", "&", "|", ";", ",", ":",
    "(", ")", "[cd]", "[", "]", "\"x\"", "\"june*\"cdw", "'exact'", "\"", "'", "\\", "3", "-", "4.5", "1e9", "30d", "$time.today",
    "$time.now(-3600)", "$time.iso(2026-10-01)", "$time.", "$time.iso(", "$x", "$", "search", "merge(", "let", "as", "fork", "top",
    "group by", "count", "stats", "avg(", "InRange(", "true", "false", "#", "\n", " ", "é", "🙂", "@", "~", "\u{0}", "2026-05-01",
    "june*", "?", "+", "/", "%", ".", "max-by", "'; DROP TABLE items; --",
  ]

  /// Checks one query; returns true when it type-checked.
  @discardableResult
  static func check(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    let source = SourceText(text)
    let (_, lexed) = Lexer.tokenize(source)
    var all = lexed
    let (syntax, parsed) = Parser.parseQuery(source)
    all += parsed
    var checked = false
    if let syntax, !parsed.contains(where: { $0.severity == .error }) {
      let builder = GraphBuilder(registry: StageRegistry(), bindingContext: BindingContext(catalog: sampleCatalog, clock: sampleClock))
      do {
        _ = try builder.build(syntax, source: source)
        checked = true
      } catch {
        all += error.diagnostics
      }
    }
    for diagnostic in all {
      let span = diagnostic.span
      #expect(span.start >= 0 && span.start <= span.end && span.end <= source.byteCount,
              "\(diagnostic.id) at \(span) outside \(source.byteCount) bytes of \(text.debugDescription)", sourceLocation: sourceLocation)
      for fixIt in diagnostic.fixIts {
        #expect(fixIt.span.start >= 0 && fixIt.span.end <= source.byteCount, "\(diagnostic.id) fix-it of \(text.debugDescription)",
                sourceLocation: sourceLocation)
      }
      for note in diagnostic.notes {
        if let span = note.span { #expect(span.end <= source.byteCount, sourceLocation: sourceLocation) }
      }
      #expect(!diagnostic.message.isEmpty, sourceLocation: sourceLocation)
      let rendered = DiagnosticRenderer.render(diagnostic, in: source)
      #expect(rendered.hasPrefix("error: ") || rendered.hasPrefix("warning: ") || rendered.hasPrefix("note: "), sourceLocation: sourceLocation)
    }
    return checked
  }

  /// A piece of a string cut at a character boundary.
  static func truncations(_ text: String) -> [String] {
    (0...text.count).map { String(text.prefix($0)) }
  }

  @Test func everyTruncationOfTheSeeds() {
    for seed in Self.seeds {
      for piece in Self.truncations(seed) { Self.check(piece) }
      for piece in Self.truncations(seed) { Self.check(String(seed.dropFirst(piece.count))) }
    }
  }

  @Test func randomTokenSoup() {
    var generator = SplitMix(seed: 29)
    for _ in 0..<3000 {
      let count = 1 + Int(generator.next() % 14)
      var text = ""
      for _ in 0..<count {
        text += Self.fragments[Int(generator.next() % UInt64(Self.fragments.count))]
        if generator.next() % 3 != 0 { text += " " }
      }
      Self.check(text)
    }
  }

  @Test func mutatedSeeds() {
    var generator = SplitMix(seed: 11)
    for _ in 0..<3000 {
      var characters = Array(Self.seeds[Int(generator.next() % UInt64(Self.seeds.count))])
      for _ in 0..<(1 + Int(generator.next() % 4)) {
        let position = Int(generator.next() % UInt64(characters.count + 1))
        switch generator.next() % 4 {
        case 0 where position < characters.count: characters.remove(at: position)
        case 1:
          let fragment = Self.fragments[Int(generator.next() % UInt64(Self.fragments.count))]
          characters.insert(contentsOf: fragment, at: position)
        case 2 where position < characters.count:
          characters.insert(characters[position], at: position)
        default:
          let other = Array(Self.seeds[Int(generator.next() % UInt64(Self.seeds.count))])
          let from = Int(generator.next() % UInt64(other.count))
          characters.insert(contentsOf: other[from...], at: position)
        }
      }
      Self.check(String(characters))
    }
  }

  @Test func deepNesting() {
    for depth in [10, 150, 199, 200, 201, 400, 3000] {
      Self.check(String(repeating: "(", count: depth) + "rating > 1" + String(repeating: ")", count: depth))
      Self.check(String(repeating: "(", count: depth) + "rating > 1")
      Self.check(String(repeating: "!", count: depth) + "rating > 1")
      Self.check("rating > " + String(repeating: "-", count: depth) + "1")
      Self.check(String(repeating: "rating > 1 && (", count: depth) + "true" + String(repeating: ")", count: depth))
      Self.check("search * | score " + String(repeating: "(1 + ", count: depth) + "1" + String(repeating: ")", count: depth))
      Self.check(String(repeating: "a = search *; ", count: depth) + "a")
      Self.check("search * " + String(repeating: "| top 1 ", count: depth))
    }
    Self.check(String(repeating: "\"", count: 10001))
    Self.check(String(repeating: "title == \"x\" || ", count: 2000) + "true")
  }

  @Test func queriesThatCheckAlsoRun() throws {
    let index = try TemporaryIndex([
      item("a", domain: "d", [("title", .string("june launch")), ("rating", .number(4)), ("keywords", .list([.string("x"), .string("y")]))]),
      item("b", domain: "d.e", [("title", .string("Café")), ("dueDate", .date(utc(2026, 11, 30)))]),
    ], declaring: sampleCatalog.customTypes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    var generator = SplitMix(seed: 5)
    var ran = 0
    for _ in 0..<1500 {
      var characters = Array(Self.seeds[Int(generator.next() % UInt64(Self.seeds.count))])
      let position = Int(generator.next() % UInt64(characters.count + 1))
      characters.insert(contentsOf: Self.fragments[Int(generator.next() % UInt64(Self.fragments.count))], at: position)
      let text = String(characters)
      guard Self.check(text) else { continue }
      do {
        _ = try replies(text, in: index.index)
        ran += 1
      } catch is QueryRuntimeError {
      } catch let error as DiagnosticsError {
        Issue.record("\(text.debugDescription) checked but failed to run: \(error)")
      }
    }
    #expect(ran > 50)
  }
}
