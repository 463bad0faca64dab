/// A typed parameter of a stage: drives binding, validation, help text and the planner's
/// JSON schema from one declaration.
public struct StageParameter: Sendable, Hashable {
  /// What a parameter accepts.
  public enum Kind: String, Sendable, Hashable {
    case number, integer, string, boolean, duration, date
    /// An attribute name.
    case attribute
    /// A comma-separated list of attribute names.
    case attributes
    /// A scoring expression.
    case expression
    /// A predicate.
    case condition
  }

  public var name: String
  public var kind: Kind
  public var description: String
  public var defaultValue: Value?
  /// Allowed range for numbers.
  public var range: ClosedRange<Double>?
  /// Allowed words for strings.
  public var choices: [String]?
  public var isRequired: Bool

  public init(
    _ name: String, _ kind: Kind, _ description: String, default defaultValue: Value? = nil,
    range: ClosedRange<Double>? = nil, choices: [String]? = nil, required: Bool = false
  ) {
    self.name = name
    self.kind = kind
    self.description = description
    self.defaultValue = defaultValue
    self.range = range
    self.choices = choices
    self.isRequired = required
  }
}

/// What a stage is, for the registry, the type checker, help and schemas.
public struct StageDescriptor: Sendable, Hashable {
  /// A signature: an input type and the output type it gives.
  public struct Signature: Sendable, Hashable {
    public var input: PipelineType
    public var output: PipelineType
    public init(_ input: PipelineType, _ output: PipelineType) {
      self.input = input
      self.output = output
    }
  }

  public var name: String
  /// One sentence, written for people and models.
  public var abstract: String
  /// How to write it (`sort ATTRIBUTE [asc|desc], ...`).
  public var usage: String
  public var signatures: [Signature]
  public var parameters: [StageParameter]
  /// Example queries using the stage, run by the tests.
  public var examples: [String]
  /// True for stages an app registered (Swift or `.stage` files).
  public var isCustom: Bool
  /// What to write instead when the stage is given a type it does not take, by that type
  /// (`top` after a table: "for the first rows, write limit N"); the type error says it.
  public var hints: [PipelineType: String]

  public init(
    name: String, abstract: String, usage: String, signatures: [Signature], parameters: [StageParameter] = [],
    examples: [String] = [], isCustom: Bool = false, hints: [PipelineType: String] = [:]
  ) {
    self.name = name
    self.abstract = abstract
    self.usage = usage
    self.signatures = signatures
    self.parameters = parameters
    self.examples = examples
    self.isCustom = isCustom
    self.hints = hints
  }

  /// The (first) output for an input type, nil when the stage does not accept it.
  public func output(for input: PipelineType) -> PipelineType? {
    signatures.first(where: { $0.input == input })?.output
  }

  /// Every output the stage may give for an input type (some depend on the arguments:
  /// `stats` gives a statistic, or a table with `by`).
  public func outputs(for input: PipelineType) -> [PipelineType] {
    signatures.filter { $0.input == input }.map(\.output)
  }

  /// Input types the stage accepts, without repeats.
  public var inputTypes: [PipelineType] {
    var seen = Set<PipelineType>()
    return signatures.map(\.input).filter { seen.insert($0).inserted }
  }

  /// `items | scoredItems -> count` style.
  public var signatureText: String {
    var byOutput: [(PipelineType, [PipelineType])] = []
    for signature in signatures {
      if let index = byOutput.firstIndex(where: { $0.0 == signature.output }) {
        byOutput[index].1.append(signature.input)
      } else {
        byOutput.append((signature.output, [signature.input]))
      }
    }
    return byOutput.map { output, inputs in inputs.map(\.rawValue).joined(separator: " | ") + " -> " + output.rawValue }
      .joined(separator: "; ")
  }
}
