import Assistant
import Dispatch
import Evaluation
import Foundation
import QueryEngine
import SearchIndex
import Synchronization

/// `searchlight eval`: measures how well questions find their items, on Apple-style fixtures
/// (result coverage) or a TREC-style collection (nDCG, recall, MRR, MAP as trec_eval defines
/// them).
enum EvalCommand: Command {
  static let name = "eval"
  static let abstract = "Measure retrieval quality on fixtures or a TREC-style collection."
  static let usage = "eval --db FILE (--fixtures F.jsonl | --queries Q.jsonl --qrels R.tsv) [--planner plain|builtin|fts5] [--k N] [--model-url URL [--model NAME] [--max-tokens N]] [--details] [--format table|json]"
  static let discussion = """
    Fixtures are JSON Lines {"id","question","expectedIdentifiers":[...],"expectNoEvidence":bool}.
    Each question runs through the planner; coverage, precision and MRR count the expected ids
    in the first k results (averaged over the questions that have expected ids), no-evidence
    accuracy is the share of expectNoEvidence questions that returned nothing, and time to
    first result runs from planning to the first reply.

    A TREC-style collection is queries {"id","text"} lines plus qrels
    query-id<TAB>doc-id<TAB>grade (a header line is allowed); index its corpus
    ({"id","title","text"} lines) with 'searchlight index --format corpus'. Each query retrieves
    1000 results; nDCG@k (gain = grade, log2 discount), recall@k, recall@100, MRR@k and MAP follow
    trec_eval, over the queries that have judgments.

    Planners: plain (a ranked OR search over the question's words, stopwords removed) and
    builtin (the built-in planner: dates, known values, counts, phrases, weighted words), and
    fts5 (plain's search ranked by SQLite FTS5's bm25() instead of the ranked index). The
    model planner (model) needs a model server and is not available in eval yet.

    With --fixtures and --model-url (a chat-completions server, as for ask), each question is
    also answered by the model, as `ask` answers it, and the model answers are reported: how
    many the model (not the offline fall-back) answered, the grounding score (the share of the
    model's sentences whose names, numbers, dates and rare words its sources contain, over all
    answers), how many answers were cut (token limit, repetition, timeout), their time and
    completion tokens.

    When the index has embeddings (`searchlight embeddings`), the builtin planner fuses text
    and embedding retrieval; eval then runs the questions both ways and reports the gain of
    hybrid over text-only ranking (--no-compare runs the hybrid plan only).

    EXAMPLES:
      searchlight index --db cran.db --format corpus ../shared/data/cranfield/corpus.jsonl
      searchlight eval --db cran.db --queries ../shared/data/cranfield/queries.jsonl --qrels ../shared/data/cranfield/qrels.tsv
      searchlight eval --db demo.db --fixtures Tests/Fixtures/sample-fixtures.jsonl --now 2026-11-29T12:00:00Z --format json
    """
  static let options: [OptionSpec] = [
    Common.db, Common.indexName,
    OptionSpec(name: "fixtures", kind: .value, valueName: "FILE", help: "Questions with expected item ids (JSON Lines)."),
    OptionSpec(name: "queries", kind: .value, valueName: "FILE", help: "TREC-style queries {\"id\",\"text\"} (JSON Lines)."),
    OptionSpec(name: "qrels", kind: .value, valueName: "FILE", help: "Judgments query-id<TAB>doc-id<TAB>grade."),
    OptionSpec(name: "planner", kind: .value, valueName: "NAME", help: "How questions become queries: plain (default), builtin or fts5."),
    OptionSpec(name: "k", kind: .value, valueName: "N", help: "Results that count (default 10)."),
    OptionSpec(name: "model-url", kind: .value, valueName: "URL", help: "With --fixtures: also answer each question with this chat-completions server."),
    OptionSpec(name: "model", kind: .value, valueName: "NAME", help: "The model name the server knows (default: the server's one model)."),
    OptionSpec(name: "max-tokens", kind: .value, valueName: "N", help: "Tokens each model turn may generate (default 512)."),
    OptionSpec(name: "details", kind: .flag, help: "Show every question's or query's results."),
    OptionSpec(name: "no-compare", kind: .flag, help: "With embeddings: skip the text-only run that the gain is measured against."),
    Common.now, Common.protection, QuerySetup.stagesOption,
    OptionSpec(name: "format", kind: .value, valueName: "FORMAT", help: "table (default) or json (one object)."),
  ] + ModelAccess.accessOptions

  /// Planners `--planner` accepts now, and those that arrive later.
  static let planners = ["plain", "builtin", "fts5"]
  static let comingPlanners = ["model"]

