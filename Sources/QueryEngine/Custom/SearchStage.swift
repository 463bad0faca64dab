import Foundation
import SearchIndex

/// A stage an app defines in Swift, in the shape of Apple's custom SpotlightSearchTool
/// stages: a name, a description written for a model, its signatures, named parameters
/// (each a stored property, declared once with its description and range), and an `async`
/// `execute`.
///
/// ```swift
/// struct Freshness: SearchStage {
///   var halfLife: Double = 30
///   var name: String { "freshness" }
///   var description: String { "Scores items by how recently they changed" }
///   var signatures: [StageDescriptor.Signature] { [.init(.items, .scoredItems)] }
///   var parameters: [SearchStageParameter<Self>] {
///     [.number("halfLife", \.halfLife, "Days until the score halves", in: 1...3650)]
///   }
///   func execute(_ input: PipelineData, context: any StageContext) async throws -> PipelineData { ... }
/// }
/// try registry.register(Freshness())
/// ```
///
/// The registered instance gives the parameters' defaults. For each call, the executor
/// checks the arguments against the declarations (type, range, choices), sets them on a
/// copy of that instance and runs the copy's `execute`. `execute` runs on the query's
/// thread (SQLite blocks, so queries run off the caller's task); it may `await`, and
/// cancelling the query (its flag, or the task iterating `replies(for:)`) cancels the task
/// `execute` runs in: check `Task.checkCancellation()` in long loops. It must not wait for
/// the main actor while a query runs on the main thread.
public protocol SearchStage: Sendable {
  /// The name queries use (`freshness`).
  var name: String { get }
  /// What the stage does, written for a model choosing between stages.
  var description: String { get }
  /// The input types it accepts and the output type each gives.
  var signatures: [StageDescriptor.Signature] { get }
  /// Its named parameters: what binding checks and help shows, and where values go.
  var parameters: [SearchStageParameter<Self>] { get }
  /// Example calls, shown in help and run by tests.
  var examples: [String] { get }
  /// The attributes `execute` reads of its input items with these parameter values, when it
  /// reads only those (item fields, relevance and scores always come); nil (the default)
  /// when it may read any. Declaring them lets the executor skip decoding the rest.
  var attributesRead: Set<String>? { get }
  /// False when `execute` reads no item field (identifier, domain, content type, expiry,
  /// protection) and no engagement, only `attributesRead`, relevance and scores; true (the
  /// default) otherwise. Declaring it lets the executor skip reading the items' rows.
  var readsItemFields: Bool { get }
  /// Runs the stage with its parameters set. `input` has one of the declared input types;
  /// the result must have the output type declared for it.
  func execute(_ input: PipelineData, context: any StageContext) async throws -> PipelineData
}

extension SearchStage {
  public var examples: [String] { [] }
  public var attributesRead: Set<String>? { nil }
  public var readsItemFields: Bool { true }
}

/// A named parameter of a `SearchStage`: its declaration (name, kind, description, range or
/// choices) and the stored property its value goes to. The property's value in the
/// registered instance is the default.
public struct SearchStageParameter<Stage: SearchStage>: Sendable {
  /// The declaration binding, help and the tool schema read; its default is filled in from
  /// the registered instance.
  public var declaration: StageParameter
  let read: @Sendable (Stage) -> Value?
  let write: @Sendable (inout Stage, Value) -> Void

  /// A parameter whose value is read and written by the given closures: for values kept
  /// other than in one stored property.
  public init(
    _ declaration: StageParameter, read: @escaping @Sendable (Stage) -> Value?, write: @escaping @Sendable (inout Stage, Value) -> Void
  ) {
    self.declaration = declaration
    self.read = read
    self.write = write
  }

  /// A number, optionally within `range`.
  public static func number(
    _ name: String, _ property: WritableKeyPath<Stage, Double> & Sendable, _ description: String, in range: ClosedRange<Double>? = nil
  ) -> Self {
    Self(StageParameter(name, .number, description, range: range), read: { .number($0[keyPath: property]) }) { stage, value in
      if let number = value.number { stage[keyPath: property] = number }
    }
  }

  /// A whole number, optionally within `range`.
  public static func integer(
    _ name: String, _ property: WritableKeyPath<Stage, Int> & Sendable, _ description: String, in range: ClosedRange<Int>? = nil
  ) -> Self {
    let bounds = range.map { Double($0.lowerBound)...Double($0.upperBound) }
    return Self(StageParameter(name, .integer, description, range: bounds), read: { .number(Double($0[keyPath: property])) }) { stage, value in
      if let number = value.number, let whole = Int(exactly: number.rounded()) { stage[keyPath: property] = whole }
    }
  }

