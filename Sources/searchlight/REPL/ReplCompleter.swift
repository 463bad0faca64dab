import Foundation
import QueryEngine
import SearchIndex

/// Tab-completion candidates for the REPL, computed from the text before the cursor: dot-commands
/// at the start of an input, stage names where a stage may start, `$time.` functions, attribute
/// names from the index catalogue elsewhere in a query, and each dot-command's own arguments.
///
/// Plain Swift with no terminal: the libedit binding only hands it the line and applies the
/// result.
struct ReplCompleter: Sendable {
  /// What to offer for the word before the cursor.
  struct Completion: Equatable, Sendable {
    /// The word being completed (the text the candidates replace).
    var word: String
    /// Whole words that start with `word`, sorted.
    var candidates: [String]
    /// True when file names should be offered instead (`.read FILE`).
    var wantsFileNames = false
  }

  /// Stage names from the registry.
  var stageNames: [String]
  /// Attribute names the index holds.
  var attributeNames: [String]
  /// `$time` function names.
  var timeFunctions: [String] = TimeResolver.functionNames
  /// Time zone identifiers for `.tz`.
  var timeZones: [String] = TimeZone.knownTimeZoneIdentifiers

  /// Characters that end a word: the libedit binding uses the same set, so the word it replaces
  /// is the word computed here.
  static let wordBreakCharacters = " \t\n\"'|&(),;=<>![]{}"

  /// Words a query may start with besides attribute names.
  static let queryStarters = ["InRange", "search"]

  /// A completer for an index: its attribute names as `scope` sees them, and the registry's
  /// stages.
  init(index: SearchIndex, registry: StageRegistry, scope: AccessScope) {
    stageNames = registry.names
    attributeNames = (try? index.statistics(scope: scope).attributes.map(\.name)) ?? []
  }

  init(stageNames: [String], attributeNames: [String]) {
    self.stageNames = stageNames
    self.attributeNames = attributeNames
  }

  /// The candidates for the word that ends at the end of `text`: everything typed for the
  /// current input up to the cursor, including earlier lines of a continued input.
  func complete(_ text: String) -> Completion {
    let word = String(text.reversed().prefix(while: { !Self.wordBreakCharacters.contains($0) }).reversed())
    let before = String(text.dropLast(word.count))
    let leading = before.drop(while: \.isWhitespace)

    // A dot-command: its name, then its argument.
    if leading.isEmpty, word.hasPrefix(".") {
      return Completion(word: word, candidates: Self.matching(word, DotCommand.allNames))
    }
    if leading.first == "." {
      let name = String(leading.dropFirst().prefix(while: { !$0.isWhitespace }))
      guard let command = DotCommand.named(name) else { return Completion(word: word, candidates: []) }
      let argument = String(leading.dropFirst(1 + name.count).drop(while: { $0 == " " || $0 == "\t" }))
      switch command.argument {
      case .none, .question:
        return Completion(word: word, candidates: [])
      case .query:
        return queryCompletion(word: word, before: argument)
      case .word:
        guard argument.isEmpty else { return Completion(word: word, candidates: []) }
        switch command {
        case .help: return Completion(word: word, candidates: Self.matching(word, stageNames))
        case .tz: return Completion(word: word, candidates: Self.matching(word, timeZones))
        case .read: return Completion(word: word, candidates: [], wantsFileNames: true)
        default: return Completion(word: word, candidates: Self.matching(word, command.argumentChoices))
        }
      }
    }
    return queryCompletion(word: word, before: before)
  }

  /// Completion inside a query: `before` is the query text before the word.
  private func queryCompletion(word: String, before: String) -> Completion {
    let state = LineAssembler.scan(before)
    if state.openQuote != nil || state.inComment { return Completion(word: word, candidates: []) }
    if word.hasPrefix("$") {
      return Completion(word: word, candidates: Self.matching(word, timeFunctions.map { "$time." + $0 }))
    }
    let tail = state.tail
    let candidates: [String]
    if tail.isEmpty || tail.hasSuffix(";") {
      // The start of a statement: a source or a bare predicate.
      candidates = Self.queryStarters + attributeNames
    } else if tail.hasSuffix("|"), !tail.hasSuffix("||") {
      candidates = stageNames
    } else {
      candidates = attributeNames
    }
    return Completion(word: word, candidates: Self.matching(word, candidates))
  }

  /// The candidates that start with `word` (ignoring case), sorted and without duplicates.
  static func matching(_ word: String, _ candidates: [String]) -> [String] {
    let lowered = word.lowercased()
    return Array(Set(candidates.filter { $0.lowercased().hasPrefix(lowered) })).sorted()
  }

  /// The text that replaces the word: the longest prefix all candidates share (the whole
  /// candidate when there is one), never shorter than what was typed.
  static func replacement(for completion: Completion) -> String? {
    guard var common = completion.candidates.first else { return nil }
    for candidate in completion.candidates.dropFirst() {
      while !candidate.hasPrefix(common) { common.removeLast() }
    }
    return common.count >= completion.word.count ? common : completion.word
  }
}
