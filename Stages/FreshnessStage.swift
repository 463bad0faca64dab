import Foundation
import QueryEngine
import SearchIndex

/// An example of a custom stage written in Swift: boosts recently changed items.
///
/// ```swift
/// try registry.register(.freshness(halfLife: 30 * 86400, weight: 0.5))
/// ```
public struct FreshnessStage: CustomStage {
  /// The half-life of the boost in seconds.
  public var halfLife: Double
  /// How much freshness counts, from 0 (not at all) to 1 (doubles a brand-new item's score).
  public var weight: Double

  public init(halfLife: Double = 30 * 86400, weight: Double = 0.5) {
    self.halfLife = halfLife
    self.weight = weight
  }

  public var name: String { "freshness" }
  public var description: String {
    "Boosts recently modified items: multiplies each item's score (or text relevance) by 1 + weight * recency, where recency halves every halfLife."
  }
  public var signatures: [StageDescriptor.Signature] { [.init(.items, .scoredItems), .init(.scoredItems, .scoredItems)] }
  public var parameters: [StageParameter] {
    [
      StageParameter("halfLife", .duration, "Time for the boost to halve, e.g. 14d", default: .number(halfLife), range: 3600...(3650 * 86400)),
      StageParameter("weight", .number, "How much freshness counts, from 0 to 1", default: .number(weight), range: 0...1),
      StageParameter("attribute", .attribute, "The date attribute that says how fresh an item is", default: .string("contentModificationDate")),
    ]
  }
  public var examples: [String] { [#"search "budget" | freshness(halfLife: 14d, weight: 0.8) | top 3"#] }

  /// Only the date attribute (and the scores) matter.
  public func attributesRead(_ arguments: StageArguments) -> Set<String>? {
    [arguments.string("attribute") ?? "contentModificationDate"]
  }

  /// No identifier, domain or engagement: the date and the scores alone.
  public func readsItemFields(_ arguments: StageArguments) -> Bool { false }

  public func execute(_ input: PipelineData, arguments: StageArguments, context: any StageContext) throws -> PipelineData {
    let halfLife = arguments.number("halfLife") ?? self.halfLife
    let weight = arguments.number("weight") ?? self.weight
    let attribute = arguments.string("attribute") ?? "contentModificationDate"
    let now = context.clock.now.timeIntervalSince1970
    var scored: [ResultItem] = []
    for var item in input.resultItems {
      try context.cancellation.check()
      let base = item.score ?? (item.relevance > 0 ? item.relevance : 1)
      var recency = 0.0
      if let date = item.item.attributeSet[attribute]?.numericValue {
        let age = max(0, now - date)
        recency = pow(0.5, age / halfLife)
      }
      item.score = base * (1 + weight * recency)
      item.scoreTerms.append(ScoreTerm(name: "freshness(\(attribute))", value: base * weight * recency))
      scored.append(item)
    }
    scored.sort { ($0.score ?? 0) > ($1.score ?? 0) }
    return .scoredItems(scored)
  }
}

extension CustomStage where Self == FreshnessStage {
  /// The freshness boost with its defaults.
  public static func freshness(halfLife: Double = 30 * 86400, weight: Double = 0.5) -> FreshnessStage {
    FreshnessStage(halfLife: halfLife, weight: weight)
  }
}
