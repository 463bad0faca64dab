import SearchIndex

/// A stage an app defines in Swift, in the spirit of Apple's custom SpotlightSearchTool
/// stages: a name, a description written for a model, typed parameters (each with a
/// description, a default and an allowed range), its signatures, and an `execute` that
/// handles each input type it accepts.
///
/// Register an instance; the values it was created with are the parameters' defaults:
///
/// ```swift
/// var registry = StandardLibrary.registry()
/// try registry.register(.freshness(halfLife: 30 * 86400))
/// ```
///
/// Stages may run concurrently on several queries, so they must be `Sendable`.
public protocol CustomStage: Sendable {
  /// The name queries use (`freshness`).
  var name: String { get }
  /// What the stage does, written for a model choosing between stages.
  var description: String { get }
  /// The input types it accepts and the output type each gives.
  var signatures: [StageDescriptor.Signature] { get }
  /// Its parameters; a parameter's default comes from the registered instance.
  var parameters: [StageParameter] { get }
  /// Example calls, shown in help and run by tests.
  var examples: [String] { get }
  /// Runs the stage. `input` has one of the declared input types; `arguments` holds every
  /// parameter (given or defaulted), already checked against its type and range.
  func execute(_ input: PipelineData, arguments: StageArguments, context: any StageContext) throws -> PipelineData
  /// The attributes `execute` reads of its input items for these arguments, when it reads
  /// only those (item fields, relevance and scores always come); nil (the default) when it
  /// may read any. Declaring them lets the executor skip decoding the rest.
  func attributesRead(_ arguments: StageArguments) -> Set<String>?
}

extension CustomStage {
  public var examples: [String] { [] }
  public func attributesRead(_ arguments: StageArguments) -> Set<String>? { nil }
}

/// Checked parameter values of one call of a custom stage.
public struct StageArguments: Sendable, Hashable {
  public var values: [String: Value]
  public init(_ values: [String: Value]) { self.values = values }

  /// A number argument (or its default).
  public func number(_ name: String) -> Double? { values[name]?.number }
  /// A text argument.
  public func string(_ name: String) -> String? {
    if case .string(let s)? = values[name] { return s }
    return nil
  }
  /// A Boolean argument.
  public func bool(_ name: String) -> Bool? {
    if case .bool(let b)? = values[name] { return b }
    return nil
  }
}

/// Adapts a `CustomStage` to the registry: binds calls by checking arguments against the
/// declared parameters and runs `execute` in Swift.
struct CustomStageDefinition: StageDefinition {
  let stage: any CustomStage

  var descriptor: StageDescriptor {
    StageDescriptor(
      name: stage.name, abstract: stage.description,
      usage: "\(stage.name)(" + stage.parameters.map { "\($0.name): \($0.kind.rawValue)" }.joined(separator: ", ") + ")",
      signatures: stage.signatures, parameters: stage.parameters, examples: stage.examples, isCustom: true)
  }

  func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let values = context.bindArguments(call, parameters: stage.parameters) else { return nil }
    guard let output = stage.signatures.first(where: { $0.input == input })?.output else { return nil }
    return Bound(stage: stage, arguments: StageArguments(values), outputType: output)
  }

  struct Bound: BoundStage {
    let stage: any CustomStage
    let arguments: StageArguments
    let outputType: PipelineType
    var explanation: String { "custom stage \(stage.name)" }
    var attributesRead: Set<String>? { stage.attributesRead(arguments) }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      try context.cancellation.check()
      let output = try stage.execute(input, arguments: arguments, context: context)
      guard output.type == outputType else {
        throw QueryRuntimeError("custom stage '\(stage.name)' returned \(output.type), but declares \(outputType)")
      }
      return output
    }
  }
}

extension StageRegistry {
  /// Registers a Swift custom stage; fails when the name is taken.
  public mutating func register(_ stage: some CustomStage) throws(RegistrationError) {
    try register(CustomStageDefinition(stage: stage) as any StageDefinition)
  }
}