  /// A duration in seconds (queries write `14d`, `2h`), optionally within `range` seconds.
  public static func duration(
    _ name: String, _ property: WritableKeyPath<Stage, TimeInterval> & Sendable, _ description: String,
    in range: ClosedRange<TimeInterval>? = nil
  ) -> Self {
    Self(StageParameter(name, .duration, description, range: range), read: { .number($0[keyPath: property]) }) { stage, value in
      if let seconds = value.number { stage[keyPath: property] = seconds }
    }
  }

  /// A word, optionally one of `choices`.
  public static func string(
    _ name: String, _ property: WritableKeyPath<Stage, String> & Sendable, _ description: String, choices: [String]? = nil
  ) -> Self {
    Self(StageParameter(name, .string, description, choices: choices), read: { .string($0[keyPath: property]) }) { stage, value in
      if case .string(let text) = value { stage[keyPath: property] = text }
    }
  }

  /// An attribute name the caller can see.
  public static func attribute(_ name: String, _ property: WritableKeyPath<Stage, String> & Sendable, _ description: String) -> Self {
    Self(StageParameter(name, .attribute, description), read: { .string($0[keyPath: property]) }) { stage, value in
      if case .string(let text) = value { stage[keyPath: property] = text }
    }
  }

  /// True or false.
  public static func boolean(_ name: String, _ property: WritableKeyPath<Stage, Bool> & Sendable, _ description: String) -> Self {
    Self(StageParameter(name, .boolean, description), read: { .bool($0[keyPath: property]) }) { stage, value in
      if case .bool(let flag) = value { stage[keyPath: property] = flag }
    }
  }
}

/// Adapts a `SearchStage` to the registry: binds calls against its declared parameters and
/// runs its `execute` (an old-shape `CustomStage` directly, an async one on the query's
/// thread).
struct SearchStageDefinition<Stage: SearchStage>: StageDefinition {
  let stage: Stage

  /// The declarations, with the registered instance's values as defaults.
  var parameters: [StageParameter] {
    stage.parameters.map { parameter in
      var declaration = parameter.declaration
      if let value = parameter.read(stage) { declaration.defaultValue = value }
      return declaration
    }
  }

  var descriptor: StageDescriptor {
    let parameters = parameters
    return StageDescriptor(
      name: stage.name, abstract: stage.description,
      usage: "\(stage.name)(" + parameters.map { "\($0.name): \($0.kind.rawValue)" }.joined(separator: ", ") + ")",
      signatures: stage.signatures, parameters: parameters, examples: stage.examples, isCustom: true)
  }

  func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let values = context.bindArguments(call, parameters: parameters) else { return nil }
    guard let output = stage.signatures.first(where: { $0.input == input })?.output else { return nil }
    var configured = stage
    for parameter in stage.parameters {
      if let value = values[parameter.declaration.name] { parameter.write(&configured, value) }
    }
    return Bound(stage: configured, outputType: output)
  }

  struct Bound: BoundStage {
    let stage: Stage
    let outputType: PipelineType
    var explanation: String { "custom stage \(stage.name)" }
    var attributesRead: Set<String>? { stage.attributesRead }
    var readsItemFields: Bool { stage.readsItemFields }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      try context.cancellation.check()
      let output = try CustomStageFailure.tagging(stage.name) {
        if let synchronous = stage as? any SynchronousStage {
          return try synchronous.executeSynchronously(input, context: context)
        }
        return try AsyncStageRunner.run(cancellation: context.cancellation, stage: stage, input: input, context: context)
      }
      guard output.type == outputType else {
        throw QueryRuntimeError("custom stage '\(stage.name)' returned \(output.type), but declares \(outputType)")
      }
      return output
    }
  }
}

/// A `SearchStage` whose `execute` does not suspend, run without a task (the adapter of
/// old-shape stages).
protocol SynchronousStage {
  func executeSynchronously(_ input: PipelineData, context: any StageContext) throws -> PipelineData
}

extension StageRegistry {
  /// Registers a Swift stage; fails when the name is taken.
  public mutating func register(_ stage: some SearchStage) throws(RegistrationError) {
    try register(SearchStageDefinition(stage: stage) as any StageDefinition)
  }
}
