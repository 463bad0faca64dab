import Assistant
import Dispatch
import Foundation
import QueryEngine
import SearchIndex
import Synchronization

/// `searchlight ask`: answers a question from the index, offline or with a model that calls
/// the search tool, streaming the answer and then listing its sources.
enum AskCommand: Command {
  static let name = "ask"
  static let abstract = "Answer a question from your items, offline or with a model (OpenAI-compatible) that searches them."
  static let usage = "ask --db FILE [--model-url URL [--model NAME] [--api-key-file FILE] [--fallback WHEN]] [--guide LEVEL] [--max-tokens N] [--timeout SECONDS] [--grounding flag|strict|off] [--format text|json] [--timing] [--now ISO8601] [--] QUESTION"
  static let discussion = """
    With no model, the built-in planner turns the question into a query and the answer quotes
    what came back: titles, dates and each item's best matching sentence, the number of a count
    or statistic (citing the items it was computed from; a count of none is "0 items match."), or
    "Nothing relevant was found in your items." With --model-url (or SEARCHLIGHT_MODEL_URL)
    and --model (or SEARCHLIGHT_MODEL), a chat-completions server (llama.cpp, Ollama, vLLM,
    LM Studio, a hosted API) answers, calling the search tool for up to 4 rounds; sources
    always come from what the searches returned.
    Without --model, the server's one model (GET /v1/models) is used; a server with several
    needs --model. The API key comes from --api-key-file, else SEARCHLIGHT_API_KEY, else
    OPENAI_API_KEY, and is never printed. If the server cannot be reached, a one-line note
    goes to stderr and the offline answer follows (exit 0); any other model failure (a
    refused key, an unknown model, a rate limit, a timeout) exits 74 with the server's
    message, unless --fallback offline asks for the offline answer instead.

    A model's answer is bounded: each turn asks for at most --max-tokens tokens (512), the
    stream stops when the model starts repeating itself, and the server may take --timeout
    seconds (60) to connect and stay silent for as long (before its first byte too) within
    --total-timeout (300); a cut answer ends with a note. Each
    sentence of a model's answer is checked against the sources (names, numbers, dates and
    rare words must appear in them): --grounding flag (default) marks the unsupported ones,
    strict leaves them out, off does not check.

    Text output is the answer as it streams, then the sources (id, title, date, contentURL).
    JSON output is one event per line: {"event":"reply","reply":{...}}, {"event":"source",
    "item":{...}}, {"event":"text","delta":"..."}, {"event":"notice","message":"..."},
    {"event":"cut","reason":...}, {"event":"unsupported","sentence":...} and
    {"event":"done",...} last. Ctrl-C stops the model request and the query (exit 130).

    EXAMPLES:
      searchlight ask --db items.db 'what went wrong at the Orion launch?'
      searchlight ask --db items.db --model-url http://localhost:8080 --model qwen3 'how many hikes in Utah?'
    """
  static let options: [OptionSpec] = QuerySetup.options + [
    OptionSpec(name: "guide", kind: .value, valueName: "LEVEL", help: "The search tool offered to the model: focused (default), complete or profile:..."),
    OptionSpec(name: "format", kind: .value, valueName: "FORMAT", help: "text (default) or json (JSON Lines events)."),
    OptionSpec(name: "timing", kind: .flag, help: "Print the time to the first source, to the first text and in total, and the time of each phase of the process, on stderr."),
  ] + ModelAccess.options

