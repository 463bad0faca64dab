import Foundation
import SearchlightTestSupport
import Testing
@testable import SearchIndex

@Suite struct IndexCommandTests {

  /// Checks that `index.db` still holds exactly the `mini.jsonl` items, untouched.
  func expectMiniIndexUnchanged(_ workspace: Workspace, since bytes: Data?, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(bytes != nil, sourceLocation: sourceLocation)
    #expect(workspace.contents("index.db") == bytes, "the index file changed", sourceLocation: sourceLocation)
    let index = try SearchIndex(path: workspace.path("index.db"), create: false)
    #expect(try index.allItems().map(\.uniqueIdentifier) == miniIdentifiers, sourceLocation: sourceLocation)
    #expect(try index.generation() == 1, sourceLocation: sourceLocation)
    #expect(try index.catalog().customTypes == ["distance": .number], sourceLocation: sourceLocation)
  }

  // MARK: Success

  @Test func indexesAFileAndStatsDescribeIt() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("index", "--db", "index.db", fixtures.appendingPathComponent("mini.jsonl").path)
      #expect(result.status == 0)
      #expect(result.stdout.hasPrefix("indexed 2 items from 1 file; 0 skipped; into index.db (default) in "))
      #expect(result.stderr == "")

      let stats = try workspace.run("stats", "--db", "index.db", "--format", "json")
      #expect(stats.status == 0)
      let json = try JSONParser.parse(stats.stdout)
      #expect(json["items"] == 1)
      #expect(json["domains"] == ["trails": 1])
      let attributes = try #require(json["attributes"]?.arrayValue)
      #expect(attributes.compactMap { $0["name"]?.stringValue } == [
        "contentCreationDate", "distance", "keywords", "rating", "stateOrProvince", "title",
      ])
      #expect(attributes.compactMap { $0["type"]?.stringValue } == ["date", "number", "[string]", "number", "string", "string"])
      #expect(attributes.allSatisfy { $0["count"] == 1 })

      let granted = try JSONParser.parse(try workspace.run("stats", "--db", "index.db", "--protection", "private", "--format", "json").stdout)
      #expect(granted["items"] == 2)
      #expect(granted["domains"] == ["mail.inbox": 1, "trails": 1])
      let counts = granted["attributes"]?.arrayValue?.reduce(into: [String: JSONValue]()) { $0[$1["name"]?.stringValue ?? ""] = $1["count"] }
      #expect(counts?["title"] == 2)
      #expect(counts?["keywords"] == 2)
    }
  }

  @Test func indexesNotesFoldersJSONArraysAndStandardInputInOneInvocation() throws {
    try Workspace.with { workspace in
      try workspace.write("notes/groceries.md", "---\nrating: 4\n---\n# Groceries\nMilk.\n")
      try workspace.write("notes/ideas.txt", "Plain text idea.\n")
      try workspace.write("array.json", #"[{"id":"a1","domain":"arrays"},{"id":"a2","domain":"arrays"}]"#)
      try workspace.write("pretty.json", "{\n  \"id\": \"p1\",\n  \"domain\": \"pretty\"\n}\n")
      try Data(GzipFixture.compress(Array("pkg (1.0-1) unstable\n  * First upload.\n".utf8)))
        .write(to: URL(fileURLWithPath: workspace.path("notes/changelog.Debian.gz")))
      let result = try workspace.run(
        ["index", "--db", "index.db", "notes", "array.json", "pretty.json", "-"], stdin: #"{"id":"s1","domain":"stdin"}"# + "\n")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.hasPrefix("indexed 7 items from 6 files; 0 skipped; into index.db (default)"))
      let index = try SearchIndex(path: workspace.path("index.db"), create: false)
      #expect(
        try index.allItems().map(\.uniqueIdentifier) == ["a1", "a2", "changelog.Debian.gz", "groceries.md", "ideas.txt", "p1", "s1"])
      #expect(try index.item(withIdentifier: "changelog.Debian.gz")?.attributeSet["textContent"] == .string("pkg (1.0-1) unstable\n  * First upload."))
      #expect(try index.item(withIdentifier: "groceries.md")?.attributeSet["rating"] == .number(4))
      #expect(try index.item(withIdentifier: "ideas.txt")?.domainIdentifier == "notes")
    }
  }

  /// Standard input takes the forms a file takes: a JSON array (`jq '.items' | index -`),
  /// pretty-printed items, JSON Lines; a malformed array is reported at its line.
  @Test func standardInputTakesAJSONArrayOrPrettyPrintedItems() throws {
    try Workspace.with { workspace in
      let array = try workspace.run(["index", "--db", "index.db", "-"], stdin: "[\n  {\"id\":\"a\"},\n  {\"id\":\"b\", \"attributes\": {\"title\": \"B\"}}\n]\n")
      #expect(array.status == 0 && array.stdout.hasPrefix("indexed 2 items from 1 file; 0 skipped"), "\(array)")
      let pretty = try workspace.run(["index", "--db", "index.db", "-"], stdin: "{\n  \"id\": \"c\"\n}\n{\n  \"id\": \"d\"\n}\n")
      #expect(pretty.status == 0 && pretty.stdout.hasPrefix("indexed 2 items from 1 file; 0 skipped"), "\(pretty)")
      let index = try SearchIndex(path: workspace.path("index.db"), create: false)
      #expect(try index.allItems().map(\.uniqueIdentifier) == ["a", "b", "c", "d"])
      #expect(try index.item(withIdentifier: "b")?.attributeSet["title"] == .string("B"))
      let broken = try workspace.run(["index", "--db", "index.db", "--strict", "-"], stdin: "[\n  {\"id\":\"e\"},\n  {\"id\" \"f\"}\n]\n")
      #expect(broken.status == 65, "\(broken)")
      #expect(broken.stderr.contains("<stdin>:3: malformed JSON: expected ':' after member name (column 9)"), "\(broken.stderr)")
    }
  }

  @Test func theIndexOptionWritesANamedIndex() throws {
    try Workspace.with { workspace in
      try workspace.write("a.jsonl", #"{"id":"a"}"# + "\n")
      #expect(try workspace.run("index", "--db", "index.db", "--index", "work", "a.jsonl").status == 0)
      #expect(try SearchIndex(path: workspace.path("index.db"), name: "work").allItems().map(\.uniqueIdentifier) == ["a"])
      #expect(try SearchIndex(path: workspace.path("index.db"), name: "default").allItems().isEmpty)
    }
  }

  @Test func updateMergesAttributesAndNullRemovesOne() throws {
    try withMiniIndex { workspace in
      try workspace.write("update.jsonl", #"{"id":"trail-17","attributes":{"rating":5,"keywords":null}}"# + "\n")
      let result = try workspace.run("index", "--db", "index.db", "--update", "update.jsonl")
      #expect(result.status == 0, "\(result)")
      let item = try SearchIndex(path: workspace.path("index.db")).item(withIdentifier: "trail-17")
      #expect(item?.attributeSet["rating"] == .number(5))
      #expect(item?.attributeSet["keywords"] == nil)
      #expect(item?.attributeSet["title"] == .string("Mist Trail"))
      #expect(item?.domainIdentifier == "trails")
    }
  }

  @Test func withoutUpdateAnItemReplacesTheStoredOne() throws {
    try withMiniIndex { workspace in
      try workspace.write("replace.jsonl", #"{"id":"trail-17","domain":"trails","attributes":{"rating":5}}"# + "\n")
      #expect(try workspace.run("index", "--db", "index.db", "replace.jsonl").status == 0)
      let item = try SearchIndex(path: workspace.path("index.db")).item(withIdentifier: "trail-17")
      #expect(item?.attributeSet == AttributeSet([("rating", .number(5))]))
    }
  }

  @Test func aDoubleDashEndsOptionsSoAPathMayStartWithADash() throws {
    try Workspace.with { workspace in
      try workspace.write("-dash.jsonl", #"{"id":"dash"}"# + "\n")
      try workspace.write("--double.jsonl", #"{"id":"double"}"# + "\n")
      let refused = try workspace.run("index", "--db", "index.db", "-dash.jsonl")
      #expect(refused.status == 64)
      #expect(refused.stderr.hasPrefix("error: unknown option '-dash.jsonl'\n"))
      #expect(!workspace.exists("index.db"))

      let result = try workspace.run("index", "--db", "index.db", "--", "-dash.jsonl", "--double.jsonl")
      #expect(result.status == 0, "\(result)")
      #expect(try SearchIndex(path: workspace.path("index.db")).allItems().map(\.uniqueIdentifier) == ["dash", "double"])
    }
  }

  @Test func helpAfterADoubleDashIsAPathNotAFlag() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("index", "--db", "index.db", "--", "--help")
      #expect(result.status == 66)
      #expect(result.stdout == "")
      #expect(result.stderr == "error: --help: no such file or directory\n --> --help\n")
    }
  }

  // MARK: Bad input

  /// One bad invocation of `searchlight index`: the files it needs, its arguments after
  /// `--db index.db`, standard input, and the exact location and message it must report.
  struct BadInput: Sendable, CustomTestStringConvertible {
    var name: String
    var files: [String: String]
    var arguments: [String]
    var stdin: String? = nil
    var location: String
    var message: String
    /// Items from the invocation's good files, which a run without --strict keeps.
    var keptWithoutStrict: [String] = []
    var testDescription: String { name }
  }

  static let good = #"{"id":"fresh","domain":"new","attributes":{"title":"Fresh"}}"#

  static let badInputs: [BadInput] = [
    BadInput(
      name: "malformed line", files: ["bad.jsonl": good + "\n\n" + #"{"id":"y","# + "\n"], arguments: ["bad.jsonl"],
      location: "bad.jsonl:3", message: "malformed JSON: expected a quoted member name (column 11)"),
    BadInput(
      name: "malformed array", files: ["bad.json": "[\n" + good + ",\n  {\"id\" \"y\"}\n]\n"], arguments: ["bad.json"],
      location: "bad.json:3", message: "malformed JSON: expected ':' after member name (column 9)"),
    BadInput(
      name: "wrong type for a standard attribute", files: ["bad.jsonl": good + "\n" + #"{"id":"z","attributes":{"rating":"five"}}"#],
      arguments: ["bad.jsonl"], location: "bad.jsonl:2", message: "attribute 'rating' is a number, got a string"),
    BadInput(
      name: "wrong type for a custom attribute the index knows",
      files: ["bad.jsonl": good + "\n" + #"{"id":"z","attributes":{"distance":"far"}}"#], arguments: ["bad.jsonl"],
      location: "bad.jsonl:2", message: "attribute 'distance' is a number, got a string"),
    BadInput(
      name: "wrong list element", files: ["bad.jsonl": #"{"id":"z","attributes":{"keywords":["a",2]}}"#], arguments: ["bad.jsonl"],
      location: "bad.jsonl:1", message: "attribute 'keywords' is a string, got a number (element 2 of the list)"),
    BadInput(
      name: "date that does not parse", files: ["bad.jsonl": good + "\n" + #"{"id":"z","attributes":{"dueDate":"2026-02-30"}}"#],
      arguments: ["bad.jsonl"], location: "bad.jsonl:2",
      message: "attribute 'dueDate' is a date, but \"2026-02-30\" does not parse as ISO-8601 (e.g. 2026-05-01T08:00:00Z)"),
    BadInput(
      name: "expiration date that does not parse", files: ["bad.jsonl": #"{"id":"z","expirationDate":"next week"}"#],
      arguments: ["bad.jsonl"], location: "bad.jsonl:1", message: "'expirationDate' is not an ISO-8601 date: \"next week\""),
    BadInput(
      name: "custom name with a dash", files: ["bad.jsonl": good + "\n" + #"{"id":"z","attributes":{"my-attr":1}}"#],
      arguments: ["bad.jsonl"], location: "bad.jsonl:2",
      message: "invalid attribute name 'my-attr': only ASCII letters, digits and '_' are allowed"),
    BadInput(
      name: "custom name with the kMD prefix", files: ["bad.jsonl": #"{"id":"z","attributes":{"kMDCustom":1}}"#],
      arguments: ["bad.jsonl"], location: "bad.jsonl:1",
      message: "invalid attribute name 'kMDCustom': the 'kMD' prefix is reserved for system attributes"),
    BadInput(
      name: "custom name starting with a digit", files: ["bad.jsonl": #"{"id":"z","attributes":{"1st":1}}"#],
      arguments: ["bad.jsonl"], location: "bad.jsonl:1",
      message: "invalid attribute name '1st': the name must start with a letter or '_'"),
    BadInput(
      name: "custom name with a non-ASCII letter", files: ["bad.jsonl": #"{"id":"z","attributes":{"café":1}}"#],
      arguments: ["bad.jsonl"], location: "bad.jsonl:1",
      message: "invalid attribute name 'café': only ASCII letters, digits and '_' are allowed"),
    BadInput(
      name: "unknown item field", files: ["bad.jsonl": #"{"id":"z","domian":"mail"}"#], arguments: ["bad.jsonl"],
      location: "bad.jsonl:1", message: "unknown item field 'domian'; did you mean 'domain'?"),
    BadInput(
      name: "bad second file after a good first file",
      files: ["good.jsonl": good + "\n", "bad.jsonl": #"{"id":"z","attributes":{"rating":true}}"#],
      arguments: ["good.jsonl", "bad.jsonl"], location: "bad.jsonl:1", message: "attribute 'rating' is a number, got a boolean",
      keptWithoutStrict: ["fresh"]),
    BadInput(
      name: "note with a bad front-matter date",
      files: ["notes/a.md": "# Fine\n", "notes/b.md": "---\ntitle: B\ndueDate: someday\n---\nBody\n"], arguments: ["notes"],
      location: "notes/b.md:3",
      message: "attribute 'dueDate' is a date, but \"someday\" does not parse as ISO-8601 (e.g. 2026-05-01T08:00:00Z)",
      keptWithoutStrict: ["a.md"]),
    BadInput(
      name: "standard input", files: [:], arguments: ["-"], stdin: good + "\n" + #"{"id":"z","attributes":{"title":3}}"# + "\n",
      location: "<stdin>:2", message: "attribute 'title' is a string, got a number"),
    BadInput(
      name: "bad item during update", files: ["bad.jsonl": #"{"id":"trail-17","attributes":{"rating":"x"}}"#],
      arguments: ["--update", "bad.jsonl"], location: "bad.jsonl:1", message: "attribute 'rating' is a number, got a string"),
  ]

  @Test(arguments: badInputs)
  func withStrictBadInputExits65WithFileAndLineAndWritesNothing(_ bad: BadInput) throws {
    try withMiniIndex { workspace in
      for (name, text) in bad.files { try workspace.write(name, text) }
      let before = workspace.contents("index.db")
      let result = try workspace.run(["index", "--db", "index.db", "--strict"] + bad.arguments, stdin: bad.stdin)
      #expect(result.exitedNormally)
      #expect(result.status == 65)
      #expect(result.stdout == "")
      #expect(result.stderr == "error: \(bad.location): \(bad.message)\n --> \(bad.location)\n")
      try expectMiniIndexUnchanged(workspace, since: before)
    }
  }

  @Test(arguments: badInputs)
  func withoutStrictTheBadFileIsSkippedWithOneWarningAndTheRestIsWritten(_ bad: BadInput) throws {
    try withMiniIndex { workspace in
      for (name, text) in bad.files { try workspace.write(name, text) }
      let result = try workspace.run(["index", "--db", "index.db"] + bad.arguments, stdin: bad.stdin)
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr == "warning: \(bad.location): \(bad.message)\n")
      let files = bad.keptWithoutStrict.count
      #expect(result.stdout.hasPrefix(
        "indexed \(files) item\(files == 1 ? "" : "s") from \(files) file\(files == 1 ? "" : "s"); 1 skipped; "))
      let index = try SearchIndex(path: workspace.path("index.db"), create: false)
      #expect(try index.allItems().map(\.uniqueIdentifier) == (miniIdentifiers + bad.keptWithoutStrict).sorted())
      #expect(try index.item(withIdentifier: "trail-17")?.attributeSet["rating"] == .number(4.5))
    }
  }

  @Test func badInputIntoANewFileLeavesNoFile() throws {
    try Workspace.with { workspace in
      try workspace.write("bad.jsonl", Self.good + "\n" + #"{"id":"z","attributes":{"rating":"five"}}"# + "\n")
      let result = try workspace.run("index", "--db", "new.db", "--strict", "bad.jsonl")
      #expect(result.status == 65)
      #expect(!workspace.exists("new.db"))
      #expect(!workspace.exists("new.db-wal"))
    }
  }

  @Test func aMissingInputExits66AndWritesNothing() throws {
    try withMiniIndex { workspace in
      try workspace.write("good.jsonl", Self.good + "\n")
      let before = workspace.contents("index.db")
      let result = try workspace.run("index", "--db", "index.db", "good.jsonl", "missing.jsonl")
      #expect(result.status == 66)
      #expect(result.stderr == "error: missing.jsonl: no such file or directory\n --> missing.jsonl\n")
      try expectMiniIndexUnchanged(workspace, since: before)
    }
  }

  @Test func aMissingInputDoesNotCreateTheIndexFile() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("index", "--db", "new.db", "missing.jsonl")
      #expect(result.status == 66)
      #expect(!workspace.exists("new.db"))
    }
  }

  // MARK: Bad databases

  @Test func anSQLiteFileThatIsNotAnIndexExits74AndIsLeftAlone() throws {
    try Workspace.with { workspace in
      do {
        let connection = try Connection(path: workspace.path("other.db"))
        try connection.execute("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('keep me')")
      }
      try workspace.write("good.jsonl", Self.good + "\n")
      let before = workspace.contents("other.db")
      let result = try workspace.run("index", "--db", "other.db", "good.jsonl")
      #expect(result.status == 74)
      #expect(result.stderr == "error: 'other.db' is not a Searchlight index: it is an SQLite database without Searchlight's tables\n")
      #expect(workspace.contents("other.db") == before)
    }
  }

  @Test func aFileThatIsNotADatabaseExits74WithoutCrashing() throws {
    try Workspace.with { workspace in
      try workspace.write("garbage.db", String(repeating: "not a database at all\n", count: 100))
      try workspace.write("good.jsonl", Self.good + "\n")
      let before = workspace.contents("garbage.db")
      let result = try workspace.run("index", "--db", "garbage.db", "good.jsonl")
      #expect(result.exitedNormally)
      #expect(result.status == 74)
      #expect(result.stderr.hasPrefix("error: 'garbage.db' is not a Searchlight index: "))
      #expect(workspace.contents("garbage.db") == before)
    }
  }

  /// Ways to damage a good index file.
  enum Damage: String, CaseIterable, Sendable {
    case overwriteSecondPage, truncateToHalf, scrambleAfterTwoPages

    func apply(to data: inout [UInt8]) {
      switch self {
      case .overwriteSecondPage:
        for offset in 4096..<min(8192, data.count) { data[offset] = 0xFF }
      case .truncateToHalf:
        data.removeLast(data.count / 2)
      case .scrambleAfterTwoPages:
        for offset in 8192..<data.count { data[offset] = UInt8(truncatingIfNeeded: offset &* 7919) }
      }
    }
  }

  @Test(arguments: Damage.allCases)
  func aCorruptIndexExits74WithAClearErrorAndNeverCrashes(_ damage: Damage) throws {
    try Workspace.with { workspace in
      let lines = (1...60).map { number in
        #"{"id":"item-\#(number)","domain":"d\#(number % 4)","attributes":{"title":"Title \#(number)","textContent":"\#(String(repeating: "words ", count: 60))\#(number)"}}"#
      }
      try workspace.write("many.jsonl", lines.joined(separator: "\n"))
      #expect(try workspace.run("index", "--db", "index.db", "many.jsonl").status == 0)
      var bytes = [UInt8](try #require(workspace.contents("index.db")))
      #expect(bytes.count > 3 * 4096)
      damage.apply(to: &bytes)
      try workspace.write("index.db", bytes: bytes)

      for arguments in [["stats", "--db", "index.db"], ["index", "--db", "index.db", "many.jsonl"], ["delete", "--db", "index.db", "--all"]] {
        let result = try workspace.run(arguments)
        #expect(result.exitedNormally, "\(arguments): \(result)")
        #expect(result.status == 74, "\(arguments): \(result)")
        #expect(result.stderr.hasPrefix("error: "), "\(arguments): \(result)")
        #expect(result.stderr.contains("index.db"), "\(arguments): \(result)")
      }
    }
  }
}
