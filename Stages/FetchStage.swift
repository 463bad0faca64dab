import QueryEngine
import SearchIndex

/// Keeps only the chosen attributes on each item (Apple's `fetchAttributes`).
public struct FetchStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "fetch", abstract: "Keep only the chosen attributes on each item, for compact results.",
    usage: "fetch ATTRIBUTE, ...",
    signatures: [.init(.items, .items), .init(.scoredItems, .scoredItems)],
    parameters: [StageParameter("attributes", .attributes, "Attributes to keep", required: true)],
    examples: [#"search "Orion" | top 3 | fetch title, contentCreationDate"#])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call), !clauses.isEmpty else {
      context.report(Diagnostic("stage.usage", "'fetch' needs at least one attribute", at: call.nameSpan, help: "write fetch title, contentCreationDate"))
      return nil
    }
    var names: [String] = []
    for clause in clauses {
      guard clause.count == 1, let target = context.bindAttribute(clause[0], purpose: "fetch") else { return nil }
      if case .attribute(let name, _) = target { names.append(name) }
    }
    return Bound(names: names, outputType: input)
  }

  struct Bound: BoundStage {
    let names: [String]
    let outputType: PipelineType
    var explanation: String { "keep \(names.joined(separator: ", "))" }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      input.replacingItems(input.resultItems.map { item in
        var copy = item
        copy.item.attributeSet = AttributeSet(names.compactMap { name in item.item.attributeSet[name].map { (name, $0) } })
        return copy
      })
    }
  }
}
