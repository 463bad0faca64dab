import Foundation
import QueryEngine
import SearchIndex

/// One response of an `AnswerSession`: runs the model's tool rounds or the offline
/// responder, and owns what must hold whoever writes the answer (sources from replies only,
/// once per id; the coded not-found answer; no model text shown before there is evidence).
struct AnswerRun {
  let session: AnswerSession
  /// The session's tool with this response's cancellation flag.
  let tool: SearchTool
  let emit: (AnswerEvent) -> Void

  private var sources: [AnswerSource] = []
  private var sourceIDs = Set<String>()
  /// The answer text emitted so far.
  private var text = ""
  private var toolRounds = 0
  /// Complete replies of the searches run, for an extractive answer.
  private var replies: [Reply] = []
  /// The question being answered.
  private var question = ""
  private var unsupportedSentences: [UnsupportedSentence] = []
  private var checkedSentences = 0
  private var cut: AnswerCut?
  private var usage: TokenUsage?
  private var groundingCache: (Int, GroundingCheck)?
  /// Tool calls that returned an error, and the model's rounds in a row whose calls all did.
  private var failedCalls = 0
  private var failedRounds = 0

  init(session: AnswerSession, cancellation: CancellationFlag, emit: @escaping (AnswerEvent) -> Void) {
    self.session = session
    var tool = session.tool
    tool.options.cancellation = cancellation
    self.tool = tool
    self.emit = emit
  }

  private var configuration: AnswerSession.Configuration { session.configuration }

  mutating func respond(to question: String) async throws -> AnswerSummary {
    self.question = question
    if let model = session.model {
      if try await answerWithModel(model, question: question) {
        return summary(.model(session.modelName))
      }
    }
    try answerOffline(question)
    return summary(.offline)
  }

  private func summary(_ responder: AnswerSummary.Responder) -> AnswerSummary {
    AnswerSummary(
      text: text, sources: sources, responder: responder, toolRounds: toolRounds, foundNothing: sources.isEmpty,
      unsupported: unsupportedSentences, checkedSentences: checkedSentences, cut: cut, usage: usage)
  }

  // MARK: With a model

