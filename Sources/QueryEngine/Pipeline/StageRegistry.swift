/// The stages a query may use, by name: the standard library from `Stages` plus the app's
/// own. The same registry drives the parser's binding, the type checker, help text and the
/// planner's tool schema.
public struct StageRegistry: Sendable {
  private var definitions: [String: any StageDefinition] = [:]

  public init(_ definitions: [any StageDefinition] = []) {
    for definition in definitions { self.definitions[definition.descriptor.name] = definition }
  }

  /// Adds a stage; fails when the name is taken.
  public mutating func register(_ definition: any StageDefinition) throws(RegistrationError) {
    let name = definition.descriptor.name
    guard definitions[name] == nil else { throw RegistrationError(name: name) }
    guard Self.isValidName(name) else { throw RegistrationError(name: name, reason: "stage names are letters, digits and '_' starting with a letter") }
    definitions[name] = definition
  }

  /// The stage named `name`.
  public func definition(named name: String) -> (any StageDefinition)? { definitions[name] }

  /// Every stage, sorted by name.
  public var all: [any StageDefinition] { definitions.values.sorted { $0.descriptor.name < $1.descriptor.name } }

  /// Every stage name, sorted.
  public var names: [String] { definitions.keys.sorted() }

  /// Stages that accept `type` as input.
  public func stages(accepting type: PipelineType) -> [String] {
    all.filter { $0.descriptor.output(for: type) != nil }.map(\.descriptor.name)
  }

  static func isValidName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, first.properties.isAlphabetic else { return false }
    return name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
  }

  /// A name that cannot be registered.
  public struct RegistrationError: Error, Sendable, CustomStringConvertible {
    public var name: String
    public var reason: String = "a stage with this name is already registered"
    public var description: String { "cannot register stage '\(name)': \(reason)" }
  }
}
