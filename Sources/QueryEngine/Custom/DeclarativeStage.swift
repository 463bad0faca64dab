import SearchIndex

/// A stage defined in a `.stage` file: its body is a pipeline over its input that may use its
/// parameters by name. Registered next to Swift stages and checked the same way.
struct DeclarativeStage: StageDefinition {
  let declaration: StageDeclarationSyntax
  let source: SourceText
  let descriptor: StageDescriptor
  /// The stages the body may use: everything registered before this stage (no recursion).
  let registry: StageRegistry

  func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let values = context.bindArguments(call, parameters: descriptor.parameters) else { return nil }
    var bindingContext = context.binder.context
    for (name, value) in values { bindingContext.parameters[name] = value }
    bindingContext.scoreAvailable = input == .scoredItems
    let builder = GraphBuilder(registry: registry, bindingContext: bindingContext)
    let (nodes, output, diagnostics) = builder.bindStages(declaration.body, input: input, context: bindingContext, source: source)
    if let problem = diagnostics.first(where: { $0.severity == .error }) {
      // The body was checked when the file loaded; what fails now depends on the call (an
      // attribute this index lacks, an argument value). Point at the call, name the place.
      let (line, column) = source.location(of: problem.span.start)
      context.report(Diagnostic("stage.body", "in stage '\(descriptor.name)' (\(source.name):\(line):\(column)): \(problem.message)",
                                at: call.span, help: problem.help))
      return nil
    }
    guard let declared = descriptor.output(for: input), output == declared else { return nil }
    return Bound(name: descriptor.name, nodes: nodes, outputType: output)
  }

  struct Bound: BoundStage {
    let name: String
    let nodes: [QueryGraph.Node]
    let outputType: PipelineType
    var explanation: String { "\(name): " + nodes.map(\.name).joined(separator: " | ") }

    /// Pushes the whole body into SQLite when every stage of it can go; otherwise none.
    func push(into plan: inout SQLPlan) -> Bool {
      var copy = plan
      for node in nodes {
        guard case .stage(let stage) = node.kind, stage.push(into: &copy) else { return false }
      }
      plan = copy
      return true
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      var data = input
      for node in nodes {
        try context.cancellation.check()
        guard case .stage(let stage) = node.kind else { continue }
        data = try stage.execute(data, context: context)
      }
      return data
    }
  }
}