  /// The tool rounds and the answer. False when the model failed before any answer text,
  /// after a notice saying so: the offline responder answers instead.
  private mutating func answerWithModel(_ model: any LanguageModel, question: String) async throws -> Bool {
    let definition = session.toolDefinition
    var messages: [ChatMessage] = [.system(session.systemMessage)] + session.history + [.user(question)]
    var searchedForTheModel = false
    while true {
      try Task.checkCancellation()
      let toolsAllowed = toolRounds < configuration.maximumToolRounds
      if !toolsAllowed { messages.append(.user(AnswerInstructions.finalRound)) }
      // Text is shown as it streams only once a search has returned evidence; before that
      // it is either talk before a tool call or an answer with nothing behind it.
      let streaming = !sources.isEmpty
      var turn = Turn(grounding: configuration.grounding)
      var calls: [ToolCall] = []
      var finished = false
      var finishReason: FinishReason?
      var looped = false
      var textGuard = RepetitionGuard()
      var reasoningGuard = RepetitionGuard()
      do {
        reading: for try await event in model.stream(messages: messages, tools: toolsAllowed ? [definition] : [], options: configuration.generation) {
          switch event {
          case .textDelta(let piece):
            turn.modelText += piece
            if streaming { show(piece, in: &turn) }
            if configuration.stopsRepetition, textGuard.feed(piece) {
              looped = true
              break reading
            }
          case .reasoningDelta(let piece):
            if configuration.stopsRepetition, reasoningGuard.feed(piece) {
              looped = true
              break reading
            }
          case .toolCall(let call):
            calls.append(call)
          case .finished(let reason, let tokens):
            finished = true
            finishReason = reason
            if let tokens { addUsage(tokens) }
          }
        }
        // A model stream ends without `.finished` only when its consumer was cancelled (or
        // when the repetition guard stopped reading it).
        if !finished, !looped { throw CancellationError() }
      } catch is CancellationError {
        throw CancellationError()
      } catch {
        let failure = ModelError(wrapping: error)
        if failure == .cancelled || Task.isCancelled { throw CancellationError() }
        if text.isEmpty {
          guard configuration.fallback.fallsBack(after: failure) else { throw failure }
          emit(.notice("\(failure.description); answering without the model"))
          return false
        }
        if streaming { finishSentences(of: &turn) }
        emit(.notice("the answer was cut short: \(failure.description)"))
        noteCut(AnswerCut(reason: { if case .timeout = failure { .timeout } else { .error } }()))
        return true
      }
      if streaming { finishSentences(of: &turn) }
      if looped {
        calls = []
        if streaming {
          emit(.notice("the answer was cut: the model started repeating itself"))
          noteCut(AnswerCut(reason: .repetition))
        }
      } else if streaming, calls.isEmpty, finishReason == .length, !turn.modelText.isEmpty {
        let limit = configuration.generation.maxTokens
        emit(.notice("the answer was cut at the token limit" + (limit.map { " (\($0) tokens)" } ?? "")))
        noteCut(AnswerCut(reason: .length, limit: limit))
      }
      if turn.dropped > 0 {
        let sentences = turn.dropped == 1 ? "1 sentence" : "\(turn.dropped) sentences"
        emit(.notice("left out \(sentences) of the model's answer that the sources do not support"))
      }
      let turnText = turn.modelText
      if toolsAllowed, !calls.isEmpty {
        messages.append(.assistant(content: turnText.isEmpty ? nil : turnText, toolCalls: calls))
        let failuresBefore = failedCalls
        for call in calls {
          messages.append(.tool(callID: call.id, content: try await runToolCall(call, model: model)))
        }
        toolRounds += 1
        failedRounds = failedCalls - failuresBefore == calls.count ? failedRounds + 1 : 0
        // A malformed call is answered in band so the model can correct it, once; a model
        // that fails again gets the planned search instead of more rounds of errors.
        guard failedRounds >= 2, sources.isEmpty, !searchedForTheModel, toolRounds < configuration.maximumToolRounds,
          let arguments = try plannedCall(question)
        else { continue }
        searchedForTheModel = true
        let call = ToolCall(id: "planned_search", name: definition.name, arguments: arguments)
        messages.append(.assistant(content: nil, toolCalls: [call]))
        messages.append(.tool(callID: call.id, content: try await runToolCall(call, model: model)))
        continue
      }
      if sources.isEmpty, toolRounds == 0, !searchedForTheModel, toolsAllowed, let arguments = try plannedCall(question) {
        // The model answered without searching: run the planned search for it, as if it had
        // called the tool, so its answer can rest on something.
        searchedForTheModel = true
        let call = ToolCall(id: "planned_search", name: definition.name, arguments: arguments)
        messages.append(.assistant(content: turnText.isEmpty ? nil : turnText, toolCalls: [call]))
        messages.append(.tool(callID: call.id, content: try await runToolCall(call, model: model)))
        continue
      }
      if sources.isEmpty {
        write(AnswerInstructions.notFound)
      } else if !streaming || turn.shown.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
        // Evidence, but no usable text from the model: describe what came back.
        write(whatCameBack)
      }
      session.remember(question, answer: text)
      return true
    }
  }

  /// One model turn's text: as the model wrote it, and as shown after the grounding check.
  private struct Turn {
    var modelText = ""
    /// What this turn wrote into the answer.
    var shown = ""
    /// Sentences `strict` grounding left out.
    var dropped = 0
    var sentences: SentenceStream
    let grounding: GroundingMode

    init(grounding: GroundingMode) {
      self.grounding = grounding
      sentences = SentenceStream(passThrough: grounding != .strict)
    }
  }

  /// Shows a piece of the model's answer: at once (with `flag`, each unsupported sentence
  /// reported right after its text; with `off`, unchecked), or, with `strict`, sentence by
  /// sentence as each passes the check.
  private mutating func show(_ piece: String, in turn: inout Turn) {
    guard turn.grounding != .off else {
      writeTurn(piece, in: &turn)
      return
    }
    for output in turn.sentences.feed(piece) { handle(output, in: &turn) }
  }

  /// The end of the turn: the last sentence is complete.
  private mutating func finishSentences(of turn: inout Turn) {
    guard turn.grounding != .off, let last = turn.sentences.finish() else { return }
    handle(last, in: &turn)
  }

  private mutating func handle(_ output: SentenceStream.Output, in turn: inout Turn) {
    switch output {
    case .text(let piece):
      writeTurn(piece, in: &turn)
    case .sentence(let sentence):
      let held = turn.grounding == .strict
      let trimmed = sentence.trimmingCharacters(in: .whitespacesAndNewlines)
      if !trimmed.isEmpty { checkedSentences += 1 }
      let missing = trimmed.isEmpty ? [] : grounding.missingTerms(in: trimmed)
      guard !missing.isEmpty else {
        if held { writeTurn(sentence, in: &turn) }
        return
      }
      let unsupported = UnsupportedSentence(sentence: trimmed, missing: missing, dropped: held)
      unsupportedSentences.append(unsupported)
      if held { turn.dropped += 1 }
      emit(.unsupported(unsupported))
    }
  }

  /// Writes model text into the answer, after a paragraph break from an earlier turn's text.
  private mutating func writeTurn(_ piece: String, in turn: inout Turn) {
    var piece = piece
    if turn.shown.isEmpty {
      // Left-over white space of a dropped sentence must not open the answer.
      if turn.grounding == .strict { piece = String(piece.drop { $0.isWhitespace }) }
      guard !piece.isEmpty else { return }
      if !text.isEmpty { write("\n\n") }
    }
    turn.shown += piece
    write(piece)
  }

  /// The check over the sources cited so far, rebuilt when more are cited.
  private var grounding: GroundingCheck {
    mutating get {
      if let (count, check) = groundingCache, count == sources.count { return check }
      let check = GroundingCheck(sources: sources.map(\.item), question: question, timeZone: tool.options.clock.timeZone)
      groundingCache = (sources.count, check)
      return check
    }
  }

  private mutating func noteCut(_ cut: AnswerCut) {
    self.cut = cut
    emit(.cut(cut))
  }

  private mutating func addUsage(_ tokens: TokenUsage) {
    guard let earlier = usage else {
      usage = tokens
      return
    }
    usage = TokenUsage(
      promptTokens: earlier.promptTokens + tokens.promptTokens,
      completionTokens: earlier.completionTokens + tokens.completionTokens,
      totalTokens: earlier.totalTokens + tokens.totalTokens)
  }

  /// Runs one tool call and returns the text the model reads; replies and sources are emitted.
  private mutating func runToolCall(_ call: ToolCall, model: any LanguageModel) async throws -> String {
    guard call.name == session.toolDefinition.name else {
      failedCalls += 1
      let error = ToolCallError(path: "$", message: "unknown tool '\(call.name)'", expected: "a call of \(session.toolDefinition.name)")
      return SearchTool.errorText(error)
    }
    let result: SearchTool.Result
    do {
      if let (arguments, stage) = try PromptedStage.split(call.arguments) {
        var reading = tool
        reading.maximumResultCount = stage.maxItems + 1
        result = try await stage.apply(to: try reading.call(arguments), tool: reading, model: model)
      } else {
        result = try tool.call(call.arguments)
      }
    } catch let error as ToolCallError {
      failedCalls += 1
      return SearchTool.errorText(error)
    } catch let error as ModelError where error != .cancelled {
      // The prompted stage's own model call failed: the model hears it like any tool failure.
      return "The prompted stage did not run: \(error.description)"
    }
    if result.error != nil { failedCalls += 1 }
    for reply in result.replies {
      emit(.reply(reply))
      replies.append(reply)
    }
    try cite(result.replies, query: result.query)
    return result.text
  }

  /// A `dsl` tool call of the planned query, for a model that did not search; nil when the
  /// question has nothing to search for.
  private func plannedCall(_ question: String) throws -> String? {
    let plan = try session.planner.plan(question)
    guard !plan.searchesNothing else { return nil }
    let query: JSONValue = ["query": ["type": "dsl", "value": ["query": .string(plan.dsl)]]]
    return query.compactText
  }

  // MARK: Offline

  /// Plans the question, runs the plan, and writes the extractive answer from the relevant
  /// items (or, for aggregates, from the numbers, citing the items behind them).
  private mutating func answerOffline(_ question: String) throws {
    let plan = try session.planner.plan(question)
    let planReplies = plan.searchesNothing ? [] : try run(plan.query)
    let coverage = TermCoverage(plan.rankedTerms, minimum: configuration.minimumTermCoverage)
    let evidenceReplies = try plan.evidence.map { evidence in
      guard let groups = Self.rankedGroups(plan, replies: planReplies) else {
        return try run(evidence.appending(PlanSyntax.stage("limit", words: "\(configuration.resultLimit)")))
      }
      // Each group listed gets its share of the sources.
      let share = max(1, configuration.resultLimit / groups.count)
      return try groups.flatMap { test in
        try run(evidence.appending(PlanSyntax.stage("where", [[test]]), PlanSyntax.stage("limit", words: "\(share)")))
      }
    } ?? planReplies
    // An ordered list's items differ by what orders them: two packages of the same text
    // but different sizes are both among "the largest packages".
    var measure: String?
    if case .superlative(let attribute, _, _) = plan.intent { measure = attribute }
    var evidence: [ResultItem] = []
    var seen: [(words: Set<String>, measured: AttributeValue?)] = []
    var unreadable = 0
    for reply in evidenceReplies {
      let (items, missing) = try hydrated(reply.content.resultItems)
      unreadable += missing
      for item in items where evidence.count < configuration.resultLimit && coverage.isRelevant(item.item) {
        // A near copy of an item already cited (the same note saved twice, a forwarded mail)
        // adds nothing: one source stands for both.
        let tokens = TermCoverage.words(of: item.item)
        let measured = measure.flatMap { item.item.attributeSet[$0] }
        guard !seen.contains(where: { $0.measured == measured && TermCoverage.isNearDuplicate($0.words, tokens) }) else { continue }
        if cite(item.item, token: reply.queryToken) {
          evidence.append(item)
          seen.append((tokens, measured))
        }
      }
    }
    guard !evidence.isEmpty else {
      // After a model failure, the model's own searches may have found what the plan did not.
      if sources.isEmpty, unreadable > 0 {
        write(AnswerInstructions.textNotStored(unreadable))
      } else if sources.isEmpty, Self.countsNone(planReplies) {
        // "How many packages have no maintainer": none is the answer, not a failure to find one.
        write(ExtractiveAnswer(terms: []).describe(replies: planReplies, items: []))
      } else {
        write(sources.isEmpty ? AnswerInstructions.notFound : whatCameBack)
      }
      return
    }
    let weights = Dictionary(plan.termWeights.map { ($0.term, $0.weight) }, uniquingKeysWith: max)
    var writer = ExtractiveAnswer(terms: plan.termWeights.map(\.term), weights: weights, question: question)
    writer.measure = measure
    if let collection = plan.collectionWithoutMatches {
      // The collection the question named had none: say so before what other items hold.
      write("None of your \(collection) match. Among all items:\n")
    }
    write(plan.evidenceDSL == nil ? writer.describe(items: evidence) : writer.describe(replies: planReplies, items: evidence))
  }

  /// True when the replies are counts, all of them zero.
  static func countsNone(_ replies: [Reply]) -> Bool {
    !replies.isEmpty && replies.allSatisfy { reply in
      if case .count(0) = reply.content { return true }
      return false
    }
  }

  /// For a plan that ranks groups, a test per group its table lists that keeps the group's
  /// items (`state == "California"`); nil for other plans, or a table of no such values.
  static func rankedGroups(_ plan: PlannedQuery, replies: [Reply]) -> [Expression]? {
    guard let attribute = plan.rankedGroupAttribute else { return nil }
    let table = replies.lazy.compactMap { reply -> Table? in
      if case .table(let table) = reply.content { return table }
      return nil
    }.first
    guard let table, let column = try? table.columnIndex(of: attribute) else { return nil }
    var tests: [Expression] = []
    for row in table.rows where column < row.count {
      switch row[column] {
      case .string(let value): tests.append(PlanSyntax.compare(attribute, .equal, PlanSyntax.quoted(value)))
      case .number(let value): tests.append(PlanSyntax.compare(attribute, .equal, PlanSyntax.number(value)))
      default: return nil
      }
    }
    return tests.isEmpty ? nil : tests
  }

  /// Runs a query, emitting its replies as they stream; returns the complete replies.
  private mutating func run(_ query: String) throws -> [Reply] {
    try run(try tool.executor.prepare(query, options: tool.options))
  }

  /// Runs a planned query (see `run(_:)`).
  private mutating func run(_ query: QuerySyntax) throws -> [Reply] {
    try run(try tool.executor.prepare(query, source: SourceText(SyntaxPrinter.text(query)), options: tool.options))
  }

  /// Runs a type-checked query (see `run(_:)`).
  private mutating func run(_ graph: QueryGraph) throws -> [Reply] {
    var complete: [Reply] = []
    var pending: [ResultItem] = []
    try tool.executor.execute(graph, options: tool.options) { reply in
      emit(.reply(reply))
      if reply.isPartial {
        pending += reply.content.resultItems
        return
      }
      var whole = reply
      if !pending.isEmpty { whole.content = reply.content.replacingItems(pending + reply.content.resultItems) }
      pending = []
      complete.append(whole)
    }
    replies += complete
    return complete
  }

  // MARK: Sources and text

  /// Cites the items of tool replies (as stored: replies carry only the fetched attributes);
  /// for an aggregate reply (a count, statistic or table), up to `resultLimit` of the items
  /// it was computed from.
  private mutating func cite(_ toolReplies: [Reply], query: String?) throws {
    var aggregate = false
    for reply in toolReplies {
      let items = reply.content.resultItems
      if items.isEmpty, !EvidenceQuery.producesItems(reply.content.type) { aggregate = true }
      let stored = try items.filter { !sourceIDs.contains($0.id) }.map { try tool.executor.index.item(withIdentifier: $0.id).map { ResultItem(rowid: 0, item: $0) } ?? $0 }
      for item in try hydrated(stored).items { cite(item.item, token: reply.queryToken) }
    }
    guard aggregate, let query,
      let evidence = try EvidenceQuery.items(behind: query, executor: tool.executor, options: tool.options, limit: configuration.resultLimit),
      let behind = try run(evidence).last
    else { return }
    for item in behind.content.resultItems { cite(item.item, token: behind.queryToken) }
  }

  /// Items whose text the index keeps searchable but not stored (Apple's "indexed, not
  /// stored"), replaced by the app's current records from the registered source or delegate
  /// before anything quotes them; items it no longer has or no longer authorises drop out.
  /// Without a source, the items stay as stored and `unreadable` counts those without text.
  private func hydrated(_ items: [ResultItem]) throws -> (items: [ResultItem], unreadable: Int) {
    let unstored = try tool.executor.index.identifiersWithUnstoredText(items.map(\.id))
    guard !unstored.isEmpty else { return (items, 0) }
    guard let delegate = tool.options.delegate else { return (items, unstored.count) }
    let scope = tool.options.scope
    var records: [String: SearchableItem] = [:]
    // Once per protection class the scope grants, and once for unprotected items.
    for protection in [nil] + scope.protectionClasses.sorted().map(Optional.some) {
      for record in try delegate.searchableItems(forIdentifiers: items.map(\.id).filter(unstored.contains), protectionClass: protection) {
        if let granted = record.protectionClass, !scope.protectionClasses.contains(granted) { continue }
        records[record.uniqueIdentifier] = record
      }
    }
    let result = items.compactMap { item -> ResultItem? in
      guard unstored.contains(item.id) else { return item }
      guard let record = records[item.id] else { return nil }
      var copy = item
      copy.item = record
      return copy
    }
    return (result, 0)
  }

  /// Adds a source unless its id is already cited; true when added.
  @discardableResult
  private mutating func cite(_ item: SearchableItem, token: String) -> Bool {
    guard sourceIDs.insert(item.uniqueIdentifier).inserted else { return false }
    let source = AnswerSource(item: item, queryToken: token)
    sources.append(source)
    emit(.source(source))
    return true
  }

  /// The extractive answer for everything the searches returned so far.
  private var whatCameBack: String {
    ExtractiveAnswer(terms: []).describe(replies: replies, items: sources.map { ResultItem(rowid: 0, item: $0.item) })
  }

  private mutating func write(_ piece: String) {
    text += piece
    emit(.text(piece))
  }
}
