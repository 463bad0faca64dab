/// What evaluating an expression on an item reads of it (`ExpressionEvaluator`), so that a
/// stage whose expression reads little gets items with only that: `score` and `where` over a
/// quarter of a million matches then read a few values each, not every record.
extension BoundExpression {
  /// The expressions this one is made of (none for a leaf).
  var operands: [BoundExpression] {
    switch self {
    case .not(let part), .negate(let part): [part]
    case .and(let parts), .or(let parts), .function(_, let parts): parts
    case .arithmetic(_, let a, let b), .compare(_, let a, let b): [a, b]
    default: []
    }
  }

  /// The attributes the expression reads; nil when it may read any (a text search, a test of
  /// any attribute or any text, a similarity, which reads the whole item).
  public var attributesRead: Set<String>? {
    func union(_ parts: [BoundExpression]) -> Set<String>? {
      var names: Set<String> = []
      for part in parts {
        guard let read = part.attributesRead else { return nil }
        names.formUnion(read)
      }
      return names
    }
    switch self {
    case .constant, .matchAll, .relevance, .score, .engagement, .attribute(.itemField): return []
    case .attribute(.attribute(let name, _)): return [name]
    case .test(let test):
      switch test.target {
      case .attribute(let name, _): return [name]
      case .itemField: return []
      case .anyText, .anyAttribute: return nil
      }
    case .function(.similarity, _): return nil
    // The item's own position.
    case .function(.distance, _): return union(operands).map { $0.union(["latitude", "longitude"]) }
    case .not, .negate, .and, .or, .arithmetic, .compare, .function: return union(operands)
    default: return nil
    }
  }

  /// Whether the expression compares items with embeddings (`similarity(...)`, `similar`).
  public var usesEmbeddings: Bool {
    switch self {
    case .similar, .function(.similarity, _): true
    default: operands.contains(where: \.usesEmbeddings)
    }
  }

  /// Whether the expression reads an item field (identifier, domain, content type, expiry,
  /// protection) or the engagement.
  public var readsItemFields: Bool {
    switch self {
    case .constant, .matchAll, .relevance, .score, .attribute(.attribute): return false
    case .test(let test):
      if case .attribute = test.target { return false }
      return true
    case .not, .negate, .and, .or, .arithmetic, .compare, .function: return operands.contains(where: \.readsItemFields)
    default: return true
    }
  }
}
