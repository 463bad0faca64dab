import QueryEngine

/// The names of Apple's `FullArguments` (../shared/reference/spotlight-tool-fullarguments
/// .schema.json), one table per kind, with what each means here. The decoder, the generated
/// schema and the tool's help read these tables, so a name and its meaning are written once.
enum AppleVocabulary {
  /// The kinds of `QueryNode`.
  enum NodeKind: String, CaseIterable {
    case operation, predicate, contentType, temporal, person, personMe, allText, application, documentsFor, semanticSimilar
  }

  /// The kinds of `StageKind`, in the schema's order.
  enum StageKind: String, CaseIterable {
    case query, compute, limit, sampling, hydration, custom, prompted, count, groupBy, valueCount, valueSum, valueAverage, valueMax,
      valueMin, valueMedian, valueStddev, itemSelect, sort, filter, forEach, merge, extractGroupItems

    /// The `stats` function a value stage computes; nil for the other kinds.
    var statistic: String? {
      switch self {
      case .valueSum: "sum"
      case .valueAverage: "avg"
      case .valueMax: "max"
      case .valueMin: "min"
      case .valueMedian: "median"
      case .valueStddev: "stddev"
      default: nil
      }
    }

    /// True for a kind whose meaning needs a language model (a prompt run over the items).
    var needsModel: Bool { self == .prompted }
  }

  /// The operators of a `Predicate`, each with the comparison it is when it orders values.
  enum PredicateOperator: String, CaseIterable {
    case equals, prefix, slowInfix, containsWord, `in`, containsAny, greaterThan, lessThan, greaterThanOrEqual, lessThanOrEqual, range

    /// The ordering comparison of `greaterThan` ... `lessThanOrEqual`; nil for the others.
    var ordering: ComparisonOperator? {
      switch self {
      case .greaterThan: .greater
      case .lessThan: .less
      case .greaterThanOrEqual: .greaterEqual
      case .lessThanOrEqual: .lessEqual
      default: nil
      }
    }

    /// The operator that orders values as `comparison` does (`equals` for `==`); nil for `!=`.
    init?(_ comparison: ComparisonOperator) {
      if comparison == .equal { self = .equals; return }
      guard let match = Self.allCases.first(where: { $0.ordering == comparison }) else { return nil }
      self = match
    }
  }

  /// The logic of an `operation` node.
  enum Logic: String, CaseIterable {
    case all, any, none
  }

  /// The roles of a `PersonPredicate`, with the attributes that hold each role's people.
  enum PersonRole: String, CaseIterable {
    case originator, recipient, participant, any

    var attributes: [String] {
      switch self {
      case .originator: ["authorNames", "authorEmailAddresses"]
      case .recipient: ["recipientNames", "recipientEmailAddresses"]
      case .participant: ["participants", "authorNames", "recipientNames", "editors"]
      case .any: ["authorNames", "authorEmailAddresses", "recipientNames", "recipientEmailAddresses", "participants", "editors"]
      }
    }
  }

  /// The ranking models of a `ModelComposition` (`Model`).
  enum RankingModel: String, CaseIterable {
    case sender, recipient, host, participant, topic, semantic, popularity

    /// The role whose people the model favours; nil for models that rank by other signals.
    var personRole: PersonRole? {
      switch self {
      case .sender, .host: .originator
      case .recipient: .recipient
      case .participant: .participant
      case .topic, .semantic, .popularity: nil
      }
    }
  }

  /// The relative references of a temporal node (`DiscriminatedRelative`), in the schema's
  /// order, each as the `$time` function (and offset in its unit) that names the period.
  enum RelativeReference: String, CaseIterable {
    case now, today, yesterday, thisWeek, thisMonth, thisYear, lastWeek, lastMonth, lastYear, nextWeek, nextMonth

    var timeFunction: (name: String, offset: Double) {
      switch self {
      case .now: ("now", 0)
      case .today: ("today", 0)
      case .yesterday: ("yesterday", 0)
      case .thisWeek: ("this_week", 0)
      case .thisMonth: ("this_month", 0)
      case .thisYear: ("this_year", 0)
      case .lastWeek: ("last_week", 0)
      case .lastMonth: ("last_month", 0)
      case .lastYear: ("last_year", 0)
      case .nextWeek: ("next_week", 0)
      case .nextMonth: ("this_month", 1)
      }
    }
  }

  /// The raw names of a table, in order.
  static func names<Kind: CaseIterable & RawRepresentable>(_ kind: Kind.Type) -> [String] where Kind.RawValue == String {
    Kind.allCases.map(\.rawValue)
  }
}
