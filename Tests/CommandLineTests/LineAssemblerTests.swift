import Testing
@testable import searchlight

/// When a line continues: the REPL's multi-line input rules.
@Suite struct LineAssemblerTests {
  @Test(arguments: [
    "search \"launch\" |",
    "search \"launch\" |   ",
    "search \"launch\" | # then the top five",
    "title == \"june\" &&",
    "title == \"june\" ||",
    "search * | table title,",
    "hikes = search keywords == \"summit\";",
    "(keywords == \"launch\"c || rating > 3",
    "InRange(distance, 2,",
    "title == \"unterminated",
    "title == 'it\\'s",
    ".explain search * |",
    ".parse (rating > 3",
  ])
  func unfinishedInputContinues(_ line: String) {
    #expect(LineAssembler.needsMoreInput(line))
  }

  @Test(arguments: [
    "search \"launch\" | top 5",
    "title == \"a | b\"",
    "title == \"(\"",
    "title == \"say \\\"hi\\\" |\"",
    "rating > 3 # a comment with | and (",
    "search * | count)",
    "",
    "   ",
    "# only a comment",
    ".help",
    ".format json",
    ".ask what's on my list |",
    ".plan how many (hikes",
  ])
  func finishedInputRuns(_ line: String) {
    #expect(!LineAssembler.needsMoreInput(line))
  }

  @Test func continuedLinesJoinIntoOneInput() {
    var assembler = LineAssembler()
    #expect(assembler.add("search \"launch\" |") == nil)
    #expect(!assembler.isEmpty)
    #expect(assembler.pendingText == "search \"launch\" |")
    #expect(assembler.add("  top 5") == "search \"launch\" |\n  top 5")
    #expect(assembler.isEmpty)
  }

  @Test func aStringMaySpanLines() {
    var assembler = LineAssembler()
    #expect(assembler.add("textContent == \"first line") == nil)
    #expect(assembler.add("") == nil)
    #expect(assembler.add("second\"") == "textContent == \"first line\n\nsecond\"")
  }

  @Test func resetDropsThePendingLinesAndFlushReturnsThem() {
    var assembler = LineAssembler()
    #expect(assembler.add("(rating > 3") == nil)
    assembler.reset()
    #expect(assembler.isEmpty)
    #expect(assembler.add("rating > 3") == "rating > 3")
    #expect(assembler.add("search * |") == nil)
    #expect(assembler.flush() == "search * |")
    #expect(assembler.flush() == nil)
  }

  @Test func historyKeepsAContinuedInputOnOneLineUnlessANewlineMatters() {
    #expect(LineAssembler.historyEntry("search \"launch\" |\n  top 5") == "search \"launch\" |   top 5")
    #expect(LineAssembler.historyEntry("search * | # all\ncount") == "search * | # all\ncount")
    #expect(LineAssembler.historyEntry("title == \"a\nb\"") == "title == \"a\nb\"")
    #expect(LineAssembler.historyEntry("search * | count ") == "search * | count")
  }
}
