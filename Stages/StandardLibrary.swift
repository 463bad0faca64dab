import QueryEngine

/// The standard stage library.
public enum StandardLibrary {
  /// Every built-in stage, sorted by name; `StageRegistryTests` checks the order, unique
  /// names, and that each has its own file in `Stages/`.
  public static let stages: [any StageDefinition] = [
    CountStage(), ExtractStage(), FetchStage(), FuseStage(), GroupStage(), HydrateStage(), LimitStage(), PeopleStage(), SampleStage(),
    ScoreStage(), SelectStage(), SortStage(), StatsStage(), TableStage(), TextStage(), TopStage(), WhereStage(),
  ]

  /// A registry holding the standard library.
  public static func registry() -> StageRegistry { StageRegistry(stages) }

  /// The standard library plus the example Swift custom stage (`freshness`), as the
  /// command-line tool offers them.
  public static func registryWithExamples() -> StageRegistry {
    var registry = registry()
    try? registry.register(.freshness())
    return registry
  }
}
