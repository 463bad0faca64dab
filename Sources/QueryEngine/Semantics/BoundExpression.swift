import Foundation
import SearchIndex

/// What a comparison's left side names.
public enum AttributeTarget: Sendable, Hashable {
  /// One attribute of the attribute set.
  case attribute(String, AttributeType)
  /// `domainIdentifier`, `contentType` or the item identifier, stored on the item itself.
  case itemField(ItemField)
  /// `*`: every text attribute.
  case anyText
  /// `**`: every text attribute and the item fields.
  case anyAttribute

  public enum ItemField: String, Sendable, Hashable {
    case domainIdentifier, contentType, uniqueIdentifier
  }

  /// The name as a person reads it.
  public var displayName: String {
    switch self {
    case .attribute(let name, _): name
    case .itemField(let field): field.rawValue
    case .anyText: "*"
    case .anyAttribute: "**"
    }
  }

  /// The value type the target holds.
  public var scalarType: AttributeType.Scalar {
    switch self {
    case .attribute(_, let type): type.scalar
    default: .string
    }
  }
}

/// A test of an item's attribute values (one value of a list is enough, Apple's rule for
/// multi-valued attributes).
public struct AttributeTest: Sendable, Hashable {
  public enum Kind: Sendable, Hashable {
    /// Numbers, dates (seconds since 1970) and Booleans (0/1) against a number.
    case compare(ComparisonOperator, Double)
    /// A date within `[start, end)` (`== $time.this_month`).
    case within(start: Double, end: Double)
    /// Inclusive range (`InRange`).
    case range(Double, Double)
    /// A string pattern (`== "june*"cd`).
    case match(MatchPattern)
    /// The attribute has a value (`== "*"`).
    case present
  }

  public var target: AttributeTarget
  public var kind: Kind
  /// True for `!=` (and `!= "*"`): the test holds when no value matches.
  public var negated: Bool

  public init(target: AttributeTarget, kind: Kind, negated: Bool) {
    self.target = target
    self.kind = kind
    self.negated = negated
  }
}

/// A ranked full-text search: a bare quoted string (`"june launch"`).
public struct TextSearch: Sendable, Hashable {
  /// Terms to find, each a word or a prefix (`launch*`).
  public struct Term: Sendable, Hashable {
    public var text: String
    public var isPrefix: Bool
    public init(text: String, isPrefix: Bool) {
      self.text = text
      self.isPrefix = isPrefix
    }

    /// Marks a stemmed term: the tokenizer reads a word after U+0001 as "any form of it".
    public static let stemMarker: Character = "\u{1}"

    /// The term matching every form of its word (Porter stem), as `"word"s` asks.
    public var stemmed: Term { isStemmed ? self : Term(text: String(Self.stemMarker) + text, isPrefix: isPrefix) }
    /// True for a term that matches every form of its word.
    public var isStemmed: Bool { text.first == Self.stemMarker }
    /// The word as written, without the stem marker.
    public var word: String { isStemmed ? String(text.dropFirst()) : text }
  }

  public var terms: [Term]
  /// True to require every term (AND); false to rank by any term (OR).
  public var requireAll: Bool
  /// FTS5 columns to search; nil for the default text attributes.
  public var columns: [String]?
  /// Optional weights for the terms (planner: rare terms weigh more).
  public var weights: [Double]?
  /// True for a single-quoted text: the words must appear next to each other, in order.
  public var phrase: Bool = false

  public init(terms: [Term], requireAll: Bool, columns: [String]? = nil, weights: [Double]? = nil, phrase: Bool = false) {
    self.terms = terms
    self.requireAll = requireAll
    self.columns = columns
    self.weights = weights
    self.phrase = phrase
  }
}

/// Nearest neighbours by embedding (`similar "phrase" within 0.8`): items whose best chunk
/// lies within `maxDistance` (cosine distance, 0...2) of the phrase's vector, at most
/// `maxCount` of them; items without a vector match by `keywords` instead, as on Apple's
/// platforms.
public struct SimilarSearch: Sendable, Hashable {
  /// The default largest distance: a cosine similarity of at least 0.2.
  public static let defaultMaxDistance = 0.8

  public var phrase: String
  public var maxDistance: Double
  public var maxCount: Int?
  /// The text search that items without a vector must pass; nil matches none of them.
  public var keywords: TextSearch?

  public init(phrase: String, maxDistance: Double = SimilarSearch.defaultMaxDistance, maxCount: Int? = nil, keywords: TextSearch?) {
    self.phrase = phrase
    self.maxDistance = maxDistance
    self.maxCount = maxCount
    self.keywords = keywords
  }
}

