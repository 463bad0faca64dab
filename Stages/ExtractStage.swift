import QueryEngine
import SearchIndex

/// The items of one group (Apple's `extractGroupItems`).
public struct ExtractStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "extract", abstract: "The items of the group whose key is the given value.",
    usage: "extract VALUE",
    signatures: [.init(.groupedItems, .items)],
    parameters: [StageParameter("key", .string, "The group key (case and diacritics ignored when no exact match)", required: true)],
    examples: [#"search domainIdentifier == "trails" | group by stateOrProvince | extract "Oregon" | table title"#])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let expression = context.singleExpression(call, usage: descriptor.usage) else { return nil }
    let key: Value
    switch expression.kind {
    case .string(let s): key = .string(s.text)
    case .number(let n): key = .number(n)
    case .identifier(let name): key = .string(name)
    case .variable:
      guard let (bound, _) = context.bindValue(expression), case .constant(let value) = bound else { return nil }
      key = value
    default:
      context.report(Diagnostic("stage.usage", "'extract' needs a group key", at: expression.span, help: "write extract \"Oregon\""))
      return nil
    }
    return Bound(key: key)
  }

  struct Bound: BoundStage {
    let key: Value
    var outputType: PipelineType { .items }
    var explanation: String { "the items of group \(key.displayText)" }

    /// The groups of a text attribute (or of domains, content types) whose key is this one,
    /// exactly or once case and diacritics are folded, hold only items with a value that
    /// folds to it: the SQL plan keeps those (a quarter of a million trails were read to
    /// extract a state's few thousand). Groups by numbers or dates are left to `execute`
    /// (their keys match by how they are shown).
    func narrow(_ plan: inout SQLPlan) {
      guard plan.aggregate == nil, plan.limit == nil, let target = plan.groupBy, case .string(let text) = key else { return }
      switch target {
      case .attribute(_, let type) where type.scalar == .string: break
      case .itemField: break
      default: return
      }
      let folded = MatchPattern(pieces: [.literal(text)], caseInsensitive: true, diacriticInsensitive: true, wordBased: false, tokenized: false, source: text)
      plan.addFilter(.test(AttributeTest(target: target, kind: .match(folded), negated: false)))
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      guard case .groupedItems(let grouped) = input else { return .items([]) }
      if let exact = grouped.groups.first(where: { $0.key == key || $0.key.displayText == key.displayText }) {
        return .items(exact.items)
      }
      let folded = TextFolding.fold(key.displayText)
      return .items(grouped.groups.first(where: { TextFolding.fold($0.key.displayText) == folded })?.items ?? [])
    }
  }
}
