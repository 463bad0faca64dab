/// An expression: predicates (`title == "x"cd && rating > 3`) and scoring expressions
/// (`0.7 * relevance + 0.3 * recency(contentModificationDate, 30d)`) share one grammar.
public indirect enum ExpressionKind: Sendable, Hashable {
  case boolean(Bool)
  case number(Double)
  /// A duration literal in seconds (`30d`).
  case duration(Double)
  /// A quoted string, or a bare value such as `june*` or `2026-05-01`.
  case string(StringLiteral)
  /// `$time.today(-7)`, `$time.iso(...)`.
  case time(TimeLiteral)
  /// A name: an attribute, a stage parameter, `relevance`, `score`, or a bare word value.
  case identifier(String)
  /// `*` (any text attribute) or `**` (any attribute) as a comparison's left side, or `*`
  /// alone meaning every item.
  case anyAttribute(deep: Bool)
  /// `$name`, bound by `let`.
  case variable(String)
  case unary(UnaryOperator, Expression)
  case binary(BinaryOperator, Expression, Expression)
  /// `lhs op rhs`, with `[cd]` modifiers written after the operator.
  case comparison(ComparisonOperator, Expression, Expression, bracketModifiers: String?)
  /// `name(arguments)`: InRange, recency, avg, ...
  case call(name: String, nameSpan: SourceSpan, arguments: [Argument])
  /// `similar "phrase" within 0.8 limit 20 keywords "sun star"`: nearest neighbours by
  /// embedding.
  case similar(SimilarSyntax)
}

/// `similar "phrase" [within DISTANCE] [limit COUNT] [keywords "words"]`.
public struct SimilarSyntax: Sendable, Hashable {
  /// The text whose embedding is compared with the items'.
  public var phrase: String
  /// Largest cosine distance (0...2) a match may have; nil for the default.
  public var maxDistance: Double?
  public var maxDistanceSpan: SourceSpan?
  /// At most this many nearest items.
  public var maxCount: Double?
  public var maxCountSpan: SourceSpan?
  /// Words that items without an embedding must contain; nil: the phrase's words.
  public var keywords: String?

  public init(phrase: String, maxDistance: Double? = nil, maxDistanceSpan: SourceSpan? = nil, maxCount: Double? = nil,
              maxCountSpan: SourceSpan? = nil, keywords: String? = nil) {
    self.phrase = phrase
    self.maxDistance = maxDistance
    self.maxDistanceSpan = maxDistanceSpan
    self.maxCount = maxCount
    self.maxCountSpan = maxCountSpan
    self.keywords = keywords
  }
}

/// An expression with its source range.
public struct Expression: Sendable, Hashable {
  public var kind: ExpressionKind
  public var span: SourceSpan

  public init(_ kind: ExpressionKind, _ span: SourceSpan) {
    self.kind = kind
    self.span = span
  }

  /// The identifier's name, when the expression is a plain identifier.
  public var identifierName: String? {
    if case .identifier(let name) = kind { return name }
    return nil
  }
}

/// A call argument, optionally named (`weight: 0.5`).
public struct Argument: Sendable, Hashable {
  public var label: String?
  public var labelSpan: SourceSpan?
  public var value: Expression

  public init(label: String? = nil, labelSpan: SourceSpan? = nil, value: Expression) {
    self.label = label
    self.labelSpan = labelSpan
    self.value = value
  }
}

/// A string literal as written.
public struct StringLiteral: Sendable, Hashable {
  public enum Form: String, Sendable, Hashable {
    /// `"..."`: wildcards active.
    case doubleQuoted
    /// `'...'`: exact whole value, wildcards literal.
    case singleQuoted
    /// Unquoted (`june*`, `waterfall`, `2026-05-01`).
    case bare
  }

  public var text: String
  public var form: Form
  /// Character offsets of `*`/`?` that were escaped and so are literal.
  public var escapedWildcards: Set<Int>
  /// Suffix modifiers (`cdw`).
  public var modifiers: String
  public var modifierSpan: SourceSpan?
  /// The weight of a text search's terms (`"glacier"^2`); nil for the default weight 1.
  public var boost: Double?
  public var boostSpan: SourceSpan?

