import Foundation
import Testing
@testable import SearchIndex

@Suite struct ParseCommandTests {
  @Test func printsTheTree() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("parse", #"title == "june*"cdw && rating > 3"#)
      #expect(result.status == 0)
      #expect(result.stderr == "")
      #expect(result.stdout == """
        statement
          search
            and
              compare ==
                name title
                string "june*" modifiers cdw
              compare >
                name rating
                number 3

        """)
    }
  }

  @Test func printsPipelinesWithLabelsAndBranches() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("parse", #"search "launch" | fork (count as "Matches") (top 3 | text)"#)
      #expect(result.status == 0)
      #expect(result.stdout.contains("  stage fork\n    branch\n      stage count as \"Matches\"\n    branch\n      stage top\n        number 3\n      stage text\n"))
    }
  }

  @Test func jsonHasKindsAndSpans() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("parse", "--format", "json", #"rating > 3 | top 5"#)
      #expect(result.status == 0)
      #expect(result.stdout.split(separator: "\n").count == 1)
      let json = try JSONParser.parse(result.stdout)
      #expect(json["kind"] == "query")
      let pipeline = try #require(json["statements"]?.arrayValue?.first?["pipeline"])
      #expect(pipeline["source"]?["predicate"] == [
        "kind": "comparison", "operator": ">", "left": ["kind": "name", "name": "rating", "span": [0, 6]],
        "right": ["kind": "number", "value": 3, "span": [9, 10]], "span": [0, 10],
      ])
      #expect(pipeline["stages"]?.arrayValue?.first?["name"] == "top")
      #expect(pipeline["stages"]?.arrayValue?.first?["span"] == [13, 18])
    }
  }

  @Test func aSyntaxErrorExits65WithTheCaret() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("parse", #"title == "x" && (rating > 3"#)
      #expect(result.status == 65)
      #expect(result.stdout == "")
      #expect(result.stderr == """
        error: expected ')', found end of query
         --> query:1:28
          |
        1 | title == "x" && (rating > 3
          |                            ^
        help: close the parenthesis opened here

        """)
    }
  }

  @Test func everySyntaxErrorIsShown() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("parse", #"title == "x" @ | top"#)
      #expect(result.status == 65)
      #expect(result.stderr.hasPrefix("error: unexpected character '@'\n --> query:1:14\n"))
    }
  }

  @Test func aSyntaxErrorAsJSON() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("parse", "--format", "json", "title ==")
      #expect(result.status == 65)
      #expect(result.stdout == "")
      let json = try JSONParser.parse(result.stderr)
      let error = try #require(json["error"])
      #expect(error["message"] == "expected a value after '=='")
      #expect(error["line"] == 1)
      #expect(error["column"] == 9)
      #expect(error["hint"] == #"compare with a quoted string, a number or a date, e.g. title == "june*"cd"#)
      #expect(error["id"] == "parse.expected-value")
      #expect(result.stderr.split(separator: "\n").count == 1)
    }
  }

  @Test func aQueryStartingWithAMinusNeedsTheSeparator() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("parse", "--", "-rating > -3")
      #expect(result.status == 0)
      #expect(result.stdout == "statement\n  search\n    compare >\n      negate\n        name rating\n      negate\n        number 3\n")
      let without = try workspace.run("parse", "-rating > -3")
      #expect(without.status == 64)
      #expect(without.stderr.hasPrefix("error: unknown option '-rating > -3'\n"))
    }
  }

  @Test func needsNoDatabaseButAQuery() throws {
    try Workspace.with { workspace in
      let missing = try workspace.run("parse")
      #expect(missing.status == 64)
      #expect(missing.stderr.hasPrefix("error: missing QUERY\n"))
      #expect(try workspace.run("parse", "titel == 1").status == 0)
      #expect(!workspace.exists("index.db"))
    }
  }
}
