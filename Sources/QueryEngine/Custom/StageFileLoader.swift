import Foundation
import SearchIndex

/// Loads declarative stages from `.stage` files and registers them, checking each file
/// completely first: syntax, parameter types, defaults and ranges, signatures, duplicate
/// names, and the body's types for every input type it declares. Problems come back as
/// diagnostics that point into the files; a file with any problem registers nothing.
public enum StageFileLoader {
  /// Parameter type names in `.stage` files.
  static let parameterKinds: [String: StageParameter.Kind] = [
    "Number": .number, "Integer": .integer, "String": .string, "Boolean": .boolean, "Duration": .duration,
    "Date": .date, "Attribute": .attribute,
  ]

  /// Loads every `.stage` file in `directory` (sorted by name) into `registry`. Returns the
  /// problems of every bad file; when the list is empty every stage was registered.
  ///
  /// - Parameter catalog: the index's attributes; nil checks bodies without an index and
  ///   leaves unknown attribute names to be checked when a query uses the stage.
  public static func load(
    directory: String, into registry: inout StageRegistry, catalog: AttributeCatalog?, clock: QueryClock = QueryClock()
  ) throws -> [DiagnosticsError] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
      throw QueryRuntimeError("\(directory): no such stage folder")
    }
    let files: [String]
    if isDirectory.boolValue {
      files = (try FileManager.default.contentsOfDirectory(atPath: directory)).filter { $0.hasSuffix(".stage") }.sorted()
        .map { (directory as NSString).appendingPathComponent($0) }
    } else {
      files = [directory]
    }
    var problems: [DiagnosticsError] = []
    for file in files {
      guard let data = FileManager.default.contents(atPath: file) else { throw QueryRuntimeError("\(file): cannot read the file") }
      let source = SourceText(String(decoding: data, as: UTF8.self), name: file)
      if let error = load(source: source, into: &registry, catalog: catalog, clock: clock) { problems.append(error) }
    }
    return problems
  }

  /// Loads the stages of one source text; nil when all of them registered.
  public static func load(
    source: SourceText, into registry: inout StageRegistry, catalog: AttributeCatalog?, clock: QueryClock = QueryClock()
  ) -> DiagnosticsError? {
    let (declarations, parseDiagnostics) = Parser.parseStageFile(source)
    var diagnostics = parseDiagnostics
    var staged = registry
    var added: [any StageDefinition] = []
    for declaration in declarations {
      guard let definition = check(declaration, source: source, registry: staged, catalog: catalog, clock: clock, diagnostics: &diagnostics)
      else { continue }
      do {
        try staged.register(definition)
        added.append(definition)
      } catch {
        diagnostics.append(Diagnostic("stagefile.duplicate", "a stage named '\(declaration.name)' already exists", at: declaration.nameSpan,
                                      help: "choose another name"))
      }
    }
    if diagnostics.contains(where: { $0.severity == .error }) { return DiagnosticsError(source: source, diagnostics: diagnostics) }
    registry = staged
    return nil
  }

  private static func check(
    _ declaration: StageDeclarationSyntax, source: SourceText, registry: StageRegistry, catalog: AttributeCatalog?,
    clock: QueryClock, diagnostics: inout [Diagnostic]
  ) -> (any StageDefinition)? {
    let before = diagnostics.count
    if registry.definition(named: declaration.name) != nil || declaration.name == "fork" {
      diagnostics.append(Diagnostic("stagefile.duplicate", "a stage named '\(declaration.name)' already exists", at: declaration.nameSpan,
                                    help: "choose another name"))
    }
    var parameters: [StageParameter] = []
    var seen = Set<String>()
    var defaults: [String: Value] = [:]
    var untyped: [String] = []
    for parameter in declaration.parameters {
      if !seen.insert(parameter.name).inserted {
        diagnostics.append(Diagnostic("stagefile.duplicate-parameter", "parameter '\(parameter.name)' is declared twice", at: parameter.nameSpan))
      }
      guard let kind = parameterKinds[parameter.typeName] else {
        diagnostics.append(Diagnostic("stagefile.unknown-type", "unknown parameter type '\(parameter.typeName)'", at: parameter.typeSpan,
                                      help: "types are \(parameterKinds.keys.sorted().joined(separator: ", "))")
          .suggesting(closestMatch(to: parameter.typeName, in: parameterKinds.keys)))
        untyped.append(parameter.name)
        continue
      }
      var declared = StageParameter(parameter.name, kind, parameter.description, range: parameter.range, required: parameter.defaultValue == nil)
      if let expression = parameter.defaultValue {
        var context = StageBindingContext(binder: ExpressionBinder(context: BindingContext(catalog: catalog ?? AttributeCatalog(), clock: clock)), source: source)
        if let value = context.bindParameterValue(expression, declared, stage: declaration.name) {
          declared.defaultValue = value
          defaults[parameter.name] = value
        }
        diagnostics.append(contentsOf: context.diagnostics)
      }
      parameters.append(declared)
    }
    var signatures: [StageDescriptor.Signature] = []
    guard let output = PipelineType(rawValue: declaration.outputType) else {
      diagnostics.append(Diagnostic("stagefile.unknown-type", "unknown output type '\(declaration.outputType)'", at: declaration.outputSpan)
        .suggesting(closestMatch(to: declaration.outputType, in: PipelineType.allCases.map(\.rawValue))))
      return nil
    }
    for (name, span) in declaration.inputTypes {
      guard let input = PipelineType(rawValue: name) else {
        diagnostics.append(Diagnostic("stagefile.unknown-type", "unknown input type '\(name)'", at: span)
          .suggesting(closestMatch(to: name, in: PipelineType.allCases.map(\.rawValue))))
        continue
      }
      signatures.append(.init(input, output))
    }
    // Check the body for every input type, with parameters at their defaults (or a value of
    // their type when they have none).
    var parameterValues = defaults
    // A parameter with a bad type is still a name the body may use (no cascade of errors).
    for name in untyped { parameterValues[name] = .null }
    for parameter in parameters where parameterValues[parameter.name] == nil {
      parameterValues[parameter.name] = placeholder(parameter)
    }
    for signature in signatures {
      var context = BindingContext(catalog: catalog ?? AttributeCatalog(), clock: clock, parameters: parameterValues)
      context.scoreAvailable = signature.input == .scoredItems
      let builder = GraphBuilder(registry: registry, bindingContext: context)
      let (_, produced, bodyDiagnostics) = builder.bindStages(declaration.body, input: signature.input, context: context, source: source)
      let relevant = bodyDiagnostics.filter { catalog != nil || $0.id != "name.unknown-attribute" }
      diagnostics.append(contentsOf: relevant)
      if relevant.isEmpty, bodyDiagnostics.isEmpty, produced != output {
        diagnostics.append(Diagnostic("stagefile.signature", "the body produces \(produced) from \(signature.input), but the stage declares \(output)",
                                      at: declaration.outputSpan, help: "declare -> \(produced), or end the body with a stage that produces \(output)"))
      }
    }
    if declaration.body.contains(where: { $0.name == "fork" }) {
      diagnostics.append(Diagnostic("stagefile.fork", "a stage body cannot fork", at: declaration.span))
    }
    guard diagnostics.count == before else { return nil }
    let usage = "\(declaration.name)(" + parameters.map { "\($0.name): \($0.kind.rawValue)" }.joined(separator: ", ") + ")"
    let descriptor = StageDescriptor(
      name: declaration.name, abstract: declaration.description, usage: usage, signatures: signatures, parameters: parameters,
      examples: [], isCustom: true)
    return DeclarativeStage(declaration: declaration, source: source, descriptor: descriptor, registry: registry)
  }

  private static func placeholder(_ parameter: StageParameter) -> Value {
    switch parameter.kind {
    case .number, .integer, .duration: .number(parameter.range?.lowerBound ?? 1)
    case .boolean: .bool(false)
    case .date: .date(Date())
    default: .string(parameter.choices?.first ?? "")
    }
  }
}