/// A typed, bound expression: names resolved against the catalogue, `$time` resolved
/// against the clock, parameters substituted.
public indirect enum BoundExpression: Sendable, Hashable {
  case constant(Value)
  /// `*` alone: every item.
  case matchAll
  case test(AttributeTest)
  case textSearch(TextSearch)
  /// `similar "phrase"`: nearest neighbours by embedding.
  case similar(SimilarSearch)
  case not(BoundExpression)
  case and([BoundExpression])
  case or([BoundExpression])
  /// The first value of an attribute (or item field).
  case attribute(AttributeTarget)
  /// The text-search relevance of the item (BM25, larger is better), 0 without a text search.
  case relevance
  /// The item's current score (after `score`), 0 before.
  case score
  /// How often the user engaged with the item (opened, cited): `searchlight engage ID`.
  case engagement
  case negate(BoundExpression)
  case arithmetic(BinaryOperator, BoundExpression, BoundExpression)
  /// A comparison of computed values (`score >= 0.5`).
  case compare(ComparisonOperator, BoundExpression, BoundExpression)
  case function(ScoringFunction, [BoundExpression])

  /// True when the expression reads only stored attributes, so it can run inside SQLite.
  public var isStoredOnly: Bool {
    switch self {
    case .constant, .matchAll, .test, .textSearch, .similar: true
    case .not(let e): e.isStoredOnly
    case .and(let es), .or(let es): es.allSatisfy(\.isStoredOnly)
    default: false
    }
  }

  /// The `similar` searches in the expression.
  public var similarSearches: [SimilarSearch] {
    switch self {
    case .similar(let search): [search]
    case .not(let e): e.similarSearches
    case .and(let es), .or(let es): es.flatMap(\.similarSearches)
    default: []
    }
  }

  /// The whole words its text searches look for, as written (prefixes left out), outside any
  /// negation: the words whose absence can explain why it found nothing.
  public var searchedWords: [String] {
    switch self {
    case .textSearch(let search): search.terms.filter { !$0.isPrefix }.map(\.word)
    case .and(let es), .or(let es): es.flatMap(\.searchedWords)
    default: []
    }
  }

  /// True when the expression (somewhere) is a text search.
  public var containsTextSearch: Bool {
    switch self {
    case .textSearch: true
    case .not(let e): e.containsTextSearch
    case .and(let es), .or(let es): es.contains(where: \.containsTextSearch)
    default: false
    }
  }
}

/// Functions of the scoring expression language (pure, bounded work per item).
public enum ScoringFunction: String, Sendable, Hashable, CaseIterable {
  case recency, log, min, max, clamp, `if`, coalesce, distance, abs, sqrt, exp, upcoming
  /// Cosine similarity of the item's best chunk to a phrase, by embedding.
  case similarity
  /// Calendar parts of a date in the query's time zone (recurring dates: every December, Fridays).
  case year, month, dayOfMonth, weekday, weekOfYear, hour

  /// Arity range and a one-line description, for the binder and help.
  public var signature: (arity: ClosedRange<Int>, usage: String, summary: String) {
    switch self {
    case .recency: (2...2, "recency(dateAttribute, halfLife)", "1 for now, halving every halfLife into the past (e.g. 30d)")
    case .upcoming: (2...2, "upcoming(dateAttribute, halfLife)", "1 for now, halving every halfLife into the future; 0 for past dates")
    case .log: (1...1, "log(x)", "natural logarithm of 1 + x")
    case .min: (2...8, "min(a, b, ...)", "the smallest value")
    case .max: (2...8, "max(a, b, ...)", "the largest value")
    case .clamp: (3...3, "clamp(x, low, high)", "x limited to [low, high]")
    case .if: (3...3, "if(condition, a, b)", "a when the condition holds, else b")
    case .coalesce: (2...8, "coalesce(a, b, ...)", "the first value that is present")
    case .distance: (2...2, "distance(latitude, longitude)", "kilometres from the item's latitude/longitude to the point")
    case .abs: (1...1, "abs(x)", "absolute value")
    case .sqrt: (1...1, "sqrt(x)", "square root")
    case .exp: (1...1, "exp(x)", "e raised to x")
    case .year: (1...1, "year(date)", "the year of a date")
    case .month: (1...1, "month(date)", "the month of a date, 1-12")
    case .dayOfMonth: (1...1, "dayOfMonth(date)", "the day of the month, 1-31")
    case .weekday: (1...1, "weekday(date)", "the weekday, 1 = Sunday ... 7 = Saturday")
    case .weekOfYear: (1...1, "weekOfYear(date)", "the ISO week of the year, 1-53")
    case .hour: (1...1, "hour(date)", "the hour, 0-23")
    case .similarity: (1...1, "similarity(\"phrase\")", "cosine similarity (-1 to 1) of the item's embedding to the phrase's; 0 without one")
    }
  }
}