  public init(
    text: String, form: Form, escapedWildcards: Set<Int> = [], modifiers: String = "", modifierSpan: SourceSpan? = nil,
    boost: Double? = nil, boostSpan: SourceSpan? = nil
  ) {
    self.text = text
    self.form = form
    self.escapedWildcards = escapedWildcards
    self.modifiers = modifiers
    self.modifierSpan = modifierSpan
    self.boost = boost
    self.boostSpan = boostSpan
  }
}

/// A `$time` value as written.
public struct TimeLiteral: Sendable, Hashable {
  /// `now`, `today`, `yesterday`, `this_week`, `last_week`, `this_month`, `this_year`, or `iso`.
  public var function: String
  public var functionSpan: SourceSpan
  /// The signed offset in the function's own unit, when given.
  public var offset: Double?
  /// The ISO text of `$time.iso(...)`.
  public var iso: String?

  public init(function: String, functionSpan: SourceSpan, offset: Double? = nil, iso: String? = nil) {
    self.function = function
    self.functionSpan = functionSpan
    self.offset = offset
    self.iso = iso
  }
}

public enum UnaryOperator: String, Sendable, Hashable {
  case not = "!"
  case negate = "-"
}

public enum BinaryOperator: String, Sendable, Hashable {
  case and = "&&"
  case or = "||"
  case add = "+"
  case subtract = "-"
  case multiply = "*"
  case divide = "/"
  case remainder = "%"
}

public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
  case equal = "=="
  case notEqual = "!="
  case less = "<"
  case greater = ">"
  case lessEqual = "<="
  case greaterEqual = ">="

  /// True for the ordering operators, which need numbers or dates.
  public var isOrdering: Bool { self != .equal && self != .notEqual }
}

/// A whole query: statements separated by `;`. The last statement without a name is the
/// main pipeline; named ones feed later statements.
public struct QuerySyntax: Sendable, Hashable {
  public var statements: [StatementSyntax]
  public var span: SourceSpan

  public init(statements: [StatementSyntax], span: SourceSpan) {
    self.statements = statements
    self.span = span
  }
}

/// `[name =] pipeline` or `let name = pipeline`.
public struct StatementSyntax: Sendable, Hashable {
  public var name: String?
  public var nameSpan: SourceSpan?
  /// True for `let name = ...`: binds a value (`$name`), not a stream of items.
  public var isLet: Bool
  public var pipeline: PipelineSyntax
  public var span: SourceSpan

  public init(name: String?, nameSpan: SourceSpan?, isLet: Bool, pipeline: PipelineSyntax, span: SourceSpan) {
    self.name = name
    self.nameSpan = nameSpan
    self.isLet = isLet
    self.pipeline = pipeline
    self.span = span
  }
}

/// A source followed by stages.
public struct PipelineSyntax: Sendable, Hashable {
  /// nil inside `fork` branches, which continue from the stage before the fork.
  public var source: SourceSyntax?
  public var stages: [StageSyntax]
  public var span: SourceSpan

  public init(source: SourceSyntax?, stages: [StageSyntax], span: SourceSpan) {
    self.source = source
    self.stages = stages
    self.span = span
  }
}

/// Where a pipeline's items come from.
public enum SourceSyntax: Sendable, Hashable {
  /// `search PREDICATE`
  case search(Expression, keywordSpan: SourceSpan)
  /// A named statement (`hikes | ...`).
  case reference(String, SourceSpan)
  /// `merge(a, b, ...)`
  case merge([String], [SourceSpan], keywordSpan: SourceSpan)
}

/// One stage: its name, its arguments, and an optional reply label.
public struct StageSyntax: Sendable, Hashable {
  public enum Arguments: Sendable, Hashable {
    /// `top 5`, `sort rating desc, title`, `group by keywords`: comma-separated clauses,
    /// each a run of expressions.
    case clauses([[Expression]])
    /// `importantNotes(minimumScore: 0.6)`
    case call([Argument])
    /// `fork (branch) (branch) ...`
    case branches([PipelineSyntax])
  }

  public var name: String
  public var nameSpan: SourceSpan
  public var arguments: Arguments
  public var label: String?
  public var labelSpan: SourceSpan?
  public var span: SourceSpan

  public init(name: String, nameSpan: SourceSpan, arguments: Arguments, label: String? = nil, labelSpan: SourceSpan? = nil, span: SourceSpan) {
    self.name = name
    self.nameSpan = nameSpan
    self.arguments = arguments
    self.label = label
    self.labelSpan = labelSpan
    self.span = span
  }
}
