import Assistant
import Foundation
import QueryEngine
import SearchIndex
import Stages

/// `searchlight demo`: indexes the bundled samples into a temporary index and runs a short
/// tour of the query language, showing every kind of reply, and asks two questions. Needs
/// no model server.
enum DemoCommand: Command {
  static let name = "demo"
  static let abstract = "Index the bundled sample data into a temporary index and run a short tour."
  static let usage = "demo [--keep FILE]"
  static let options: [OptionSpec] = [
    OptionSpec(name: "keep", kind: .value, valueName: "FILE", help: "Write the sample index to FILE and keep it for your own queries."),
  ]

  /// The tour: what each step shows and its query.
  static let tour: [(String, String)] = [
    ("A Spotlight query string: waterfall trails rated 4.7 or more",
     #"keywords == "waterfall"c && rating >= 4.7"#),
    ("Words with diacritics ignored: 'zurich' finds Zürich",
     #"* == "*zurich*"cd && contentType == "email""#),
    ("Word matching: a lower-to-upper case change is a word boundary",
     #"title == "Window"w"#),
    ("Ranked full-text search, best five",
     #"search "kitchen remodel" | top 5 | table title, contentModificationDate"#),
    ("Dates: what changed yesterday (the clock is fixed at 2026-11-29T12:00Z)",
     #"search contentModificationDate == $time.yesterday | table title, domainIdentifier"#),
    ("Grouping and counting: trails per state",
     #"search domainIdentifier == "trails" | group by stateOrProvince | count | limit 6"#),
    ("Statistics by group",
     #"search domainIdentifier == "trails" | stats avg(distance), max(rating) by difficulty"#),
    ("Scoring: relevance blended with freshness",
     #"search "budget" | score 0.7 * relevance + 0.3 * recency(contentModificationDate, 30d) | top 3"#),
    ("One query, two replies sharing a query token",
     #"search "Orion" | fork (count as "Orion items") (top 3 | text as "Summary")"#),
    ("A variable: the state with the most trails, then its best trail",
     #"let state = search domainIdentifier == "trails" | group by stateOrProvince | count | select max-by count; search domainIdentifier == "trails" && stateOrProvince == $state | sort rating desc | limit 1 | table title, stateOrProvince, rating"#),
  ]

  /// Questions answered at the end of the tour: what each shows and the question.
  static let questions: [(String, String)] = [
    ("Ask a question, offline: the answer quotes the items that came back, and cites them",
     "What went wrong at the Orion launch?"),
    ("A counting question: the number, and the items it was counted from",
     "How many trails are in Utah?"),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    guard let samples = Bundle.module.url(forResource: "Samples", withExtension: nil) else {
      throw CommandFailure(.noInput, "the bundled samples are missing from this build")
    }
    let path: String
    if let keep = arguments.value("keep") {
      path = keep
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: keep + suffix) }
    } else {
      path = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-demo-\(ProcessInfo.processInfo.processIdentifier).db").path
    }
    defer {
      if arguments.value("keep") == nil {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
      }
    }
    let now = ISO8601.parse("2026-11-29T12:00:00Z")!
    let index: SearchIndex
    var count = 0
    let start = Date()
    do {
      index = try SearchIndex(path: path)
      try index.write { writer in
        var reader = ItemReader(decoder: ItemDecoder(catalog: writer.catalog))
        for name in ["trails.jsonl", "notes.jsonl", "notes-folder"] {
          try reader.read(path: samples.appendingPathComponent(name).path) { item, _, _ in
            try writer.upsert(item)
            count += 1
          }
        }
      }
    } catch let error as SearchIndexError {
      throw CommandFailure(error)
    }
    let color = Terminal.useColor
    let (bold, dim, reset) = color ? ("\u{1B}[1m", "\u{1B}[2m", "\u{1B}[0m") : ("", "", "")
    Terminal.out("\(bold)Searchlight demo\(reset): indexed \(count) sample items (trails, notes, mail) in \(String(format: "%.2f", Date().timeIntervalSince(start))) s\n")
    let stats = try index.statistics(scope: AccessScope())
    Terminal.out("\(dim)\(stats.items) visible, \(stats.protectedItems) protected, \(stats.expiredItems) expired; domains: "
      + stats.domains.map { "\($0.name) \($0.count)" }.joined(separator: ", ") + "\(reset)\n\n")
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    let options = QueryOptions(scope: AccessScope(), clock: QueryClock(now: now, timeZone: TimeZone(identifier: "UTC")!))
    var renderer = ReplyRenderer(format: .table)
    renderer.color = color
    renderer.limit = 6
    var assembler = ReplyAssembler()
    for (number, (title, query)) in tour.enumerated() {
      Terminal.out("\(bold)\(number + 1). \(title)\(reset)\n\(dim)$ searchlight query '\(query)'\(reset)\n")
      do {
        try executor.run(query, options: options) { reply in
          if let whole = assembler.add(reply) { Terminal.out(renderer.render(whole)) }
        }
      } catch {
        throw queryFailure(error)
      }
      Terminal.out("\n")
    }
    // Two questions, answered offline the way `searchlight ask` answers with no model.
    let session = try AskCommand.session(executor: executor, options: options, guidance: .focused, model: nil, resultLimit: 5)
    for (number, (title, question)) in questions.enumerated() {
      Terminal.out("\(bold)\(tour.count + number + 1). \(title)\(reset)\n\(dim)$ searchlight ask '\(question)'\(reset)\n")
      _ = try AskCommand.answer(question, with: session, printer: AnswerPrinter(json: false))
      Terminal.out("\n")
    }
    if let keep = arguments.value("keep") {
      Terminal.out("The sample index is in \(keep). Try: searchlight query --db \(keep) --now 2026-11-29T12:00:00Z 'search \"trail club\" | top 5'\n")
    } else {
      Terminal.out("Keep the sample index with --keep FILE to try your own queries.\n")
    }
    return .success
  }
}
