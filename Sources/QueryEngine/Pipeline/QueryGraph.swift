import SearchIndex

/// A type-checked query: statements whose stages are bound and whose types fit, ready to run.
public struct QueryGraph: Sendable {
  /// Where a statement's items come from.
  public enum Source: Sendable {
    /// A search predicate over the index.
    case search(BoundExpression)
    /// The result of an earlier statement.
    case reference(Int)
    /// The items of earlier statements, without duplicates.
    case merge([Int])
  }

  /// One stage in a pipeline, or a fork into branches.
  public struct Node: Sendable {
    public enum Kind: Sendable {
      case stage(any BoundStage)
      case fork([[Node]])
    }

    public var name: String
    public var span: SourceSpan
    public var kind: Kind
    /// `as "label"`
    public var label: String?
    /// The type after this node.
    public var outputType: PipelineType
  }

  /// One statement: `[name =] source | stages`.
  public struct Statement: Sendable {
    public var name: String?
    public var isLet: Bool
    public var source: Source
    public var sourceSpan: SourceSpan
    public var nodes: [Node]
    public var outputType: PipelineType
    /// True when no later statement uses it, so its result is a reply.
    public var isTerminal: Bool
  }

  public var source: SourceText
  public var statements: [Statement]
  /// The parsed query, kept to bind `let` variables once their values are known.
  public var syntax: QuerySyntax
  /// The index generation whose catalogue bound the names (nil: not bound by
  /// `QueryExecutor.prepare`). An execution that reads another generation binds again.
  var catalogGeneration: Int64?
  /// True when that catalogue was the one the process had read last, not read for this
  /// graph: the execution's read confirms it, and a name it no longer has is reported then.
  var boundWithoutRead = false

  /// The words the statements' search predicates look for in text (`searchedWords`), in
  /// order; not the values they compare attributes with nor the arguments of stages.
  public var searchedWords: [String] {
    statements.flatMap { statement -> [String] in
      guard case .search(let predicate) = statement.source else { return [] }
      return predicate.searchedWords
    }
  }
}

/// A reply: what one terminal of a query produced, tagged with the execution's query token.
public struct Reply: Sendable {
  public var queryToken: String
  public var label: String
  public var content: PipelineData
  /// The stage that produced it (`search` for plain searches).
  public var stage: String
  /// True for a batch of a streamed items reply that has more batches to come.
  public var isPartial: Bool
  /// How many items the whole reply holds, when the query ran with an item window that
  /// asks for the count (`QueryOptions.itemWindow`); the reply holds only the first ones.
  public var total: Int?

  public init(queryToken: String, label: String, content: PipelineData, stage: String, isPartial: Bool = false) {
    self.queryToken = queryToken
    self.label = label
    self.content = content
    self.stage = stage
    self.isPartial = isPartial
  }
}
