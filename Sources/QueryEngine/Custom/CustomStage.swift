import SearchIndex

/// A stage an app defines in Swift, of the earlier synchronous shape: a name, a description
/// written for a model, typed parameters (each with a description, a default and an allowed
/// range), its signatures, and an `execute` that handles each input type it accepts.
///
/// New stages conform to `SearchStage` (an `async` `execute`, parameters bound to stored
/// properties); stages of this shape keep working: `register(_:)` runs them through
/// `CustomStageAdapter`, with the same arguments and results.
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
  /// False when `execute` reads no item field (identifier, domain, content type, expiry,
  /// protection) and no engagement for these arguments, only `attributesRead`, relevance
  /// and scores; true (the default) otherwise.
  func readsItemFields(_ arguments: StageArguments) -> Bool
}

extension CustomStage {
  public var examples: [String] { [] }
  public func attributesRead(_ arguments: StageArguments) -> Set<String>? { nil }
  public func readsItemFields(_ arguments: StageArguments) -> Bool { true }
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

/// Runs an old-shape `CustomStage` as a `SearchStage`: its parameters become named
/// parameters whose values collect in `arguments`, and its synchronous `execute` runs
/// directly, with the same arguments and results as before. `register(_:)` wraps custom
/// stages in it; an app moving to the async shape can use it to compare the two.
public struct CustomStageAdapter<Wrapped: CustomStage>: SearchStage, SynchronousStage {
  /// The adapted stage.
  public var stage: Wrapped
  /// The arguments of one call: empty in the registered adapter, every parameter (given or
  /// defaulted) in the copy that runs.
  public var arguments: StageArguments

  public init(_ stage: Wrapped) {
    self.stage = stage
    self.arguments = StageArguments([:])
  }

  public var name: String { stage.name }
  public var description: String { stage.description }
  public var signatures: [StageDescriptor.Signature] { stage.signatures }
  public var examples: [String] { stage.examples }
  public var attributesRead: Set<String>? { stage.attributesRead(arguments) }
  public var readsItemFields: Bool { stage.readsItemFields(arguments) }

  public var parameters: [SearchStageParameter<Self>] {
    stage.parameters.map { declaration in
      let name = declaration.name
      return SearchStageParameter(declaration, read: { $0.arguments.values[name] ?? declaration.defaultValue }) { adapter, value in
        adapter.arguments.values[name] = value
      }
    }
  }

  public func execute(_ input: PipelineData, context: any StageContext) async throws -> PipelineData {
    try stage.execute(input, arguments: arguments, context: context)
  }

  func executeSynchronously(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
    try stage.execute(input, arguments: arguments, context: context)
  }
}

extension StageRegistry {
  /// Registers a Swift custom stage of the synchronous shape (through `CustomStageAdapter`);
  /// fails when the name is taken.
  public mutating func register(_ stage: some CustomStage) throws(RegistrationError) {
    try register(CustomStageAdapter(stage))
  }
}
