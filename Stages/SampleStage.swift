import QueryEngine
import SearchIndex

/// A reproducible random sample, optionally stratified by an attribute.
public struct SampleStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "sample", abstract: "A random sample of N items, reproducible with a seed; with by, proportional to each value's share.",
    usage: "sample N [seed S] [by ATTRIBUTE]",
    signatures: [.init(.items, .items), .init(.scoredItems, .scoredItems)],
    parameters: [
      StageParameter("count", .integer, "Sample size", required: true),
      StageParameter("seed", .integer, "Random seed (same seed, same sample)", default: .number(1)),
      StageParameter("by", .attribute, "Stratify by this attribute"),
    ],
    examples: [#"search domainIdentifier == "trails" | sample 5 seed 7 by stateOrProvince | table title, stateOrProvince"#])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call), clauses.count == 1, let first = clauses[0].first else {
      context.report(Diagnostic("stage.usage", "'sample' needs a size", at: call.span, help: "write \(descriptor.usage)"))
      return nil
    }
    guard let count = context.bindInteger(first, name: "sample", range: 0...1_000_000) else { return nil }
    var seed: UInt64 = 1
    var stratum: AttributeTarget?
    var rest = Array(clauses[0].dropFirst())
    while let word = rest.first?.identifierName, rest.count >= 2 {
      switch word {
      case "seed":
        guard let value = context.bindInteger(rest[1], name: "seed", range: 0...Int.max) else { return nil }
        seed = UInt64(value)
      case "by":
        guard let target = context.bindAttribute(rest[1], purpose: "sample by") else { return nil }
        stratum = target
      default:
        context.report(Diagnostic("stage.usage", "unexpected '\(word)' in sample", at: rest[0].span, help: "write \(descriptor.usage)"))
        return nil
      }
      rest.removeFirst(2)
    }
    if let extra = rest.first {
      context.report(Diagnostic("stage.usage", "unexpected argument to 'sample'", at: extra.span, help: "write \(descriptor.usage)"))
      return nil
    }
    return Bound(count: count, seed: seed, stratum: stratum, outputType: input)
  }

  struct Bound: BoundStage {
    let count: Int
    let seed: UInt64
    let stratum: AttributeTarget?
    let outputType: PipelineType
    var explanation: String { "sample \(count) (seed \(seed))" + (stratum.map { " by \($0.displayName)" } ?? "") }
    /// The positions of the items only (the stratum's values when stratified).
    var attributesRead: Set<String>? {
      switch stratum {
      case nil, .itemField: return []
      case .attribute(let name, _): return [name]
      case .anyText, .anyAttribute: return nil
      }
    }
    /// Without a stratum only the items' positions decide the sample.
    var readsOnlyPositions: Bool { stratum == nil }
    /// Without a stratum, the count alone: the positions `execute` would pick.
    func keptPositions(among total: Int) -> [Int]? {
      guard stratum == nil, count < total else { return nil }
      var generator = SplitMix64(seed: seed)
      return Self.pickedPositions(total, count, &generator)
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      // SplitMix64: the sequence depends only on the seed.
      var generator = SplitMix64(seed: seed)
      let items = input.resultItems
      guard count < items.count else { return input }
      guard let stratum else {
        return input.replacingItems(Self.pick(items, count, &generator))
      }
      // Proportional allocation by largest remainder, so sizes add up to `count`.
      var groups: [(key: Value, items: [ResultItem])] = []
      for item in items {
        let key = Aggregation.values(of: stratum, in: item).first ?? .null
        if let index = groups.firstIndex(where: { $0.key == key }) { groups[index].items.append(item) } else { groups.append((key, [item])) }
      }
      let shares = groups.map { Double($0.items.count) * Double(count) / Double(items.count) }
      var sizes = shares.map { Int($0) }
      let order = shares.indices.sorted { (shares[$0] - Double(sizes[$0])) > (shares[$1] - Double(sizes[$1])) }
      for index in order.prefix(count - sizes.reduce(0, +)) { sizes[index] += 1 }
      var result: [ResultItem] = []
      for (group, size) in zip(groups, sizes) { result += Self.pick(group.items, size, &generator) }
      return input.replacingItems(result)
    }

    /// `n` items chosen uniformly, kept in their input order.
    static func pick(_ items: [ResultItem], _ n: Int, _ generator: inout SplitMix64) -> [ResultItem] {
      pickedPositions(items.count, n, &generator).map { items[$0] }
    }

    /// `n` of the positions `0..<total` chosen uniformly, ascending: the first `n` steps of a
    /// Fisher-Yates shuffle, with only the swapped positions held (a sample of 3 from a
    /// million needs 6, not a million).
    static func pickedPositions(_ total: Int, _ n: Int, _ generator: inout SplitMix64) -> [Int] {
      var swapped: [Int: Int] = [:]
      var chosen: [Int] = []
      for i in 0..<min(n, total) {
        let j = i + Int(generator.next() % UInt64(total - i))
        let atJ = swapped[j] ?? j
        swapped[j] = swapped[i] ?? i
        chosen.append(atJ)
      }
      return chosen.sorted()
    }
  }
}