  /// The planner named `name`, or a usage error.
  static func planner(named name: String) throws -> any QuestionPlanner {
    switch name {
    case "plain", "fts5": return PlainQuestionPlanner(name: name)
    case "builtin": return BuiltinQuestionPlanner()
    case let coming where comingPlanners.contains(coming):
      throw UsageError(message: "the '\(coming)' planner is not available yet (it needs a model server); use --planner builtin or plain", command: self.name)
    default:
      var message = "unknown planner '\(name)'; use one of \(planners.joined(separator: ", "))"
      if let suggestion = closestMatch(to: name, in: planners + comingPlanners), planners.contains(suggestion) {
        message = "unknown planner '\(name)'; did you mean '\(suggestion)'?"
      }
      throw UsageError(message: message, command: self.name)
    }
  }

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let format = try Common.format(arguments, allowed: ["table", "json"], default: "table", command: name)
    if !arguments.positionals.isEmpty {
      throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'", command: name)
    }
    var k = 10
    if let text = arguments.value("k") {
      guard let n = Int(text), (1...1000).contains(n) else {
        throw UsageError(message: "--k needs a whole number from 1 to 1000, got '\(text)'", command: name)
      }
      k = n
    }
    let planner = try planner(named: arguments.value("planner") ?? "plain")
    let fixturesPath = arguments.value("fixtures")
    let queriesPath = arguments.value("queries")
    let qrelsPath = arguments.value("qrels")
    switch (fixturesPath, queriesPath, qrelsPath) {
    case (_?, nil, nil), (nil, _?, _?): break
    case (_?, _, _): throw UsageError(message: "use --fixtures, or --queries with --qrels, not both", command: name)
    case (nil, _?, nil): throw UsageError(message: "--queries needs --qrels", command: name)
    case (nil, nil, _?): throw UsageError(message: "--qrels needs --queries", command: name)
    case (nil, nil, nil): throw UsageError(message: "missing '--fixtures <FILE>' or '--queries <FILE> --qrels <FILE>'", command: name)
    }
    let model = try answeringModel(arguments, fixtures: fixturesPath != nil)
    let bounds = try AskCommand.modelBounds(arguments)
    _ = try Common.dbPath(arguments, command: name)
    let scope = try Common.scope(arguments, command: name)
    let fixtures = try fixturesPath.map { try Fixture.load(path: $0) }
    let queries = try queriesPath.map { try TRECQuery.load(path: $0) }
    let qrels = try qrelsPath.map { try Qrels.load(path: $0) }
    let index = try Common.openIndex(arguments, command: name, create: false, readOnly: true)
    var options = QueryOptions(scope: scope, clock: QueryClock(now: try Common.now(arguments, command: name), timeZone: TimeZone.current))
    // fts5: the plain planner's OR search ranked by FTS5's bm25() over every match, the
    // baseline the ranked index and the built-in planner are measured against.
    if arguments.value("planner") == "fts5" { options.usesRankedIndex = false }
    options.embedder = QuerySetup.queryEmbedder(index, arguments: arguments)
    let registry = try QuerySetup.registry(arguments, catalog: try index.catalog(), command: name)
    let runner = QuestionRunner(executor: QueryExecutor(index: index, registry: registry), options: options, planner: planner)
    let details = arguments.has("details")
    // With embeddings the builtin planner is hybrid; the text-only run measures the gain.
    let compare = planner.name == "builtin" && options.embedder != nil && !arguments.has("no-compare")
    let baseline = compare ? QuestionRunner(executor: runner.executor, options: options, planner: BuiltinQuestionPlanner(hybrid: false)) : nil
    let hybridRunner = compare ? QuestionRunner(executor: runner.executor, options: options, planner: BuiltinQuestionPlanner(hybrid: true)) : runner
    do {
      if let fixtures {
        var result = try FixtureEvaluation.run(fixtures, runner: hybridRunner, k: k)
        if planner.name == "builtin" {
          // The offline answer (as `ask` gives it with no model) is scored too: its sources.
          let offline = try AskCommand.session(
            executor: runner.executor, options: options, guidance: .focused, model: nil, resultLimit: AskCommand.resultLimit)
          let answered = try blocking { try await ModelAnswerEvaluation.run(fixtures, session: offline) }
          result.scoreAnswers(answered.details.map { $0.summary.sources.map(\.id) })
        }
        let answers = try model.map { model in
          let session = try AskCommand.session(
            executor: runner.executor, options: options, guidance: .focused, model: model, resultLimit: AskCommand.resultLimit,
            configure: bounds)
          return try blocking { try await ModelAnswerEvaluation.run(fixtures, session: session) }
        }
        let text = try baseline.map { try FixtureEvaluation.run(fixtures, runner: $0, k: k) }
        if format == "json" {
          var json = result.jsonValue(details: details)
          if let text, case .object(var object) = json {
            object["textOnly"] = text.jsonValue(details: false)
            object["gain"] = .object(JSONObject([
              ("coverage", gain(result.coverage, text.coverage)), ("precision", gain(result.precision, text.precision)),
              ("mrr", gain(result.meanReciprocalRank, text.meanReciprocalRank)),
            ]))
            json = .object(object)
          }
          if let answers, case .object(var object) = json {
            object["modelAnswers"] = answers.jsonValue(details: details)
            json = .object(object)
          }
          Terminal.out(json.compactText + "\n")
        } else {
          var output = table(result, details: details)
          if let text {
            output += table(text, details: false)
            output += "Hybrid gain over text only:\n"
            output += "  coverage              \(signed(result.coverage, text.coverage))\n"
            output += "  precision             \(signed(result.precision, text.precision))\n"
            output += "  MRR                   \(signed(result.meanReciprocalRank, text.meanReciprocalRank))\n"
          }
          if let answers { output += table(answers, details: details) }
          Terminal.out(output)
        }
      } else if let queries, let qrels {
        let result = try TRECEvaluation.run(queries, qrels: qrels, runner: hybridRunner, k: k)
        let text = try baseline.map { try TRECEvaluation.run(queries, qrels: qrels, runner: $0, k: k) }
        if format == "json" {
          var json = result.jsonValue(details: details)
          if let text, case .object(var object) = json {
            object["textOnly"] = text.jsonValue(details: false)
            object["gain"] = .object(JSONObject([
              ("nDCG", gain(result.nDCG, text.nDCG)), ("recall", gain(result.recallAtK, text.recallAtK)),
              ("recall100", gain(result.recallAt100, text.recallAt100)), ("mrr", gain(result.meanReciprocalRank, text.meanReciprocalRank)),
              ("map", gain(result.meanAveragePrecision, text.meanAveragePrecision)),
            ]))
            json = .object(object)
          }
          Terminal.out(json.compactText + "\n")
        } else {
          var output = table(result, details: details)
          if let text {
            let names = result.names
            output += table(text, details: false)
            output += "Hybrid gain over text only:\n"
            let rows: [(String, Double?, Double?)] = [
              (names.nDCG, result.nDCG, text.nDCG), (names.recall, result.recallAtK, text.recallAtK),
              ("recall@100", result.recallAt100, text.recallAt100), (names.mrr, result.meanReciprocalRank, text.meanReciprocalRank),
              ("MAP", result.meanAveragePrecision, text.meanAveragePrecision),
            ]
            for (label, a, b) in rows { output += "  " + label.padding(toLength: 12, withPad: " ", startingAt: 0) + signed(a, b) + "\n" }
          }
          Terminal.out(output)
        }
      }
    } catch {
      throw queryFailure(error)
    }
    return .success
  }

  /// The model of `--model-url`/`--model` (never the environment: an evaluation runs only
  /// what its command line says); nil without `--model-url`.
  static func answeringModel(_ arguments: ParsedArguments, fixtures: Bool) throws -> (any LanguageModel)? {
    guard let text = arguments.value("model-url") else {
      if arguments.value("model") != nil { throw UsageError(message: "--model needs --model-url <URL>", command: name) }
      return nil
    }
    guard fixtures else { throw UsageError(message: "--model-url goes with --fixtures", command: name) }
    return try ModelAccess.model(urlText: text, model: arguments.value("model"), arguments: arguments, command: name)
  }

  /// Runs async work to its end from this synchronous command.
  static func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
      do {
        let value = try await work()
        outcome.withLock { $0 = .success(value) }
      } catch {
        outcome.withLock { $0 = .failure(error) }
      }
      done.signal()
    }
    done.wait()
    return try outcome.withLock { $0 ?? .failure(CancellationError()) }.get()
  }

  // MARK: Tables

  static func table(_ answers: ModelAnswerEvaluation, details: Bool) -> String {
    var text = ""
    if details {
      text += columns([["id", "responder", "grounding", "cut", "seconds", "question"]] + answers.details.map { detail in
        [detail.fixture.id, detail.summary.responder == .offline ? "offline" : "model", number(detail.summary.grounding),
         detail.summary.cut?.reason.rawValue ?? "-", String(format: "%.1f", detail.seconds), detail.fixture.question]
      }) + "\n"
    }
    text += "Model answers: \(answers.questions) question\(answers.questions == 1 ? "" : "s") (model \(answers.model))\n"
    text += "  answered by the model \(answers.answeredByModel) of \(answers.questions)\n"
    text += "  grounding             \(number(answers.grounding))  (\(answers.checkedSentences - answers.unsupportedSentences) of \(answers.checkedSentences) sentences supported)\n"
    text += "  cut                   \(answers.cut)\n"
    text += "  time per answer       p50 \(seconds(answers.secondsP50)), p95 \(seconds(answers.secondsP95))\n"
    text += "  completion tokens     \(answers.completionTokens.map { String(format: "%.0f", $0) } ?? "n/a") per answer\n"
    return text
  }

  static func seconds(_ value: Double?) -> String { value.map { String(format: "%.1f s", $0) } ?? "n/a" }

  static func number(_ value: Double?) -> String { value.map { String(format: "%.4f", $0) } ?? "n/a" }

  /// `+0.0123 (+4.1%)`: the difference of hybrid over text-only.
  static func signed(_ value: Double?, _ base: Double?) -> String {
    guard let value, let base else { return "n/a" }
    let relative = base > 0 ? String(format: " (%+.1f%%)", (value - base) / base * 100) : ""
    return String(format: "%+.4f", value - base) + relative
  }

  static func gain(_ value: Double?, _ base: Double?) -> JSONValue {
    guard let value, let base else { return .null }
    return .number(((value - base) * 1_000_000).rounded() / 1_000_000)
  }
  static func milliseconds(_ value: Double?) -> String { value.map { String(format: "%.1f ms", $0) } ?? "n/a" }

  static func table(_ result: FixtureEvaluation, details: Bool) -> String {
    var text = ""
    if details {
      text += columns([["id", "coverage", "precision", "RR", "first ms", "returned", "question"]] + result.details.map { detail in
        let outcome: String = detail.noEvidenceCorrect.map { $0 ? "none (right)" : "\(detail.returned.count) (expected none)" }
          ?? "\(detail.returned.count)"
        return [detail.fixture.id, number(detail.coverage), number(detail.precision), number(detail.reciprocalRank),
                String(format: "%.1f", detail.firstReplyMs), outcome, detail.fixture.question]
      }) + "\n"
    }
    let withExpected = result.details.filter { !$0.fixture.expectedIdentifiers.isEmpty }.count
    let expectingNone = result.details.filter(\.fixture.expectNoEvidence).count
    text += "Result coverage: \(result.questions) question\(result.questions == 1 ? "" : "s") (planner \(result.planner), first \(result.k) results)\n"
    text += "  coverage              \(number(result.coverage))  (\(withExpected) with expected items)\n"
    text += "  precision             \(number(result.precision))\n"
    text += "  MRR                   \(number(result.meanReciprocalRank))\n"
    text += "  no-evidence accuracy  \(number(result.noEvidenceAccuracy))  (\(expectingNone) expecting none)\n"
    if result.answersScored {
      text += "  answer coverage       \(number(result.answerCoverage))  (expected items among the offline answer's sources)\n"
      text += "  answer no-evidence    \(number(result.answerNoEvidenceAccuracy))  (answered with no sources)\n"
    }
    text += "  time to first result  p50 \(milliseconds(result.timeToFirstResultP50)), p95 \(milliseconds(result.timeToFirstResultP95))\n"
    return text
  }

  static func table(_ result: TRECEvaluation, details: Bool) -> String {
    let names = result.names
    var text = ""
    if details {
      text += columns([["id", names.nDCG, names.recall, "recall@100", names.mrr, "AP", "relevant", "retrieved"]] + result.details.map { detail in
        [detail.query.id, number(detail.nDCG), number(detail.recallAtK), number(detail.recallAt100), number(detail.reciprocalRank),
         number(detail.averagePrecision), String(detail.relevant), String(detail.retrieved)]
      }) + "\n"
    }
    text += "TREC-style evaluation: \(result.queries) quer\(result.queries == 1 ? "y" : "ies") (planner \(result.planner), \(result.depth) results per query)\n"
    let rows: [(String, Double?)] = [
      (names.nDCG, result.nDCG), (names.recall, result.recallAtK), ("recall@100", result.recallAt100), (names.mrr, result.meanReciprocalRank),
      ("MAP", result.meanAveragePrecision),
    ]
    for (label, value) in rows { text += "  " + label.padding(toLength: 12, withPad: " ", startingAt: 0) + number(value) + "\n" }
    if !result.skipped.isEmpty {
      text += "  (\(result.skipped.count) quer\(result.skipped.count == 1 ? "y" : "ies") without judgments skipped)\n"
    }
    return text
  }

  /// Left-aligned columns, two spaces apart, a rule under the header.
  static func columns(_ rows: [[String]]) -> String {
    guard let header = rows.first else { return "" }
    var widths = header.map(\.count)
    for row in rows { for (column, cell) in row.enumerated() where column < widths.count { widths[column] = max(widths[column], cell.count) } }
    func line(_ cells: [String]) -> String {
      var text = "  "
      for (column, cell) in cells.enumerated() {
        text += column == cells.count - 1 ? cell : cell.padding(toLength: widths[column] + 2, withPad: " ", startingAt: 0)
      }
      return text + "\n"
    }
    return line(header) + line(widths.map { String(repeating: "-", count: $0) }) + rows.dropFirst().map(line).joined()
  }
}
