import SearchIndex

/// Binds a parsed query against the registry and the index catalogue and type-checks it:
/// every stage must accept the type the stage before it produces, names must refer to
/// earlier statements, and every expression must fit its attributes. All problems are
/// reported together, before anything runs.
public struct GraphBuilder {
  public var registry: StageRegistry
  public var bindingContext: BindingContext

  public init(registry: StageRegistry, bindingContext: BindingContext) {
    self.registry = registry
    self.bindingContext = bindingContext
  }

  /// Builds the graph; `variables` holds values of `let` statements already run (absent
  /// ones are typed as unknown while checking).
  public func build(_ query: QuerySyntax, source: SourceText) throws(DiagnosticsError) -> QueryGraph {
    var diagnostics: [Diagnostic] = []
    var statements: [QueryGraph.Statement] = []
    var names: [String: Int] = [:]
    var context = bindingContext
    var referenced = Set<Int>()
    for syntax in query.statements {
      if let name = syntax.name, names[name] != nil {
        diagnostics.append(Diagnostic("graph.duplicate-name", "'\(name)' is already defined", at: syntax.nameSpan ?? syntax.span))
      }
      var type = PipelineType.items
      let graphSource: QueryGraph.Source
      var sourceSpan = syntax.pipeline.span
      switch syntax.pipeline.source {
      case .search(let expression, let keywordSpan)?:
        sourceSpan = keywordSpan.isEmpty ? expression.span : keywordSpan.union(expression.span)
        var binder = ExpressionBinder(context: context)
        let bound = binder.bindCondition(expression)
        diagnostics.append(contentsOf: binder.diagnostics)
        if let bound, !bound.isStoredOnly {
          diagnostics.append(Diagnostic("graph.computed-search", "a search compares stored attributes; computed values belong in 'where'",
                                        at: expression.span, help: "write search ... | where \(source.slice(expression.span))"))
        }
        graphSource = .search(bound ?? .constant(.bool(false)))
      case .reference(let name, let span)?:
        sourceSpan = span
        if let index = names[name] {
          graphSource = .reference(index)
          referenced.insert(index)
          type = statements[index].outputType
          if statements[index].isLet {
            diagnostics.append(Diagnostic("graph.let-as-source", "'\(name)' holds a value; use it as $\(name)", at: span))
          }
        } else {
          if syntax.name == name {
            diagnostics.append(Diagnostic("graph.cycle", "'\(name)' refers to itself", at: span))
          } else {
            diagnostics.append(Diagnostic("graph.unknown-name", "unknown statement '\(name)'", at: span)
              .suggesting(closestMatch(to: name, in: names.keys)))
          }
          graphSource = .search(.constant(.bool(false)))
        }
      case .merge(let mergedNames, let spans, _)?:
        var indexes: [Int] = []
        for (name, span) in zip(mergedNames, spans) {
          guard let index = names[name] else {
            diagnostics.append(Diagnostic(syntax.name == name ? "graph.cycle" : "graph.unknown-name",
                                          syntax.name == name ? "'\(name)' refers to itself" : "unknown statement '\(name)'", at: span)
              .suggesting(closestMatch(to: name, in: names.keys)))
            continue
          }
          let mergedType = statements[index].outputType
          if mergedType != .items && mergedType != .scoredItems {
            diagnostics.append(Diagnostic("type.merge", "merge needs items; '\(name)' produces \(mergedType)", at: span))
          }
          if mergedType == .scoredItems { type = .scoredItems }
          indexes.append(index)
          referenced.insert(index)
        }
        graphSource = .merge(indexes)
      case nil:
        graphSource = .search(.matchAll)
      }
      var nodes: [QueryGraph.Node] = []
      // A named statement's table arrives with its columns unknown: checked when it comes.
      var columns: [String]?
      bindStages(syntax.pipeline.stages, input: &type, columns: &columns, context: context, source: source, nodes: &nodes,
                 diagnostics: &diagnostics)
      statements.append(QueryGraph.Statement(
        name: syntax.name, isLet: syntax.isLet, source: graphSource, sourceSpan: sourceSpan, nodes: nodes,
        outputType: type, isTerminal: true))
      if let name = syntax.name {
        names[name] = statements.count - 1
        if syntax.isLet, context.variables[name] == nil { context.variables[name] = .null }
      }
    }
    // A statement used by another is not a reply, unless its last stage is labelled
    // (`as "Matches"`): a label asks for the result to be shown.
    for index in referenced where statements[index].nodes.last?.label == nil { statements[index].isTerminal = false }
    for index in statements.indices where statements[index].isLet { statements[index].isTerminal = false }
    if !statements.contains(where: \.isTerminal) {
      diagnostics.append(Diagnostic("graph.no-result", "the query has no result: every statement is used by another or binds a variable",
                                    at: query.span, help: "end with a pipeline that uses the names, e.g. hikes | count"))
    }
    if diagnostics.contains(where: { $0.severity == .error }) {
      throw DiagnosticsError(source: source, diagnostics: diagnostics)
    }
    return QueryGraph(source: source, statements: statements, syntax: query)
  }