  /// Items an answer lists and cites at most.
  static let resultLimit = 10

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let json = try Common.format(arguments, allowed: ["text", "json"], default: "text", command: name) == "json"
    guard !arguments.positionals.isEmpty else { throw UsageError(message: "missing QUESTION", command: name) }
    let question = arguments.positionals.joined(separator: " ")
    let guidance: ToolGuidance
    do { guidance = try ToolGuidance(parsing: arguments.value("guide") ?? "focused") } catch {
      throw UsageError(message: error.message, command: name)
    }
    let model = try languageModel(arguments)
    let bounds = try modelBounds(arguments)
    let setup = try QuerySetup(arguments, command: name)
    let session: AnswerSession
    let phases = PhaseTiming.shared
    do {
      session = try phases.measure(.vocabulary) {
        try Self.session(
          executor: setup.executor, options: setup.options, guidance: guidance, model: model, resultLimit: resultLimit,
          configure: bounds)
      }
    } catch {
      throw queryFailure(error)
    }
    // The answer loop plans (timed by the planner) and runs searches; printing is render.
    let timing = try phases.measure(.execute) { try answer(question, with: session, printer: AnswerPrinter(json: json)) }
    if arguments.has("timing") {
      Terminal.err(timing.description + "\n")
      Terminal.err(phases.summary + "\n")
    }
    return .success
  }

  /// An answer session over the executor's index: the search tool with `guidance`, the
  /// built-in planner, and at most `resultLimit` items listed and cited.
  static func session(
    executor: QueryExecutor, options: QueryOptions, guidance: ToolGuidance, model: (any LanguageModel)?, resultLimit: Int,
    configure: (inout AnswerSession.Configuration) -> Void = { _ in }
  ) throws -> AnswerSession {
    var configuration = AnswerSession.Configuration()
    configuration.resultLimit = resultLimit
    configure(&configuration)
    let planner = try BuiltinPlanner(
      index: executor.index, clock: options.clock, scope: options.scope, resultLimit: resultLimit, registry: executor.registry)
    return try AnswerSession(
      executor: executor, options: options, model: model, guidance: guidance, planner: TimedPlanner(planner: planner),
      configuration: configuration)
  }

  /// Prints the answer to `question` as it streams. Ctrl-C stops it and exits 130.
  static func answer(_ question: String, with session: AnswerSession, printer: AnswerPrinter) throws -> AnswerTiming {
    switch wait(for: session.streamResponse(to: question), printer: printer) {
    case .success(let timing):
      return timing
    case .failure(.cancelled):
      Terminal.err("\n")
      throw CommandFailure(.interrupted, "cancelled")
    case .failure(let error):
      // A model failure exits as `ModelAccess.failure` says, a failed search as a query's.
      throw queryFailure(error.underlying)
    }
  }

  /// The model from `--model-url`/`--model` or the environment; nil for none.
  static func languageModel(_ arguments: ParsedArguments) throws -> (any LanguageModel)? {
    let environment = ProcessInfo.processInfo.environment
    let urlText = arguments.value("model-url") ?? environment["SEARCHLIGHT_MODEL_URL"].flatMap { $0.isEmpty ? nil : $0 }
    let modelName = arguments.value("model") ?? environment["SEARCHLIGHT_MODEL"].flatMap { $0.isEmpty ? nil : $0 }
    guard let urlText else {
      if arguments.value("model") != nil {
        throw UsageError(message: "--model needs --model-url <URL> (or SEARCHLIGHT_MODEL_URL)", command: name)
      }
      return nil
    }
    return try ModelAccess.model(
      urlText: urlText, model: modelName, arguments: arguments, command: name,
      idleTimeout: try seconds(arguments, "timeout"), requestTimeout: try seconds(arguments, "total-timeout"))
  }

  /// `--max-tokens` and `--grounding` as a change to the session's configuration.
  static func modelBounds(_ arguments: ParsedArguments) throws -> (inout AnswerSession.Configuration) -> Void {
    var maximumTokens: Int?
    if let text = arguments.value("max-tokens") {
      guard let value = Int(text), value > 0 else {
        throw UsageError(message: "--max-tokens takes a positive whole number, not '\(text)'", command: name)
      }
      maximumTokens = value
    }
    var grounding = GroundingMode.flag
    if let text = arguments.value("grounding") {
      guard let mode = GroundingMode(rawValue: text) else {
        throw UsageError(message: "unknown grounding '\(text)'; use one of flag, strict, off", command: name)
      }
      grounding = mode
    }
    let fallback = try ModelAccess.fallback(arguments, command: name)
    return { configuration in
      configuration.fallback = fallback
      if let maximumTokens { configuration.generation.maxTokens = maximumTokens }
      configuration.grounding = grounding
    }
  }

  /// A positive number of seconds from `--NAME`, nil when not given.
  static func seconds(_ arguments: ParsedArguments, _ option: String) throws -> Duration? {
    guard let text = arguments.value(option) else { return nil }
    guard let value = Double(text), value > 0, value.isFinite else {
      throw UsageError(message: "--\(option) takes a positive number of seconds, not '\(text)'", command: name)
    }
    return .milliseconds(Int64(value * 1000))
  }

  /// Prints the stream's events until it ends, on a task that Ctrl-C cancels; blocks until then.
  static func wait(for events: AnswerEvents, printer: AnswerPrinter) -> Result<AnswerTiming, AnswerError> {
    let outcome = Mutex<Result<AnswerTiming, AnswerError>?>(nil)
    let finished = DispatchSemaphore(value: 0)
    let task = Task {
      var printer = printer
      let result: Result<AnswerTiming, AnswerError>
      do throws(AnswerError) {
        for try await event in events { printer.print(event) }
        // A cancelled iteration just ends; only an answer that reached `.done` is complete.
        result = printer.timing.end == nil ? .failure(.cancelled) : .success(printer.timing)
      } catch {
        result = .failure(error)
      }
      outcome.withLock { $0 = result }
      finished.signal()
    }
    signal(SIGINT, SIG_IGN)
    let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    interrupt.setEventHandler { task.cancel() }
    interrupt.resume()
    finished.wait()
    interrupt.cancel()
    signal(SIGINT, SIG_DFL)
    return outcome.withLock { $0 } ?? .failure(.cancelled)
  }
}

