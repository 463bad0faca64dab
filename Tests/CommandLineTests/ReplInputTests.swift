import Testing
@testable import searchlight

/// How a complete input is classified before it runs.
@Suite struct ReplInputTests {
  @Test func queriesAndBlankInputs() {
    #expect(ReplInput("search * | count") == .query("search * | count"))
    #expect(ReplInput("  rating > 3") == .query("  rating > 3"))
    #expect(ReplInput("") == .empty)
    #expect(ReplInput("  # just a note\n") == .empty)
  }

  @Test func dotCommandsCarryTheirArgumentAndWhereItStarts() {
    #expect(ReplInput(".help") == .command(.help, argument: "", argumentColumn: 5))
    #expect(ReplInput(".help sort  ") == .command(.help, argument: "sort", argumentColumn: 6))
    #expect(ReplInput("  .explain  search * | count") == .command(.explain, argument: "search * | count", argumentColumn: 12))
    #expect(ReplInput(".exit") == .command(.quit, argument: "", argumentColumn: 5))
    #expect(ReplInput(".explain search * |\n  count") == .command(.explain, argument: "search * |\n  count", argumentColumn: 9))
  }

  @Test func anUnknownDotCommandIsNamed() {
    #expect(ReplInput(".hepl me") == .unknownCommand("hepl"))
  }

  @Test func everyCommandHasUsageAndSummary() {
    for command in DotCommand.allCases {
      #expect(command.usage.hasPrefix("." + command.rawValue))
      #expect(!command.summary.isEmpty && !command.summary.hasSuffix("."))
    }
  }
}