  /// Binds a run of stages from an input type (declarative stage bodies use this too).
  public func bindStages(
    _ stages: [StageSyntax], input: PipelineType, context: BindingContext, source: SourceText
  ) -> (nodes: [QueryGraph.Node], output: PipelineType, diagnostics: [Diagnostic]) {
    var type = input
    var columns: [String]?
    var nodes: [QueryGraph.Node] = []
    var diagnostics: [Diagnostic] = []
    bindStages(stages, input: &type, columns: &columns, context: context, source: source, nodes: &nodes, diagnostics: &diagnostics)
    return (nodes, type, diagnostics)
  }

  /// `columns` are the input table's (or groups' key) columns while known
  /// (`BoundStage.outputColumns`), and become the output's.
  private func bindStages(
    _ stages: [StageSyntax], input type: inout PipelineType, columns: inout [String]?, context: BindingContext, source: SourceText,
    nodes: inout [QueryGraph.Node], diagnostics: inout [Diagnostic], after previous: String = "search"
  ) {
    // The stage whose output the next one takes (in a fork's branch, the one before the fork).
    var previousName = previous
    for (position, call) in stages.enumerated() {
      if call.name == "fork" {
        guard case .branches(let branches) = call.arguments else { continue }
        if position != stages.count - 1 {
          diagnostics.append(Diagnostic("graph.stage-after-fork", "fork must be the last stage; each branch ends in its own reply",
                                        at: stages[position + 1].span, help: "move the stages into the branches"))
        }
        var branchNodes: [[QueryGraph.Node]] = []
        for branch in branches {
          var branchType = type
          var branchColumns = columns
          var bound: [QueryGraph.Node] = []
          bindStages(branch.stages, input: &branchType, columns: &branchColumns, context: context, source: source, nodes: &bound,
                     diagnostics: &diagnostics, after: previousName)
          branchNodes.append(bound)
        }
        nodes.append(QueryGraph.Node(name: "fork", span: call.span, kind: .fork(branchNodes), label: call.label, outputType: type))
        continue
      }
      guard let definition = registry.definition(named: call.name) else {
        diagnostics.append(Diagnostic("stage.unknown", "unknown stage '\(call.name)'", at: call.nameSpan,
                                      notes: [Diagnostic.Note("stages that accept \(type): \(registry.stages(accepting: type).joined(separator: ", "))")])
          .suggesting(closestMatch(to: call.name, in: registry.names + ["fork"])))
        return
      }
      let descriptor = definition.descriptor
      let outputs = descriptor.outputs(for: type)
      guard !outputs.isEmpty else {
        let accepted = descriptor.inputTypes.map(\.rawValue).joined(separator: " or ")
        var help = "stages that accept \(type): \(registry.stages(accepting: type).joined(separator: ", "))"
        if let hint = descriptor.hints[type] { help = "\(hint) (\(help))" }
        diagnostics.append(Diagnostic(
          "type.stage-input", "'\(call.name)' needs \(accepted); '\(previousName)' produces \(type)", at: call.nameSpan, help: help))
        return
      }
      var bindingContext = context
      bindingContext.scoreAvailable = type == .scoredItems
      var stageContext = StageBindingContext(binder: ExpressionBinder(context: bindingContext), source: source)
      stageContext.inputColumns = type == .table || type == .groupedItems ? columns : nil
      let bound = definition.bind(call, input: type, context: &stageContext)
      diagnostics.append(contentsOf: stageContext.diagnostics)
      var output = outputs[0]
      if let bound {
        if !outputs.contains(bound.outputType) {
          diagnostics.append(Diagnostic("stage.signature", "'\(call.name)' produced \(bound.outputType) but declares \(outputs.map(\.rawValue).joined(separator: " or "))", at: call.nameSpan))
        }
        output = bound.outputType
        nodes.append(QueryGraph.Node(name: call.name, span: call.span, kind: .stage(bound), label: call.label, outputType: output))
      } else if !stageContext.diagnostics.contains(where: { $0.severity == .error }) {
        diagnostics.append(Diagnostic("stage.bind-failed", "'\(call.name)' could not be bound", at: call.span))
      }
      type = output
      columns = output == .table || output == .groupedItems ? bound?.outputColumns : nil
      previousName = call.name
    }
  }
}
