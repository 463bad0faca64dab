import Foundation
import QueryEngine
import SearchIndex
import Synchronization

/// Answers questions from the user's items, in the spirit of Foundation Models'
/// `LanguageModelSession(tools:instructions:)`: a language model that may call the search
/// tool for a few rounds, or, with no model, the offline extractive responder.
///
/// Whatever writes the answer, the session keeps it grounded:
/// - sources come from the replies of the searches, deduplicated by id, never from the text;
/// - when nothing relevant came back, the answer is `AnswerInstructions.notFound` and no
///   model text is shown (the decision is coded: no items, or, for a plain text search,
///   items that contain too few of the question's terms);
/// - retrieved text reaches the model only inside a `<data>` fence it is told never to obey;
/// - the model learns today's date and time zone, and has at most `maximumToolRounds` rounds;
/// - a model that fails before any answer text (unreachable, an HTTP error, a malformed or
///   timed-out response) is reported in a one-line notice and the offline responder answers.
///
/// ```swift
/// let session = AnswerSession(tool: tool, toolDefinition: definition, model: model, planner: planner)
/// for try await event in session.streamResponse(to: "what did we decide about the Orion launch?") {
///   if case .text(let piece) = event { print(piece, terminator: "") }
/// }
/// ```
public final class AnswerSession: Sendable {
  /// How a session answers.
  public struct Configuration: Sendable {
    /// The model's instructions; the data rule and today's date are always added.
    public var instructions = AnswerInstructions.standard
    /// Model turns that may call tools; the turn after the last must answer.
    public var maximumToolRounds = 4
    /// Items an offline answer lists and cites, and items cited for an aggregate.
    public var resultLimit = 10
    /// For plain text searches: the share of the question's (rarity-weighted) terms an item
    /// must contain to count as evidence.
    public var minimumTermCoverage = 0.5
    /// Sampling settings for the model. Answers are bounded by default: a small model can
    /// loop until a timeout otherwise.
    public var generation = GenerationOptions(maxTokens: defaultMaximumTokens)
    /// Stops the model's stream when it starts repeating itself (`RepetitionGuard`).
    public var stopsRepetition = true
    /// How the model's sentences are checked against the sources (`GroundingCheck`).
    public var grounding = GroundingMode.flag
    /// When a model that fails before answering gives way to the offline answer.
    public var fallback = ModelFallback.whenUnreachable

    /// The token limit of each model turn unless configured otherwise: room for a tool
    /// call or a short answer with a list, as the instructions ask for.
    public static let defaultMaximumTokens = 512

    public init() {}
  }

  /// The search the model calls, and that the offline responder runs.
  public let tool: SearchTool
  /// The tool as the model sees it.
  public let toolDefinition: ToolDefinition
  /// The model, or nil to answer offline.
  public let model: (any LanguageModel)?
  /// A name for the model in summaries: the one given, else the client's model (once a
  /// server that was not told one has named it), else "model".
  public var modelName: String { givenModelName ?? (model as? OpenAICompatibleModel)?.model ?? "model" }
  private let givenModelName: String?
  public let planner: any AnswerPlanner
  public let configuration: Configuration

  /// Every reply of every search the session runs, as it arrives (batches of item replies
  /// first as partial, then complete); it ends when the session goes away. It keeps the
  /// newest 1000 replies nobody has read yet.
  public let searchResults: AsyncStream<Reply>
  private let searchResultsContinuation: AsyncStream<Reply>.Continuation
  /// Earlier questions and answers, for follow-up questions to the model.
  private let transcript = Mutex<[ChatMessage]>([])