/// How long an answer took to show its first source and its first text.
struct AnswerTiming: CustomStringConvertible {
  let start = ContinuousClock.now
  var firstSource: ContinuousClock.Instant?
  var firstText: ContinuousClock.Instant?
  var end: ContinuousClock.Instant?
  /// The model's token counts over the answer, when the server reported them.
  var usage: TokenUsage?

  var description: String {
    func milliseconds(_ instant: ContinuousClock.Instant?) -> String {
      guard let instant else { return "none" }
      let duration = instant - start
      return String(format: "%.1f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }
    let line = "time to first source: \(milliseconds(firstSource)), time to first text: \(milliseconds(firstText)), total: \(milliseconds(end))"
    guard let usage else { return line }
    return line + "\ntokens: prompt \(usage.promptTokens), completion \(usage.completionTokens)"
  }
}

/// Prints answer events: the text as it streams and then the sources, or one JSON line each.
struct AnswerPrinter {
  let json: Bool
  private(set) var timing = AnswerTiming()
  private var endsWithNewline = true

  init(json: Bool) {
    self.json = json
  }

  mutating func print(_ event: AnswerEvent) {
    PhaseTiming.shared.measure(.render) { printUntimed(event) }
  }

  private mutating func printUntimed(_ event: AnswerEvent) {
    switch event {
    case .source:
      if timing.firstSource == nil { timing.firstSource = .now }
    case .text(let piece):
      if timing.firstText == nil { timing.firstText = .now }
      if !piece.isEmpty { endsWithNewline = piece.hasSuffix("\n") }
    case .done(let summary):
      timing.end = .now
      timing.usage = summary.usage
    case .reply, .notice, .cut, .unsupported:
      break
    }
    if json {
      Terminal.out(event.jsonValue.compactText + "\n")
      return
    }
    switch event {
    case .text(let piece):
      Terminal.out(VisibleText.visible(piece))
    case .notice(let message):
      Terminal.err("note: \(message)\n")
    case .unsupported(let unsupported) where !unsupported.dropped:
      // Right after the sentence's text: a mark the reader sees where the claim is.
      Terminal.out(VisibleText.visible(" [not in the sources: \(unsupported.missing.joined(separator: ", "))]", keepingLines: false))
      endsWithNewline = false
    case .done(let summary):
      var out = endsWithNewline ? "" : "\n"
      if !summary.sources.isEmpty {
        out += "\nSources:\n"
        for (number, source) in summary.sources.enumerated() {
          let fields = [source.id, source.title, source.day, source.contentURL].compactMap { $0 }
          out += "  [\(number + 1)] " + VisibleText.visible(fields.joined(separator: "  "), keepingLines: false) + "\n"
        }
      }
      Terminal.out(out)
    case .reply, .source, .cut, .unsupported:
      // A cut is said by the notice before it; a dropped sentence by the turn's notice.
      break
    }
  }
}

/// A planner whose plans count as the `plan` phase of `--timing`.
struct TimedPlanner: AnswerPlanner {
  let planner: BuiltinPlanner

  func plan(_ question: String) throws -> PlannedQuery {
    try PhaseTiming.shared.measure(.plan) { try planner.plan(question) }
  }
}
