import Foundation
import Testing
@testable import searchlight

/// Tab completion: what the REPL offers for the word before the cursor.
@Suite struct ReplCompleterTests {
  /// A completer over a real index, built the way the REPL builds it.
  func withCompleter<T>(protection: String? = nil, _ body: (ReplCompleter) throws -> T) throws -> T {
    try Workspace.withReplIndex { workspace in
      var arguments = ParsedArguments()
      arguments.values["db"] = [workspace.path("index.db")]
      if let protection { arguments.values["protection"] = [protection] }
      let setup = try QuerySetup(arguments, command: "repl")
      return try body(ReplCompleter(index: setup.index, registry: setup.registry, scope: setup.options.scope))
    }
  }

  @Test func dotCommandsAtTheStartOfALine() throws {
    try withCompleter { completer in
      #expect(completer.complete(".he").candidates == [".help"])
      #expect(completer.complete("  .t").candidates == [".timer", ".tz"])
      #expect(completer.complete(".").candidates.count == DotCommand.allCases.count + DotCommand.aliases.count)
      #expect(completer.complete(".e").candidates == [".exit", ".explain"])
    }
  }

  @Test func stageNamesAfterAPipe() throws {
    try withCompleter { completer in
      #expect(completer.complete("search * | s").candidates == ["sample", "score", "select", "sort", "stats"])
      #expect(completer.complete("search * | count | t").candidates == ["table", "text", "top"])
      #expect(completer.complete("search * |\n  wh").candidates == ["where"])
      // After `||` a predicate goes on: attributes, not stages.
      #expect(completer.complete("rating > 4 || ti").candidates == ["title"])
    }
  }

  @Test func attributeNamesComeFromTheIndexCatalogue() throws {
    try withCompleter { completer in
      #expect(completer.complete("dis").candidates == ["distance"])
      #expect(completer.complete("search * | where ra").candidates == ["rating"])
      #expect(completer.complete("search * | sort contentMod").candidates == ["contentModificationDate"])
      #expect(completer.complete("Ti").candidates == ["title"])
      // Attributes only a protected item has stay hidden without its protection class.
      #expect(completer.complete("secr").candidates == [])
      #expect(completer.complete("s").candidates == ["search"])
    }
    try withCompleter(protection: "private") { completer in
      #expect(completer.complete("secr").candidates == ["secretCode"])
    }
  }

  @Test func timeFunctionsAfterADollar() throws {
    try withCompleter { completer in
      #expect(completer.complete("contentModificationDate >= $time.t").candidates
        == ["$time.this_month", "$time.this_week", "$time.this_year", "$time.today", "$time.tomorrow"])
      #expect(completer.complete("$").candidates.count == 12)
      #expect(completer.complete("dueDate < $time.l").candidates == ["$time.last_month", "$time.last_week", "$time.last_year"])
    }
  }

  @Test func nothingInsideAStringOrAComment() throws {
    try withCompleter { completer in
      #expect(completer.complete("title == \"sea").candidates == [])
      #expect(completer.complete("rating > 3 # so").candidates == [])
    }
  }

  @Test func dotCommandArguments() throws {
    try withCompleter { completer in
      #expect(completer.complete(".help so").candidates == ["sort"])
      #expect(completer.complete(".format j").candidates == ["json"])
      #expect(completer.complete(".timer o").candidates == ["off", "on"])
      #expect(completer.complete(".tz Europe/Zur").candidates == ["Europe/Zurich"])
      #expect(completer.complete(".explain search * | co").candidates == ["count"])
      #expect(completer.complete(".parse rat").candidates == ["rating"])
      #expect(completer.complete(".read scr").wantsFileNames)
      #expect(completer.complete(".ask how many").candidates == [])
      #expect(completer.complete(".quit x").candidates == [])
    }
  }

  @Test func theReplacementIsTheLongestSharedPrefix() {
    func replacement(_ word: String, _ candidates: [String]) -> String? {
      ReplCompleter.replacement(for: .init(word: word, candidates: candidates))
    }
    #expect(replacement("cou", ["count"]) == "count")
    #expect(replacement("$time.th", ["$time.this_month", "$time.this_week"]) == "$time.this_")
    #expect(replacement("s", ["sample", "score"]) == "s")
    #expect(replacement("Ti", ["title"]) == "title")
    #expect(replacement("x", []) == nil)
  }
}