  /// - Parameters:
  ///   - toolDefinition: the search tool's definition (`ToolSchemaGenerator.tool`); with a
  ///     model and a pipeline in the schema, the `prompted` stage is added to it.
  public init(
    tool: SearchTool, toolDefinition: ToolDefinition, model: (any LanguageModel)?, modelName: String? = nil,
    planner: any AnswerPlanner, configuration: Configuration = Configuration()
  ) {
    self.tool = tool
    self.toolDefinition = model == nil ? toolDefinition : toolDefinition.addingPromptedStage()
    self.model = model
    self.givenModelName = modelName
    self.planner = planner
    self.configuration = configuration
    (searchResults, searchResultsContinuation) = AsyncStream.makeStream(of: Reply.self, bufferingPolicy: .bufferingNewest(1000))
  }

  deinit {
    searchResultsContinuation.finish()
  }

  /// Answers `question`: replies, sources and answer text as they come, then `.done`.
  ///
  /// Ending the iteration or cancelling its task stops the model request and the running
  /// query; the iteration then ends without `.done`. Iterating throws an `AnswerError`: a
  /// failed search (`.query`), or a model failure the configuration's `fallback` does not
  /// turn into a notice and the offline answer (`.model`).
  public func streamResponse(to question: String) -> AnswerEvents {
    let (stream, continuation) = AsyncThrowingStream<AnswerEvent, any Error>.makeStream()
    let results = searchResultsContinuation
    let task = Task {
      let cancellation = CancellationFlag()
      do {
        try await withTaskCancellationHandler {
          var run = AnswerRun(session: self, cancellation: cancellation) { event in
            if case .reply(let reply) = event { results.yield(reply) }
            continuation.yield(event)
          }
          let summary = try await run.respond(to: question)
          continuation.yield(.done(summary))
        } onCancel: {
          cancellation.cancel()
        }
        continuation.finish()
      } catch {
        let cancelled = if case .cancelled = QueryError(error) { true } else { false }
        continuation.finish(throwing: Task.isCancelled || cancelled ? CancellationError() : error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return AnswerEvents(stream, classify: AnswerError.init)
  }

  /// Answers `question` and returns the summary once the answer is complete; throws
  /// `.cancelled` when cancelled first.
  public func respond(to question: String) async throws(AnswerError) -> AnswerSummary {
    for try await event in streamResponse(to: question) {
      if case .done(let summary) = event { return summary }
    }
    throw .cancelled
  }

  /// The system message for the model.
  var systemMessage: String {
    AnswerInstructions.systemMessage(configuration.instructions, clock: tool.options.clock)
  }

  var history: [ChatMessage] { transcript.withLock { $0 } }

  func remember(_ question: String, answer: String) {
    transcript.withLock { $0 += [.user(question), .assistant(content: answer)] }
  }
}

extension ToolDefinition {
  /// The definition of a tool in OpenAI's function form
  /// (`{"type":"function","function":{"name","description","parameters","strict"}}`), as
  /// `ToolSchemaGenerator.tool` makes it.
  public init?(openAIFunction json: JSONValue) {
    guard let function = json["function"], let name = function["name"]?.stringValue, let parameters = function["parameters"] else {
      return nil
    }
    self.init(
      name: name, description: function["description"]?.stringValue ?? "", parameters: parameters,
      strict: function["strict"]?.boolValue ?? false)
  }
}

/// What an answer does when its model fails before saying anything.
///
/// A server that cannot be reached is the everyday case of a laptop whose model server is not
/// running, and the offline answer is what the person would get without one; a server that
/// answers with an error (a wrong key, an unknown model, a rate limit, a timeout) is a setup
/// problem that an answer quietly made without the model would hide.
public enum ModelFallback: String, Sendable, CaseIterable {
  /// Any failure before the first answer text gives the offline answer, after a notice.
  case always = "offline"
  /// Only an unreachable server gives the offline answer; other failures end the answer
  /// with the model's error.
  case whenUnreachable = "unreachable"
  /// Every failure ends the answer with the model's error.
  case never = "none"

  /// True when `failure` (before any answer text) should give way to the offline answer.
  func fallsBack(after failure: ModelError) -> Bool {
    switch self {
    case .always: return true
    case .never: return false
    case .whenUnreachable:
      if case .unreachable = failure { return true }
      return false
    }
  }
}
