import Foundation
import SearchIndex

/// Compiles an `SQLPlan` into SQL over the index tables. Every value from a query reaches
/// SQLite as a bound parameter; text searches reach FTS5 as quoted, escaped strings generated
/// from the syntax tree; string patterns that need more than equality run through `sl_match`,
/// a Swift function backed by `PatternMatcher` (PCRE2 with match limits).
public struct SQLCompiler {
  /// Attribute ids of the index file by name, and which of them hold text.
  public struct AttributeMap: Sendable {
    public var ids: [String: Int64]
    public var textualIDs: [Int64]
    /// Attributes some of whose values are long text (schema version 4 keeps those only in
    /// the record; `vals` has a marker row), with their names and whether they are lists.
    package var longAttributes: [Int64: (name: String, isList: Bool)] = [:]
    /// The full-text column each attribute's text is indexed in (`Schema.ftsColumn`); absent
    /// for one that is not full-text indexed (numbers, dates).
    package var textColumns: [Int64: Int] = [:]
    /// The index that finds one item's values of an attribute: the value table's own key
    /// (schema version 5), or `vals_item` in files of version 4 and earlier read without
    /// migrating.
    package var valueLookupIndex = Schema.valueLookupIndex
    /// The id of the file's only named index, nil when it holds several: then every value
    /// row belongs to one of that index's items (`valueListCount`). Read with the map, once
    /// per generation: a second named index has no values until a write, which starts a new
    /// generation.
    package var soleIndexID: Int64?
    /// Whether the file has `items_type_domain_scope` (readers of files from before it do not).
    package var hasTypeScopeIndex = false
    /// Whether `vals_fold` holds the text as written (`str`, schema version 6): a pattern
    /// then reads it from that index instead of looking up each value's row.
    package var foldIndexHoldsText = false

    public init(ids: [String: Int64], textualIDs: [Int64]) {
      self.ids = ids
      self.textualIDs = textualIDs
    }

    /// Reads the map from the `attributes` table.
    package static func load(_ db: Connection, catalog: AttributeCatalog) throws -> AttributeMap {
      var ids: [String: Int64] = [:]
      var textual: [Int64] = []
      // Files of schema version 3 and earlier (read-only) keep every text in `vals`.
      let hasLong = try db.rows("PRAGMA table_info(attributes)") { $0.string(1) ?? "" }.contains("hasLong")
      var long: [Int64: (name: String, isList: Bool)] = [:]
      var columns: [Int64: Int] = [:]
      for (name, id, isLong) in try db.rows(
        "SELECT name, id, \(hasLong ? "hasLong" : "0") FROM attributes ORDER BY id", [], { ($0.string(0) ?? "", $0.int64(1), $0.int64(2)) })
      {
        ids[name] = id
        let type = catalog.type(of: name)
        if let type, type.isTextual { textual.append(id) }
        if isLong != 0 { long[id] = (name, type?.isList ?? false) }
        if let type, let column = Schema.ftsColumn(for: name, type: type) { columns[id] = column }
      }
      var map = AttributeMap(ids: ids, textualIDs: textual)
      map.longAttributes = long
      map.textColumns = columns
      let indexes = (try? db.rows("SELECT id FROM indexes LIMIT 2") { $0.int64(0) }) ?? []
      map.soleIndexID = indexes.count == 1 ? indexes[0] : nil
      map.hasTypeScopeIndex = try SearchIndex.hasIndex(db, "items_type_domain_scope")
      if try SearchIndex.hasIndex(db, "vals_item") { map.valueLookupIndex = "vals_item" }
      map.foldIndexHoldsText = try db.rows("PRAGMA index_info(vals_fold)") { $0.string(2) ?? "" }.contains("str")
      return map
    }
  }

  /// A compiled statement: SQL, its arguments, and the matchers `sl_match` calls by index.
  public struct Compiled: Sendable {
    public var sql: String
    package var arguments: [SQLValue]
    public var matchers: [PatternMatcher]
    /// True when the rows carry a relevance column from a ranked text search.
    public var ranked: Bool
    /// Item similarities `sl_similarity(slot, rowid)` reads, by slot; items not listed get
    /// the slot's fallback score (keyword matches without a vector).
    package var similarities: [SimilarityTable] = []
    /// True when the statement calls `sl_visible` (`VisibleRowFilter`): the executor sets the
    /// scope's hidden rowids for it before running it.
    package var filtersHiddenRows = false
    /// Arguments built from the index's vocabulary (full-text terms that hold a piece of a
    /// pattern), with what `explain` shows instead: the terms may come from items the caller
    /// cannot see, which leave no trace in what a caller is shown.
    package var undisclosed: [String: String] = [:]
    /// For a sort's index walk (`sortIndexWalk`), the position in `arguments` of the offset
    /// of its last entry: the number of entries it walks, less one.
    package var walkOffsetArgument: Int?

    /// The walk over `entries` entries of the sorted attribute's index instead; nil for a
    /// statement that is no walk.
    package func walking(entries: Int) -> Compiled? {
      guard let position = walkOffsetArgument, arguments.indices.contains(position) else { return nil }
      var wider = self
      wider.arguments[position] = .integer(Int64(max(1, entries) - 1))
      return wider
    }

    /// How many entries the walk reads; nil for a statement that is no walk.
    package var walkedEntries: Int? {
      guard let position = walkOffsetArgument, arguments.indices.contains(position), case .integer(let offset) = arguments[position] else { return nil }
      return Int(offset) + 1
    }
  }

  /// The similarities of one `similar` search, for ranking inside SQLite.
  package struct SimilarityTable: Sendable {
    package var scores: [Int64: Double]
    package var fallback: Double
  }

  /// The resolved hits of the `similar` searches of the plan being compiled (the execution
  /// context resolves them first); a missing entry compiles as no hits (`explain`).
  package var similarHits: [SimilarSearch: SimilarHits] = [:]
  private var similarities: [SimilarityTable] = []
  /// The ranked index's BM25F score of every match of the plan's OR search, by rowid, for a
  /// statement that orders by or carries relevance without being the ranked index's own top k
  /// (a sort by an attribute, a group): set by the execution context so that an item's
  /// relevance is the same whatever stage follows the search (`search "a"s || "b"s` and
  /// `... | sort rating` agree on it). Empty for `explain`; nil where FTS5's bm25 is the
  /// relevance (an AND, a phrase, a file without a current ranked index).
  package var rankedRelevance: [Int64: Double]?

  /// FTS5 column weights for BM25 (title, keywords, description, body, other): titles and
  /// keywords count more than body text.
  public static let columnWeights: [Double] = [4.0, 3.0, 2.0, 1.0, 1.0]

  /// A full-text row's score in a statement with the MATCH (lower is better): `sl_bm25` is
  /// FTS5's bm25() with the rows the caller may not see left out of its statistics
  /// (`VisibleBM25`), the same score when nothing is hidden.
  static let fullTextScore = "sl_bm25(fts, \(columnWeights.map { String($0) }.joined(separator: ", ")))"

  let attributes: AttributeMap
  let scope: AccessScope
  let indexID: Int64
  /// The index's full-text terms that hold a piece of a word (`SearchIndex.fullTextTerms`),
  /// set by the execution context; nil, or a nil answer, leaves long-text patterns to read
  /// every record.
  package var fullTextTerms: ((String) throws -> [String]?)?
  /// The distinct short text values of some attributes, folded and as written, nil past
  /// `distinctValueLimit` (`SearchIndex.distinctTextValues`), set by the execution context;
  /// nil, or a nil answer, leaves patterns to the matcher on every value.
  package var distinctTextValues: (([Int64]) throws -> [(fold: String, text: String)]?)?
  /// At most how many items a text search matches (from the ranked index's document
  /// frequencies), nil when unknown; and how many rows a list of rowids holds, counted up to
  /// a limit. Set by the execution context; without them, value tests beside a text match
  /// are looked up per match.
  package var textMatchBound: ((TextSearch) throws -> Int?)?
  package var listRowsUpTo: ((_ sql: String, _ arguments: [SQLValue], _ limit: Int) throws -> Int)?
  private var matchers: [PatternMatcher] = []
  private var undisclosed: [String: String] = [:]
  /// Whether value tests compile as a lookup per item (`EXISTS (... item = i.rowid ...)`)
  /// rather than as the list of items that pass (`i.rowid IN (SELECT item ...)`): set while
  /// something else drives the statement, so only the driving test's list is built.
  private var correlatesValueTests = false
  /// Whether the statement tests one item (a ranked search's check of a candidate, run again
  /// for each): text searches then look that item up in the full-text index (`rowid = i.rowid`
  /// beside the MATCH, a seek in each term's list) instead of listing every match, which SQLite
  /// does again at every run.
  private var checksOneItem = false
  /// Set while compiling the value test that drives a limited count from FROM
  /// (`drivenLimitedCount`): its lookup is the list itself, `(SELECT item FROM vals ...)`.
  private var listsDrivingValues = false
  /// Whether a sort with a limit on an attribute without bounds walks the attribute's index
  /// (`sortIndexWalk`): the executor compiles the walk and the full sort of every match, and
  /// runs the sort only when the walk's first entries hold fewer matches than the limit.
  package var walksSortIndex = false

  /// How many entries of the sorted attribute's index a walk reads before giving way to the
  /// full sort (and any that tie with the last of them): 20 per result wanted, at least 200.
  /// A walk that succeeds has found the limit's worth of matches among them (the predicate
  /// keeps at least one entry in 20); one that fails has cost those reads, and the full sort
  /// of the few matches follows. A task-local so tests can exercise both outcomes on small
  /// indexes.
  @TaskLocal public static var sortWalkBudget: Int?

  /// The most entries a second, wider walk of a sort reads (`ExecutionContext.widerWalk`).
  static let sortWalkEntryLimit = 64_000

  static func sortWalkEntries(limit: Int) -> Int {
    max(1, sortWalkBudget ?? max(200, 20 * limit))
  }

  public init(attributes: AttributeMap, scope: AccessScope, indexID: Int64) {
    self.attributes = attributes
    self.scope = scope
    self.indexID = indexID
  }

  /// SQL text with its arguments, in order; fragments concatenate with their arguments.
  struct Fragment {
    var sql: String
    var arguments: [SQLValue] = []

    init(_ sql: String, _ arguments: [SQLValue] = []) {
      self.sql = sql
      self.arguments = arguments
    }

    static func + (lhs: Fragment, rhs: Fragment) -> Fragment {
      Fragment(lhs.sql + rhs.sql, lhs.arguments + rhs.arguments)
    }

    static func + (lhs: Fragment, rhs: String) -> Fragment { Fragment(lhs.sql + rhs, lhs.arguments) }
    static func + (lhs: String, rhs: Fragment) -> Fragment { Fragment(lhs + rhs.sql, rhs.arguments) }

    static func joined(_ parts: some Collection<Fragment>, separator: String) -> Fragment {
      var result = Fragment("")
      for (offset, part) in parts.enumerated() {
        if offset > 0 { result.sql += separator }
        result.sql += part.sql
        result.arguments += part.arguments
      }
      return result
    }

    /// Conditions joined by `AND` or `OR`, in nested parentheses when there are many: SQLite
    /// parses a flat chain one level deeper per operator and refuses more than 1,000 levels
    /// (https://www.sqlite.org/limits.html#max_expr_depth), so long chains become a balanced
    /// tree of short ones.
    static func balanced(_ parts: ArraySlice<Fragment>, separator: String) -> Fragment {
      guard parts.count > 16 else { return joined(parts, separator: separator) }
      let middle = parts.startIndex + parts.count / 2
      return "(" + balanced(parts[..<middle], separator: separator) + ")" + separator
        + "(" + balanced(parts[middle...], separator: separator) + ")"
    }
  }

  /// The columns `ItemRow.decode` reads: rowid, the six stored-item columns, relevance.
  static let itemColumns = itemColumns(of: "i")

  /// Set for a Swift stage that reads only these single numbers, dates or flags (attribute
  /// ids): the items statements select the numbers form (`numericItemsQuery`'s columns:
  /// rowid, item fields, engagement, relevance, then each value read from `num`) instead
  /// of the record. `sort latitude desc | limit 10 | table latitude` decompressed and
  /// parsed ten records to show ten numbers.
  package var valueColumns: [ValueColumn]?

  /// An attribute the numbers form selects: its first value, a number (`num`: numbers,
  /// dates, flags) or a short text as written (`coalesce(str, fold)`, never long text, which
  /// only the record holds).
  package struct ValueColumn: Sendable, Hashable {
    package var id: Int64
    package var isText: Bool
  }

  /// The SELECT list of the items `alias` with `relevance`: `itemColumns`, or the numbers
  /// form when `valueColumns` is set.
  private func itemsSelect(of alias: String, relevance: Fragment) -> Fragment {
    guard let valueColumns else { return "SELECT \(Self.itemColumns(of: alias)), " + relevance + " AS relevance" }
    return Self.numbersSelect(of: alias, relevance: relevance, values: valueColumns, itemFields: !valueColumnsAlone)
  }

  /// With `valueColumns`: the item fields left out too (NULL, engagement 0), for a stage that
  /// reads none. A predicate the scope's covering index answers then reads no item row:
  /// `search domainIdentifier == "trails" | score -distance(45.5, -122.7)` looks up values
  /// by rowid alone.
  package var valueColumnsAlone = false

  /// The numbers form's SELECT list of the items `alias`: rowid, item fields, engagement,
  /// `relevance`, then the first value of each attribute of `values`. Without `itemFields`
  /// the fields are NULL and the engagement 0, so no item row need be read.
  static func numbersSelect(of alias: String, relevance: Fragment, values: [ValueColumn], itemFields: Bool = true) -> Fragment {
    let fields = itemFields
      ? "\(alias).id, \(alias).domain, \(alias).contentType, \(alias).expiration, \(alias).protection, \(alias).engagement"
      : "NULL, NULL, NULL, NULL, NULL, 0"
    return "SELECT \(alias).rowid, \(fields), " + relevance + " AS relevance" + numberColumns(values, of: alias)
  }

  /// `, (SELECT num …)` for each attribute of `values`: its first value for the items `alias`.
  static func numberColumns(_ values: [ValueColumn], of alias: String) -> Fragment {
    var columns = Fragment("")
    for value in values {
      let column = value.isText ? valueText("") : "num"
      columns = columns + Fragment(", (SELECT \(column) FROM vals WHERE item = \(alias).rowid AND attr = ? AND ord = 0)", [.integer(value.id)])
    }
    return columns
  }

  /// `itemColumns` of the items aliased `alias`.
  static func itemColumns(of alias: String) -> String {
    ["rowid", "id", "domain", "contentType", "expiration", "protection", "attributes", "engagement"].map { "\(alias).\($0)" }.joined(separator: ", ")
  }

  // MARK: Statements

  /// SELECT of the plan's items (rowid, stored columns, relevance).
  public mutating func itemsQuery(_ plan: SQLPlan) throws(QueryRuntimeError) -> Compiled {
    if let driven = try sortDrivenItemsQuery(plan) { return driven }
    if walksSortIndex, let walk = try matchesOfSortIndexWalk(plan) { return walk }
    if let best = try bestVisibleMatches(plan) { return best }
    var relevance = Fragment("0.0")
    var similarityRanked = false
    if let similar = plan.rankingSimilar {
      let hits = similarHits[similar] ?? SimilarHits(similarities: [:], itemsWithVectors: nil)
      similarities.append(SimilarityTable(scores: hits.similarities, fallback: 1 - similar.maxDistance))
      relevance = Fragment("sl_similarity(?, i.rowid)", [.integer(Int64(similarities.count - 1))])
      similarityRanked = true
    }
    let (from, where_, textRanked) = try fromAndWhere(plan, scored: true)
    if textRanked { relevance = Fragment("-f.score") }
    let ranked = textRanked || similarityRanked
    var statement = itemsSelect(of: "i", relevance: relevance) + " FROM " + from + " WHERE " + where_
    var order: [Fragment] = []
    for key in plan.sort {
      switch key {
      case .relevance: if ranked { order.append(Fragment("relevance DESC")) }
      case .attribute(let target, let descending): order.append(contentsOf: sortExpression(target, descending: descending))
      }
    }
    // Ranked results keep relevance order among equal sort keys, as a stable sort in Swift
    // of the ranked items would.
    if ranked && !plan.sort.contains(.relevance) { order.append(Fragment("relevance DESC")) }
    order.append(Fragment("i.rowid"))
    statement = statement + " ORDER BY " + Fragment.joined(order, separator: ", ")
    if let limit = plan.limit { statement = statement + Fragment(" LIMIT ?", [.integer(Int64(limit))]) }
    return finish(statement, ranked: ranked)
  }

  /// The rowids of the plan's items, for a stage that reads only their positions
  /// (`BoundStage.readsOnlyPositions`): with no column of the row selected, SQLite answers
  /// the scope and the item-level tests from a covering index (`items_domain_type_scope`) instead
  /// of reading every row, which holds the record (`search * | sample 5` at 1M read 3.4 GB).
  /// In rowid order, as `itemsQuery` gives them; without a limit the order is left to the
  /// executor (`sortsRowids`): asked of SQLite, it walks the table to avoid a sort. Nil for
  /// a plan ordered by relevance or an attribute, which `itemsQuery` answers.
  ///
  /// Value tests alone read their items from the value indexes (`visibleListedItems`), as
  /// their count does.
  public mutating func positionsQuery(_ plan: SQLPlan) throws(QueryRuntimeError) -> (Compiled, sortsRowids: Bool)? {
    guard plan.rankingSearch == nil, plan.rankingSimilar == nil, plan.sort.allSatisfy({ $0 == .relevance }), plan.aggregate == nil,
      plan.groupBy == nil
    else { return nil }
    // Value tests alone, in a file of one named index: their lists, no item row read (the
    // general form reads each listed item's row for its scope columns).
    if plan.limit == nil, let (items, condition) = try visibleListedItems(plan) {
      return (finish("SELECT d.item FROM " + items + " d WHERE " + condition, ranked: false), true)
    }
    let (from, where_, _) = try fromAndWhere(plan)
    var statement = "SELECT i.rowid FROM " + from + " WHERE " + where_
    if let limit = plan.limit { statement = statement + Fragment(" ORDER BY i.rowid LIMIT ?", [.integer(Int64(limit))]) }
    return (finish(statement, ranked: false), plan.limit == nil)
  }

  /// Items sorted by one single-valued attribute: the attribute's values are joined once (not
  /// looked up per row), and bounds on the same attribute go on the join, so SQLite can walk
  /// the (attr, num) index in sort order and stop at the limit.
  private mutating func sortDrivenItemsQuery(_ plan: SQLPlan) throws(QueryRuntimeError) -> Compiled? {
    guard plan.rankingSearch == nil, plan.sort.count == 1, case .attribute(let target, let descending) = plan.sort[0],
      case .attribute(let name, let type) = target, !type.isList, let id = attributes.ids[name]
    else { return nil }
    let column = type.isTextual ? "fold" : "num"
    var predicate = plan.predicate
    var join: Fragment
    if !type.isTextual, let (bounds, rest) = Self.extractBounds(on: name, from: predicate) {
      // The bounds imply the value is present: an inner join that can drive the query.
      join = Fragment("JOIN vals s ON s.item = i.rowid AND s.attr = ?", [.integer(id)]) + Self.boundsSQL(bounds, column: "s.num")
      predicate = rest
    } else {
      join = Fragment("LEFT JOIN vals s ON s.item = i.rowid AND s.attr = ? AND s.ord = 0", [.integer(id)])
    }
    let visibility = scope.sqlCondition(alias: "i", indexID: indexID)
    var where_ = Fragment(visibility.sql, visibility.arguments)
    let walks = walksSortIndex && predicate == plan.predicate && plan.limit != nil && (attributes.longAttributes[id] == nil || !type.isTextual)
    // A walk checks each entry's item: a value test listed as `i.rowid IN (...)` would let
    // SQLite drive from that list instead (every email of one sender, 313,000 rows, looked
    // up and sorted at a million items) and walk nothing.
    if let condition = try correlating(walks, { (c: inout SQLCompiler) throws(QueryRuntimeError) in try c.condition(predicate) }) {
      where_ = where_ + " AND (" + condition + ")"
    }
    if walks, let limit = plan.limit {
      let (walk, offsetArgument) = sortIndexWalk(id: id, column: column, descending: descending, where_: where_, limit: limit)
      var compiled = finish(walk, ranked: false)
      compiled.walkOffsetArgument = offsetArgument
      return compiled
    }
    var statement = itemsSelect(of: "i", relevance: Fragment("0.0")) + " FROM items i " + join + " WHERE " + where_
    var key = Fragment("s.\(column)")
    if type.isTextual, let long = attributes.longAttributes[id] {
      key = "coalesce(s.fold, sl_fold(" + Self.recordText(long, values: "s", item: "i") + "))"
    }
    statement = statement + " ORDER BY " + key + " \(descending ? "DESC" : "ASC") NULLS LAST, i.rowid"
    if let limit = plan.limit { statement = statement + Fragment(" LIMIT ?", [.integer(Int64(limit))]) }
    return finish(statement, ranked: false)
  }

  /// Whether `plan` is a sort with a limit that `walksSortIndex` would answer by walking the
  /// sorted attribute's index.
  func canWalkSortIndex(_ plan: SQLPlan) -> Bool {
    guard plan.limit != nil, plan.aggregate == nil, plan.groupBy == nil, plan.rankingSimilar == nil,
      plan.sort.count == 1, case .attribute(let target, _) = plan.sort[0], case .attribute(let name, let type) = target,
      !type.isList, let id = attributes.ids[name], !(type.isTextual && attributes.longAttributes[id] != nil)
    else { return false }
    return type.isTextual || Self.extractBounds(on: name, from: plan.predicate) == nil
  }

  /// The first `limit` matches in the order of one attribute among its index's first
  /// `sortWalkEntries(limit:)` entries: the index walked in order (value, then rowid) down to
  /// the value of the last of those entries (with every entry that shares it) and stopping
  /// at the limit. When that yields `limit` items they are the sort's first `limit`: every
  /// match past the bound, and every match without a value, sorts after them. Fewer, and the
  /// executor runs the full sort instead.
  /// Also the position of the walk's offset among the statement's arguments (`walkBound`'s
  /// second), which a wider walk changes.
  private func sortIndexWalk(id: Int64, column: String, descending: Bool, where_: Fragment, limit: Int) -> (Fragment, offsetArgument: Int) {
    let direction = descending ? "DESC" : "ASC"
    let bound = Self.walkBound("s.\(column)", id: id, column: column, descending: descending, limit: limit)
    let head = itemsSelect(of: "i", relevance: Fragment("0.0")) + Fragment(" FROM vals s CROSS JOIN items i ON i.rowid = s.item WHERE s.attr = ? AND s.ord = 0 AND ", [.integer(id)])
    let walk = head + bound + " AND " + where_ + Fragment(" ORDER BY s.\(column) \(direction), i.rowid LIMIT ?", [.integer(Int64(limit))])
    return (walk, head.arguments.count + 1)
  }

  /// The condition `value` (the walked entry's `column`) reaches the value of the last of the
  /// attribute's first `sortWalkEntries(limit:)` entries in sort order: a scalar subquery
  /// SQLite runs once and uses as the walk's range on the index. With fewer entries, no bound
  /// (-inf or +inf for numbers; for folded text '' sorts before every text and a blob after it).
  static func walkBound(_ value: String, id: Int64, column: String, descending: Bool, limit: Int) -> Fragment {
    let unbounded = column == "num" ? (descending ? "-1e999" : "1e999") : (descending ? "''" : "x'ff'")
    return Fragment(
      "\(value) \(descending ? ">=" : "<=") coalesce((SELECT \(column) FROM vals WHERE attr = ? AND ord = 0 AND \(column) IS NOT NULL ORDER BY \(column) \(descending ? "DESC" : "ASC") LIMIT 1 OFFSET ?), \(unbounded))",
      [.integer(id), .integer(Int64(sortWalkEntries(limit: limit) - 1))])
  }

  /// The statement that reads the items of matches `f` (a subquery of rowid, score and
  /// whatever `order` reads) selecting `columns`: each item read once by rowid, the scope
  /// repeated on it as a guard, in `order` (rowid last).
  private func readingMatches(_ columns: Fragment, of matches: Fragment, order: String, limit: Int?) -> Fragment {
    let visibility = scope.sqlCondition(alias: "o", indexID: indexID)
    return columns + " FROM " + matches + " CROSS JOIN items o ON o.rowid = f.rowid WHERE " + Fragment(visibility.sql, visibility.arguments)
      + " ORDER BY \(order), o.rowid" + (limit.map { Fragment(" LIMIT ?", [.integer(Int64($0))]) } ?? Fragment(""))
  }

  /// The item columns of the items `o` and the relevance of the matches `f`.
  private var matchedItemColumns: Fragment { itemsSelect(of: "o", relevance: Fragment("-f.score")) }

  /// A text search sorted by one attribute (`canWalkSortIndex`), in a file of one named
  /// index: the attribute's first `sortWalkEntries(limit:)` index entries in order (and every
  /// entry that ties with the last) are read once into a list SQLite indexes, the visible
  /// matches drive as always and each probes it, and the matches among the entries are
  /// scored and ordered by the value, then relevance, then rowid. As with `sortIndexWalk`,
  /// when that yields `limit` items they are the sort's first `limit`, and the executor runs
  /// the full sort otherwise. The first
  /// 125 of 250,000 matches of a frequent word at 1M need a few thousand entries, where the
  /// full sort looks up the value of every match. (FTS5 probed by rowid for each entry, with
  /// the entries driving, cost about 0.2 ms a probe: slower than the full sort.)
  private mutating func matchesOfSortIndexWalk(_ plan: SQLPlan) throws(QueryRuntimeError) -> Compiled? {
    guard let limit = plan.limit, plan.sort.count == 1, case .attribute(let target, let descending) = plan.sort[0],
      case .attribute(let name, let type) = target, !type.isList, let id = attributes.ids[name],
      !(type.isTextual && attributes.longAttributes[id] != nil)
    else { return nil }
    return try asVisibleMatches(plan) { (c: inout SQLCompiler) throws(QueryRuntimeError) -> Compiled? in
      let (from, where_, _) = try c.fromAndWhere(plan, scored: true)
      let column = type.isTextual ? "fold" : "num"
      let direction = descending ? "DESC" : "ASC"
      // The entries: a list SQLite builds once and probes per match (`+` keeps FTS5 from
      // taking it as rowids to look up one by one). The value of the few matches among them
      // is looked up after.
      let entries = Fragment(" AND +i.rowid IN (SELECT item FROM vals WHERE attr = ? AND ord = 0 AND \(column) IS NOT NULL AND ", [.integer(id)])
        + Self.walkBound(column, id: id, column: column, descending: descending, limit: limit) + ")"
      let walked = Fragment("(SELECT i.rowid, i.score, (SELECT \(column) FROM vals WHERE item = i.rowid AND attr = ? AND ord = 0) AS k0 FROM ", [.integer(id)])
        + from + " WHERE " + where_ + entries + Fragment(" ORDER BY k0 \(direction), i.score, i.rowid LIMIT ?) f", [.integer(Int64(limit))])
      return c.finish(
        c.readingMatches(c.matchedItemColumns, of: walked, order: "f.k0 \(direction), relevance DESC", limit: limit), ranked: true)
    }
  }

  /// The first `limit` matches of a text search in the plan's order (relevance, or sort keys
  /// with relevance breaking ties), cut before any item is read (`asVisibleMatches`): the
  /// match is scored, the rest of the predicate tested on its rowids, the sort keys looked up
  /// by rowid, and only the items returned are fetched (the scope repeated on them as a
  /// guard). Read through the items, every match cost a random read of its row, and a sort
  /// carried every match's record through SQLite's sorter (58,000 matches of "budget review"
  /// at 1M: a quarter of a second for the best ten). Nil for a plan without a limit.
  private mutating func bestVisibleMatches(_ plan: SQLPlan) throws(QueryRuntimeError) -> Compiled? {
    guard let limit = plan.limit, plan.aggregate == nil else { return nil }
    return try asVisibleMatches(plan) { (c: inout SQLCompiler) throws(QueryRuntimeError) -> Compiled? in
      let (from, where_, _) = try c.fromAndWhere(plan, scored: true)
      // The items are `o`: `i` is the match here. -score DESC is score ASC; the keys are
      // selected as k0, k1, … and ordered the same way on both sides; rowid breaks ties.
      var keys = Fragment("")
      var inner: [Fragment] = []
      var outer: [String] = []
      for key in plan.sort {
        switch key {
        case .relevance:
          inner.append(Fragment("i.score"))
          outer.append("relevance DESC")
        case .attribute(let target, let descending):
          guard let value = c.sortKey(target) else { continue }
          let name = "k\(outer.count)"
          let direction = descending ? "DESC" : "ASC"
          keys = keys + ", " + value + " AS \(name)"
          inner.append(Fragment("\(name) \(direction) NULLS LAST"))
          outer.append("f.\(name) \(direction) NULLS LAST")
        }
      }
      if !plan.sort.contains(.relevance) {
        inner.append(Fragment("i.score"))
        outer.append("relevance DESC")
      }
      let best = "(SELECT i.rowid, i.score" + keys + " FROM " + from + " WHERE " + where_ + " ORDER BY "
        + Fragment.joined(inner, separator: ", ") + Fragment(", i.rowid LIMIT ?) f", [.integer(Int64(limit))])
      return c.finish(c.readingMatches(c.matchedItemColumns, of: best, order: outer.joined(separator: ", "), limit: limit), ranked: true)
    }
  }

  /// The visible matches of a text search in relevance order with their item fields,
  /// engagement, relevance and the first value of each attribute of `values` (ids, each read
  /// from `num`), but not their records: for a Swift stage that reads only those numbers
  /// (`freshness`, `score` of relevance and dates), so a quarter of a million matches are
  /// not carried through SQLite's sorter with their records and decoded. Columns: rowid, id,
  /// domain, contentType, expiration, protection, engagement, relevance, then the values;
  /// without `itemFields` the item columns are NULL (engagement 0) and no item row is read.
  /// Nil unless the plan is a text search ordered by relevance alone, in a file of one
  /// named index (`asVisibleMatches`).
  package mutating func numericItemsQuery(_ plan: SQLPlan, values: [ValueColumn], itemFields: Bool = true) throws(QueryRuntimeError) -> Compiled? {
    guard plan.aggregate == nil, plan.groupBy == nil, plan.sort.allSatisfy({ $0 == .relevance }) else { return nil }
    return try asVisibleMatches(plan) { (c: inout SQLCompiler) throws(QueryRuntimeError) -> Compiled? in
      let (from, where_, _) = try c.fromAndWhere(plan, scored: true)
      let limit = plan.limit.map { Fragment(" LIMIT ?", [.integer(Int64($0))]) } ?? Fragment("")
      // Ordered inside only to cut at the limit; the statement orders its rows.
      let cut = plan.limit == nil ? Fragment("") : " ORDER BY i.score, i.rowid" + limit
      let matches = "(SELECT i.rowid, i.score FROM " + from + " WHERE " + where_ + cut + ") f"
      guard itemFields else {
        // The visible matches are the scope's already: no item row to read.
        return c.finish(
          Self.numbersSelect(of: "f", relevance: Fragment("-f.score"), values: values, itemFields: false) + " FROM " + matches
            + " ORDER BY relevance DESC, f.rowid" + limit,
          ranked: true)
      }
      let columns = Self.numbersSelect(of: "o", relevance: Fragment("-f.score"), values: values)
      return c.finish(c.readingMatches(columns, of: matches, order: "relevance DESC", limit: plan.limit), ranked: true)
    }
  }

  /// Set while `asVisibleMatches` compiles a statement: `fromAndWhere` then reads the visible
  /// matches of the text search as the items `i`.
  private var matchesStandForItems = false
  /// True while compiling a statement that reads no relevance though its plan has no
  /// aggregate (`groupCountsQuery`): `fromAndWhere` may join the AND's text searches.
  private var relevanceUnread = false

  /// The statement of `body` with the visible matches of the plan's text search standing for
  /// its items, in a file of one named index: `(SELECT rowid FROM fts WHERE fts MATCH ? AND
  /// sl_visible(rowid)) i`, the scope's hidden rowids taken out of the match
  /// (`VisibleRowFilter`) instead of reading every matching item's row for its scope columns
  /// (a count of "budget review" at 1M: 58,000 random reads of rows that hold records, 0.2 s
  /// against 18 ms). Every full-text row is then an item of this index, and value tests are
  /// lookups by its rowid. Nil when the plan has no text search to drive it, or when the
  /// statement reads anything of an item but its rowid (a domain, a long text's record):
  /// the general form runs then.
  private mutating func asVisibleMatches(
    _ plan: SQLPlan, _ body: (inout SQLCompiler) throws(QueryRuntimeError) -> Compiled?
  ) throws(QueryRuntimeError) -> Compiled? {
    guard !matchesStandForItems, attributes.soleIndexID == indexID, plan.rankingSearch != nil, plan.rankingSimilar == nil else { return nil }
    var attempt = self
    attempt.matchesStandForItems = true
    guard let compiled = try body(&attempt), Self.readsOnlyMatchColumns(compiled.sql) else { return nil }
    attempt.matchesStandForItems = false
    self = attempt
    return compiled
  }

  /// True when every column `sql` reads of `i` is one a visible match has (`rowid`, `score`),
  /// no item row goes by that alias, and the match is the statement's only one: SQLite merges
  /// the match's subquery into the statement around it, where another full-text test (in an
  /// OR) would be a second MATCH on the same table, which FTS5 cannot plan.
  static func readsOnlyMatchColumns(_ sql: String) -> Bool {
    guard Self.occurrences(of: "fts MATCH", in: sql) == 1 else { return false }
    let bytes = Array(sql.utf8)
    func isNamePart(_ byte: UInt8) -> Bool {
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
    }
    var position = 0
    while position + 1 < bytes.count {
      defer { position += 1 }
      guard bytes[position] == UInt8(ascii: "i"), bytes[position + 1] == UInt8(ascii: "."),
        position == 0 || !isNamePart(bytes[position - 1])
      else { continue }
      let name = String(decoding: bytes[(position + 2)...].prefix(while: isNamePart), as: UTF8.self)
      if name != "rowid" && name != "score" { return false }
    }
    return Self.occurrences(of: "items i ", in: sql) == 0 && Self.occurrences(of: "items i)", in: sql) == 0
  }

  /// Lower and upper bounds on one attribute's number.
  struct Bounds {
    var lower: (value: Double, inclusive: Bool)?
    var upper: (value: Double, inclusive: Bool)?

    mutating func add(_ kind: AttributeTest.Kind) -> Bool {
      switch kind {
      case .compare(.greater, let v): raise((v, false))
      case .compare(.greaterEqual, let v): raise((v, true))
      case .compare(.less, let v): lowerUpper((v, false))
      case .compare(.lessEqual, let v): lowerUpper((v, true))
      case .compare(.equal, let v): raise((v, true)); lowerUpper((v, true))
      case .within(let start, let end): raise((start, true)); lowerUpper((end, false))
      case .range(let low, let high): raise((low, true)); lowerUpper((high, true))
      default: return false
      }
      return true
    }

    private mutating func raise(_ bound: (Double, Bool)) {
      if let lower, lower.value > bound.0 || (lower.value == bound.0 && !lower.inclusive) { return }
      lower = (bound.0, bound.1)
    }

    private mutating func lowerUpper(_ bound: (Double, Bool)) {
      if let upper, upper.value < bound.0 || (upper.value == bound.0 && !upper.inclusive) { return }
      upper = (bound.0, bound.1)
    }
  }

  /// Bounds on a single-valued attribute from the positive tests of a top-level AND, and the
  /// predicate without them; nil when there are none.
  static func extractBounds(on name: String, from predicate: BoundExpression) -> (Bounds, BoundExpression)? {
    let parts: [BoundExpression]
    if case .and(let list) = predicate { parts = list } else { parts = [predicate] }
    var bounds = Bounds()
    var rest: [BoundExpression] = []
    var found = false
    for part in parts {
      if case .test(let test) = part, !test.negated, case .attribute(let attribute, let type) = test.target,
        attribute == name, !type.isList, bounds.add(test.kind)
      {
        found = true
      } else {
        rest.append(part)
      }
    }
    guard found else { return nil }
    return (bounds, rest.isEmpty ? .matchAll : (rest.count == 1 ? rest[0] : .and(rest)))
  }

  static func boundsSQL(_ bounds: Bounds, column: String) -> Fragment {
    var sql = Fragment("")
    if let lower = bounds.lower { sql = sql + Fragment(" AND \(column) \(lower.inclusive ? ">=" : ">") ?", [.real(lower.value)]) }
    if let upper = bounds.upper { sql = sql + Fragment(" AND \(column) \(upper.inclusive ? "<=" : "<") ?", [.real(upper.value)]) }
    if bounds.lower == nil && bounds.upper == nil { sql = sql + " AND \(column) IS NOT NULL" }
    return sql
  }

  /// SELECT count(*) of the plan's items.
  public mutating func countQuery(_ plan: SQLPlan) throws(QueryRuntimeError) -> Compiled {
    if let matched = try asVisibleMatches(plan, { (c: inout SQLCompiler) throws(QueryRuntimeError) in try c.countQuery(plan) }) {
      return matched
    }
    if let limit = plan.limit, let driven = try drivenLimitedCount(plan, limit: limit) { return driven }
    if plan.limit == nil, let listed = try valueListCount(plan) { return listed }
    let (from, where_, _) = try fromAndWhere(plan)
    if let limit = plan.limit {
      return finish("SELECT count(*) FROM (SELECT i.rowid FROM " + from + " WHERE " + where_ + Fragment(" LIMIT ?)", [.integer(Int64(limit))]), ranked: false)
    }
    return finish("SELECT count(*) FROM " + from + " WHERE " + where_, ranked: false)
  }

  /// A count of at most `limit` items (`| limit 1 | count`: the built-in planner asks so
  /// whether a reading finds anything) whose most selective value test drives from FROM:
  /// its index is walked and the walk stops at the limit. As `i.rowid IN (SELECT item ...)`
  /// SQLite built the whole list first (2,463 rows for one state of the 100k bench items,
  /// to find one). DISTINCT: an item with two values that pass is counted once. Nil when no
  /// value test can drive (then the general form runs).
  private mutating func drivenLimitedCount(_ plan: SQLPlan, limit: Int) throws(QueryRuntimeError) -> Compiled? {
    guard plan.rankingSearch == nil, plan.rankingSimilar == nil else { return nil }
    let parts = Self.flatten(plan.predicate)
    let ranked = parts.indices.compactMap { index in Self.drivingRank(parts[index]).map { (index, $0) } }
    guard let driver = ranked.min(by: { $0.1 < $1.1 })?.0, case .test(let test) = parts[driver] else { return nil }
    let list = try listing { (c: inout SQLCompiler) throws(QueryRuntimeError) in try c.positiveCondition(test) }
    // A test that long values could pass is an OR with a read of the records: not a list.
    guard list.sql.hasPrefix("(SELECT item FROM vals WHERE ") else { return nil }
    var rest = parts
    rest.remove(at: driver)
    let visibility = scope.sqlCondition(alias: "i", indexID: indexID)
    var where_ = Fragment(visibility.sql, visibility.arguments)
    let condition = try correlating(true) { (c: inout SQLCompiler) throws(QueryRuntimeError) in
      try c.condition(rest.isEmpty ? .matchAll : (rest.count == 1 ? rest[0] : .and(rest)))
    }
    if let condition { where_ = where_ + " AND (" + condition + ")" }
    return finish(
      "SELECT count(*) FROM (SELECT DISTINCT i.rowid FROM " + list + " d CROSS JOIN items i ON i.rowid = d.item WHERE " + where_
        + Fragment(" LIMIT ?)", [.integer(Int64(limit))]), ranked: false)
  }

  /// A count whose tests are all value tests that list their items (`rating >= 4.5`,
  /// `keywords == "hike" && stateOrProvince == "Utah"`), in a file that holds no other named
  /// index: the lists come from the value indexes alone, intersected, and the rows the scope
  /// hides are left out by rowid (`sl_visible`, `VisibleRowFilter`). No item is read: the
  /// general form looked up every match's item for its scope columns, a random read of a row
  /// that holds the record (208,000 matches of a million items: 3.5 s). Every value row
  /// belongs to an item of the file, and with one named index, to an item of this one. Nil
  /// when a part cannot be listed (then the general form runs).
  ///
  /// A content-type equality beside them (`contentType == "note" && keywords == "budget"`, the
  /// built-in planner's count of a collection) is a probe of `items_type_domain_scope` by (index,
  /// type, rowid) per listed item: an entry of a small index instead of the item's row.
  private mutating func valueListCount(_ plan: SQLPlan) throws(QueryRuntimeError) -> Compiled? {
    guard let (items, condition) = try visibleListedItems(plan) else { return nil }
    return finish("SELECT count(*) FROM " + items + " d WHERE " + condition, ranked: false)
  }

  /// The visible items of a plan whose tests are all value tests that list their items, read
  /// from the value indexes alone (`valueListCount`): `(SELECT [DISTINCT] item FROM (lists))`,
  /// each item once, and the condition on them as `d` (`sl_visible(d.item)`, type probes); nil
  /// when a part cannot be listed.
  private mutating func visibleListedItems(_ plan: SQLPlan) throws(QueryRuntimeError) -> (items: Fragment, condition: Fragment)? {
    var probes: [Fragment] = []
    var valueParts: [BoundExpression] = []
    for part in Self.flatten(plan.predicate) {
      if let probe = try contentTypeProbe(part, item: "d.item") {
        probes.append(probe)
      } else {
        valueParts.append(part)
      }
    }
    var valuePlan = plan
    valuePlan.predicate = valueParts.count == 1 ? valueParts[0] : .and(valueParts)
    guard !valueParts.isEmpty, let lists = try valueLists(valuePlan), !lists.isEmpty else { return nil }
    let typed = probes.isEmpty ? Fragment("") : " AND " + Fragment.joined(probes, separator: " AND ")
    // An intersection holds each item once; a single list names an item once per value
    // that passes, unless the attribute holds one value per item.
    let distinct = lists.count == 1 && Self.mayRepeatItems(valueParts[0]) ? "DISTINCT " : ""
    return ("(SELECT \(distinct)item FROM (" + Fragment.joined(lists, separator: " INTERSECT ") + "))", "\(VisibleRowFilter.name)(d.item)" + typed)
  }

  /// Whether the list of a value test may name an item more than once: the test is not on a
  /// single-valued attribute (whose item has one value row).
  static func mayRepeatItems(_ part: BoundExpression) -> Bool {
    guard case .test(let test) = part, case .attribute(_, let type) = test.target else { return true }
    return type.isList
  }

  /// `EXISTS` an entry of `items_type_domain_scope` for the item `item` with the content type that
  /// `part` (a positive `contentType == "..."` equality) names; nil for any other part, or a
  /// file without that index.
  private mutating func contentTypeProbe(_ part: BoundExpression, item: String) throws(QueryRuntimeError) -> Fragment? {
    guard attributes.hasTypeScopeIndex, Self.testsForOneValue(.contentType, part), case .test(let test) = part else { return nil }
    let condition = try itemFieldCondition("t.contentType", test.kind)
    // Only an equality uses the index's (index, type, rowid) order for the probe.
    guard condition.sql == "(t.contentType IS NOT NULL AND t.contentType = ?)" else { return nil }
    return Fragment("EXISTS (SELECT 1 FROM items t INDEXED BY items_type_domain_scope WHERE t.indexId = ? AND t.rowid = \(item) AND ", [.integer(indexID)])
      + condition + ")"
  }

  /// The items of each test of `plan` as `SELECT item FROM vals WHERE ...`, when the file
  /// holds this named index only and every test is a value test that lists its items (none
  /// for `search *`); nil otherwise. Every value row then belongs to an item of this index,
  /// so these lists less the scope's hidden rows are the plan's items, without reading one.
  private mutating func valueLists(_ plan: SQLPlan) throws(QueryRuntimeError) -> [Fragment]? {
    guard attributes.soleIndexID == indexID, plan.rankingSearch == nil, plan.rankingSimilar == nil else { return nil }
    let tests = Self.flatten(plan.predicate)
    guard tests.allSatisfy({ Self.drivingRank($0) != nil }) else { return nil }
    // Two bounds on one attribute are one range of its index, not two lists intersected (a
    // year of modification dates at a million items: each bound alone lists 700,000 items).
    let (ranges, parts) = mergedRanges(tests)
    var lists: [Fragment] = ranges.map { range in
      let lookup = listing { (c: inout SQLCompiler) in c.valueLookup(attributeIDs: [range.id]) } + Self.boundsSQL(range.bounds, column: "num")
      return Fragment(String(lookup.sql.dropFirst()), lookup.arguments)
    }
    for part in parts {
      guard case .test(let test) = part else { return nil }
      let list = try listing { (c: inout SQLCompiler) throws(QueryRuntimeError) in try c.positiveCondition(test) }
      // A test that long values could pass is an OR with a read of the records: not a list.
      guard list.sql.hasPrefix("(SELECT item FROM vals WHERE "), list.sql.hasSuffix(")") else { return nil }
      lists.append(Fragment(String(list.sql.dropFirst().dropLast()), list.arguments))
    }
    return lists
  }

  /// Runs `body` with `listsDrivingValues` set.
  private mutating func listing<T, E: Error>(_ body: (inout SQLCompiler) throws(E) -> T) throws(E) -> T {
    let saved = (listsDrivingValues, correlatesValueTests)
    (listsDrivingValues, correlatesValueTests) = (true, false)
    defer { (listsDrivingValues, correlatesValueTests) = saved }
    return try body(&self)
  }

  /// SELECT key, count per value of `target` (an item joins each of its values' groups).
  public mutating func groupCountQuery(_ plan: SQLPlan, by target: AttributeTarget) throws(QueryRuntimeError) -> Compiled {
    if let matched = try asVisibleMatches(plan, { (c: inout SQLCompiler) throws(QueryRuntimeError) in try c.groupCountQuery(plan, by: target) }) {
      return matched
    }
    if let listed = try valueListGroupCount(plan, by: target) { return listed }
    let (from, where_, driven) = try fromAndWhere(plan)
    if case .itemField(let field) = target {
      let column = Self.groupColumn(field, plan)
      // `items_domain_type_scope` and `items_type_domain_scope` hold the scope's columns, so the groups
      // come from one index in key order without reading a record.
      return finish("SELECT \(column), count(*) FROM " + from + " WHERE " + where_ + " AND \(column) IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1", ranked: false)
    }
    let (join, key) = try valueJoin(target, alias: "g")
    // An item has one value row of a single-valued attribute, so count(*) counts its items
    // without the temporary B-tree of count(DISTINCT); a list-valued one may repeat a value.
    var counted = "count(DISTINCT i.rowid)"
    if case .attribute(_, let type) = target, !type.isList { counted = "count(*)" }
    return finish("SELECT " + key + ", \(counted) FROM " + from + " " + Self.keepingOrder(join, driven) + " WHERE " + where_ + " GROUP BY 1 ORDER BY 2 DESC, 1", ranked: false)
  }

  /// The group counts of several attributes over the items of `plan`, as one statement whose
  /// rows are (the target's position, key, count), ordered by position, then as
  /// `groupCountQuery` orders one target's. For a plan whose items are read: each target's
  /// own statement runs a text search again and looks up every match, or reads every item of
  /// a domain again (a search page's facets at a million items: six statements over the same
  /// 170,000 matches); here the visible items and their item fields are read once into a
  /// materialized table that every group reads. Nil for value tests alone or every item (each
  /// target's statement reads the value indexes, which a table of the items would only slow),
  /// a `similar` search, and an attribute whose long values are read from the record.
  public mutating func groupCountsQuery(_ plan: SQLPlan, by targets: [AttributeTarget]) throws(QueryRuntimeError) -> Compiled? {
    guard targets.count > 1, plan.rankingSimilar == nil, !plan.predicate.usesEmbeddings,
      plan.aggregate == nil, plan.groupBy == nil, plan.limit == nil
    else { return nil }
    if plan.rankingSearch == nil, try valueLists(plan) != nil { return nil }
    var fields: [String] = []
    var groups: [Fragment] = []
    for (position, target) in targets.enumerated() {
      switch target {
      case .itemField(let field):
        let column = Self.itemColumn(field)
        if !fields.contains(column) { fields.append(column) }
        groups.append(Fragment("SELECT \(position), \(column), count(*) FROM m i WHERE \(column) IS NOT NULL GROUP BY 2"))
      case .attribute(let name, let type):
        if type.isTextual, let id = attributes.ids[name], attributes.longAttributes[id] != nil { return nil }
        let (join, key) = try valueJoin(target, alias: "g")
        // As in `groupCountQuery`: one value row per item of a single-valued attribute.
        let counted = type.isList ? "count(DISTINCT i.rowid)" : "count(*)"
        let lookups = Fragment("SELECT \(position), ") + key + ", \(counted) FROM "
        let lookedUp = "m i " + Self.keepingOrder(join, true) + " GROUP BY 2"
        guard type.isTextual, attributes.foldIndexHoldsText, let id = attributes.ids[name] else {
          groups.append(lookups + lookedUp)
          continue
        }
        // An attribute with fewer values than a few times the matches is cheaper to walk in
        // its `(attr, fold, str)` index, keeping the values of matches, than to look up in
        // every match (0.2 against 1.2 microseconds a row; a trail's country over 170,000
        // matches of a million items: 45 ms against 214). The statement decides once, from
        // the matches' count and the attribute's values counted up to a few times that, in a
        // one-row table that drives the branch taken and is empty for the other (as a WHERE
        // term, SQLite tests it on each row of a loop it still runs).
        let walks = Fragment("(SELECT count(*) FROM (SELECT 1 FROM vals WHERE attr = ? AND fold IS NOT NULL LIMIT (SELECT \(Self.valueWalkFactor) * count(*) FROM m)))", [.integer(id)])
          + " < (SELECT \(Self.valueWalkFactor) * count(*) FROM m)"
        // LIMIT keeps SQLite from merging the one-row table into the statement around it.
        groups.append(lookups + "(SELECT 1 WHERE NOT " + walks + " LIMIT 1) w CROSS JOIN " + lookedUp)
        groups.append(
          Fragment("SELECT \(position), \(Self.valueText("g.")), \(type.isList ? "count(DISTINCT g.item)" : "count(*)") FROM (SELECT 1 WHERE ")
            + walks + Fragment(" LIMIT 1) w CROSS JOIN vals g INDEXED BY vals_fold WHERE g.attr = ? AND g.fold IS NOT NULL", [.integer(id)])
            + " AND g.item IN (SELECT rowid FROM m) GROUP BY g.fold, g.str")
      case .anyText, .anyAttribute:
        return nil
      }
    }
    relevanceUnread = true
    defer { relevanceUnread = false }
    let (from, where_, _) = try fromAndWhere(plan)
    // `i.domain AS domain`: each group reads the table as `i`, with the columns' own names.
    let columns = (["i.rowid AS rowid"] + fields.map { "\($0) AS \($0.dropFirst(2))" }).joined(separator: ", ")
    let matches = "WITH m AS MATERIALIZED (SELECT \(columns) FROM " + from + " WHERE " + where_ + ") "
    return finish(matches + Fragment.joined(groups, separator: " UNION ALL ") + " ORDER BY 1, 3 DESC, 2", ranked: false)
  }

  /// How many values an attribute may have per match of a text search for `groupCountsQuery`
  /// to walk its values rather than look them up in each match. A task-local so that tests
  /// can have either way taken.
  @TaskLocal package static var valueWalkFactor = 4

  /// The numbers form (rowids, relevance, `values`; no item field) of every visible match of
  /// a text search that is the plan's only test, listed by the ranked index in rank order:
  /// `rowids`, a JSON array of them, drives, and `rankedRelevance` gives their relevance. The
  /// rows come in the array's order (json_each's, with nothing to reorder them), the order of
  /// `numericItemsQuery`'s `ORDER BY relevance DESC, rowid`, without the full-text scan and
  /// the sort of every match.
  package mutating func numericItemsOfListing(_ rowids: String, values: [ValueColumn]) -> Compiled {
    similarities.append(SimilarityTable(scores: rankedRelevance ?? [:], fallback: 0))
    let relevance = Fragment("sl_similarity(?, f.rowid)", [.integer(Int64(similarities.count - 1))])
    return finish(
      Self.numbersSelect(of: "f", relevance: relevance, values: values, itemFields: false)
        + Fragment(" FROM (SELECT value AS rowid FROM json_each(?)) f", [.text(rowids)]),
      ranked: true)
  }

  /// A group count by an attribute over value tests alone (or every item), in a file that
  /// holds this named index only: the groups come from the attribute's values, their items
  /// kept when they are in every test's list and not hidden, so no item row is read (the
  /// general form read every item of `search *` for its scope columns: 14 s for the keywords
  /// of a million items). Nil when the plan or the attribute needs the items (long values).
  private mutating func valueListGroupCount(_ plan: SQLPlan, by target: AttributeTarget) throws(QueryRuntimeError) -> Compiled? {
    guard case .attribute(let name, let type) = target, let id = attributes.ids[name],
      !(type.isTextual && attributes.longAttributes[id] != nil), let lists = try valueLists(plan)
    else { return nil }
    let key = type.isTextual ? Self.valueText("g.") : "g.num"
    // Every value of a number or date attribute has its number, and every short text its
    // folded form: said so, the values come from the covering (attr, num) or (attr, fold,
    // str) index in key order (1M items' ratings: 1.2 s to 0.11 s) instead of a scan of every
    // value. Texts are grouped by their written form, `coalesce(str, fold)`: the same groups
    // as (fold, str), which is that index's order.
    var where_ = Fragment("g.attr = ? AND g.\(type.isTextual ? "fold" : "num") IS NOT NULL", [.integer(id)])
    for list in lists { where_ = where_ + " AND g.item IN (" + list + ")" }
    where_ = where_ + " AND \(VisibleRowFilter.name)(g.item)"
    // An item has one value row of a single-valued attribute; a list-valued one may repeat a value.
    let counted = type.isList ? "count(DISTINCT g.item)" : "count(*)"
    let grouping = type.isTextual ? "g.fold, g.str" : "1"
    return finish("SELECT \(key), \(counted) FROM vals g WHERE " + where_ + " GROUP BY \(grouping) ORDER BY 2 DESC, 1", ranked: false)
  }

  /// The SQL aggregate of a statistic over `value` (a column, or 1 for items).
  static func aggregate(_ request: StatisticRequest, of value: String) -> String {
    switch request.function {
    case .count: request.target == nil ? "count(DISTINCT i.rowid)" : "count(\(value))"
    case .sum: "sum(\(value))"
    case .avg: "avg(\(value))"
    case .min: "min(\(value))"
    case .max: "max(\(value))"
    // The executor computes these from the values: the median needs them in order, and the
    // one-pass sum-of-squares formula for the deviation loses every digit on values as large
    // as dates (seconds since 1970) that lie close together.
    case .median, .stddev: value
    }
  }

  /// The FROM and WHERE clauses of an aggregate over the plan's items, the join that reads
  /// the group's key (an item joins each of its values' groups), and the key (NULL without a
  /// group); true when the full-text match drives.
  private mutating func groupedSource(
    _ plan: SQLPlan, by group: AttributeTarget?
  ) throws(QueryRuntimeError) -> (from: Fragment, where_: Fragment, driven: Bool, joins: Fragment, key: Fragment) {
    if let group, let listed = try valueListGroupSource(plan, by: group) {
      let (join, key) = try valueJoin(group, alias: "g")
      return (listed, Fragment("1"), false, " " + join, key)
    }
    let (from, where_, driven) = try fromAndWhere(plan)
    guard let group else { return (from, where_, driven, Fragment(""), Fragment("NULL")) }
    if case .itemField(let field) = group { return (from, where_, driven, Fragment(""), Fragment(Self.groupColumn(field, plan))) }
    let (join, key) = try valueJoin(group, alias: "g")
    return (from, where_, driven, " " + Self.keepingOrder(join, driven), key)
  }

  /// The items of statistics grouped by an attribute, over value tests alone (or every item)
  /// in a one-index file, as `(SELECT rowid FROM (SELECT item AS rowid FROM vals WHERE attr =
  /// ? ... INTERSECT lists) WHERE sl_visible(rowid)) i`: the items that have the attribute,
  /// pass every test's list and are not hidden, from the value indexes (only they can join a
  /// group). The general form read every
  /// visible item and looked up its values (`stats avg(rating) by stateOrProvince` over a
  /// million items: 4.6 s). Nil when the plan needs the items, or the attribute has long values.
  private mutating func valueListGroupSource(_ plan: SQLPlan, by group: AttributeTarget) throws(QueryRuntimeError) -> Fragment? {
    guard case .attribute(let name, let type) = group, let id = attributes.ids[name],
      !(type.isTextual && attributes.longAttributes[id] != nil), let lists = try valueLists(plan)
    else { return nil }
    // Every value of an attribute without long ones has its folded text or its number: said
    // so, the items come from the attribute's covering partial index, not a scan of every value.
    let having = Fragment("SELECT item AS rowid FROM vals WHERE attr = ? AND \(type.isTextual ? "fold" : "num") IS NOT NULL", [.integer(id)])
    let visible = " \(VisibleRowFilter.name)(rowid)"
    guard !lists.isEmpty else {
      // An item has one value row of a single-valued attribute, several of a list-valued one.
      return "(SELECT \(type.isList ? "DISTINCT " : "")* FROM (" + having + ") WHERE" + visible + ") i"
    }
    // The intersection yields each item once.
    return "(SELECT rowid FROM (" + Fragment.joined([having] + lists, separator: " INTERSECT ") + ") WHERE" + visible + ") i"
  }

  /// The statistic over the plan's items, per value of `group` when given. For `median` and
  /// `stddev` the statement returns the ordered values and the executor computes them; by a
  /// group, a group whose items lack the attribute comes as one row with a NULL value.
  public mutating func statisticQuery(
    _ plan: SQLPlan, _ request: StatisticRequest, by group: AttributeTarget?
  ) throws(QueryRuntimeError) -> Compiled {
    if let matched = try asVisibleMatches(plan, { (c: inout SQLCompiler) throws(QueryRuntimeError) in try c.statisticQuery(plan, request, by: group) }) {
      return matched
    }
    let (from, where_, driven, groupJoin, groupKey) = try groupedSource(plan, by: group)
    var joins = groupJoin
    // A median or a deviation by an attribute lists every group's values, and the groups
    // whose items lack the attribute as one NULL row (first in their group): a LEFT JOIN, so
    // no second statement, joining every item's group value again, is needed to list them.
    // By an item's field (domain, type) that statement reads a covering index: cheaper than
    // a row for every item without the attribute.
    let listsEveryGroup = Self.listsEveryGroup(request, by: group)
    let join = listsEveryGroup ? "LEFT JOIN" : driven ? "CROSS JOIN" : "JOIN"
    var value = "1"
    if let target = request.target {
      guard case .attribute(let name, let type) = target, type.isOrdered || type.scalar == .bool else {
        throw QueryRuntimeError("\(request.function.rawValue) needs a number or date attribute")
      }
      if let id = attributes.ids[name] {
        joins = joins + Fragment(" \(join) vals s ON s.item = i.rowid AND s.attr = ?", [.integer(id)])
      } else {
        joins = joins + " \(join) vals s ON 0"  // no item has the attribute
      }
      value = "s.num"
    }
    let aggregate = Self.aggregate(request, of: value)
    let statement: Fragment
    if request.function == .median || request.function == .stddev {
      // Without a group the key is NULL: ordered by the value alone, the rows come in the
      // order of the (attr, num) index that finds them, with no sort of a million values.
      // Listing every group, the key fragment stands twice, so its arguments do too.
      let kept = listsEveryGroup ? groupKey + " IS NOT NULL" : Fragment("\(value) IS NOT NULL")
      let order = group == nil ? "2" : "1, 2"
      statement = "SELECT " + groupKey + ", \(value) FROM " + from + joins + " WHERE " + where_ + " AND " + kept + " ORDER BY \(order)"
    } else if group != nil {
      // The key fragment stands twice, so its arguments do too, each in its place.
      statement = "SELECT " + groupKey + ", \(aggregate) FROM " + from + joins + " WHERE " + where_ + " AND " + groupKey + " IS NOT NULL GROUP BY 1 ORDER BY 1"
    } else {
      statement = "SELECT NULL, \(aggregate) FROM " + from + joins + " WHERE " + where_
    }
    return finish(statement, ranked: false)
  }

  /// Whether `statisticQuery`'s statement for `request` by `group` lists the groups whose
  /// items lack the attribute itself (a median or a deviation by an attribute).
  public static func listsEveryGroup(_ request: StatisticRequest, by group: AttributeTarget?) -> Bool {
    guard case .attribute? = group else { return false }
    return request.function == .median || request.function == .stddev
  }

  /// Several statistics over the plan's items in one statement (one column each, after the
  /// group key), or nil when they cannot share one: a median or a deviation needs its values
  /// in order, and a list-valued attribute would count an item once per element beside the
  /// others. Each attribute is a LEFT JOIN, so an item without it still counts for the rest.
  /// One statistic by a group takes this form too: the LEFT JOIN keeps the groups whose
  /// items lack the attribute, which `statisticQuery`'s statement would need a second
  /// statement (the groups' counts) to list.
  public mutating func statisticsQuery(
    _ plan: SQLPlan, _ requests: [StatisticRequest], by group: AttributeTarget?
  ) throws(QueryRuntimeError) -> Compiled? {
    guard requests.count > 1 || group != nil else { return nil }
    if let matched = try asVisibleMatches(plan, { (c: inout SQLCompiler) throws(QueryRuntimeError) in try c.statisticsQuery(plan, requests, by: group) }) {
      return matched
    }
    var targets: [String] = []
    for request in requests {
      guard request.function != .median, request.function != .stddev else { return nil }
      guard let target = request.target else { continue }
      guard case .attribute(let name, let type) = target, !type.isList, type.isOrdered || type.scalar == .bool else { return nil }
      if !targets.contains(name) { targets.append(name) }
    }
    let (from, where_, _, groupJoin, groupKey) = try groupedSource(plan, by: group)
    var joins = groupJoin
    var columns: [String: String] = [:]
    for (offset, name) in targets.enumerated() {
      let alias = "s\(offset)"
      if let id = attributes.ids[name] {
        joins = joins + Fragment(" LEFT JOIN vals \(alias) ON \(alias).item = i.rowid AND \(alias).attr = ?", [.integer(id)])
        columns[name] = "\(alias).num"
      } else {
        columns[name] = "NULL"  // no item has the attribute
      }
    }
    let aggregates = requests.map { request -> String in
      let value = request.target.flatMap { target -> String? in
        if case .attribute(let name, _) = target { return columns[name] }
        return nil
      } ?? "1"
      return Self.aggregate(request, of: value)
    }.joined(separator: ", ")
    let statement: Fragment
    if group != nil {
      // The key fragment stands twice, so its arguments do too, each in its place.
      statement = "SELECT " + groupKey + ", \(aggregates) FROM " + from + joins + " WHERE " + where_ + " AND " + groupKey + " IS NOT NULL GROUP BY 1 ORDER BY 1"
    } else {
      statement = "SELECT NULL, \(aggregates) FROM " + from + joins + " WHERE " + where_
    }
    return finish(statement, ranked: false)
  }

  /// How many times `text` occurs in `sql`, not overlapping, compared byte for byte (Foundation's
  /// `contains` compares with locale rules: 7% of the time of a small query went there).
  static func occurrences(of text: String, in sql: String) -> Int {
    var sql = sql
    var text = text
    return sql.withUTF8 { haystack in
      text.withUTF8 { needle in
        guard let first = needle.first, haystack.count >= needle.count else { return 0 }
        var count = 0
        var start = 0
        let last = haystack.count - needle.count
        scan: while start <= last {
          defer { start += 1 }
          guard haystack[start] == first else { continue }
          for offset in 1..<needle.count where haystack[start + offset] != needle[offset] { continue scan }
          count += 1
          start += needle.count - 1
        }
        return count
      }
    }
  }

  mutating func finish(_ fragment: Fragment, ranked: Bool) -> Compiled {
    var compiled = Compiled(sql: fragment.sql, arguments: fragment.arguments, matchers: matchers, ranked: ranked)
    compiled.filtersHiddenRows = Self.occurrences(of: VisibleRowFilter.name + "(", in: fragment.sql) > 0
    compiled.similarities = similarities
    compiled.undisclosed = undisclosed
    matchers = []
    similarities = []
    undisclosed = [:]
    return compiled
  }

  // MARK: FROM and WHERE

  /// The FROM clause (driven by the FTS5 match when a text search ranks the results) and the
  /// WHERE clause (visibility, then the predicate); true when the FROM clause is driven by
  /// the full-text match.
  ///
  /// The match always drives: its rowids are the outer loop (`CROSS JOIN` fixes SQLite's
  /// join order, https://www.sqlite.org/optoverview.html#crossjoin), and items are looked up
  /// by rowid. As the inner side of a join FTS5 would run the match once per item. `bm25()`
  /// can only be read in the statement that has the MATCH, so with `scored` the subquery
  /// returns it as `f.score` (lower is better).
  ///
  /// Where no relevance is read (an aggregate, `groupCountsQuery`), the other text searches
  /// of the AND join the match (`("lake") AND ("trail")`): FTS5 intersects their lists,
  /// where each was a list of every match probed per item (`search "lake" && "trail" |
  /// count` at 1M: 275 against 14 ms). A relevance is the ranking search's BM25 alone, so
  /// statements that read it keep them apart.
  private mutating func fromAndWhere(_ plan: SQLPlan, scored: Bool = false) throws(QueryRuntimeError) -> (Fragment, Fragment, Bool) {
    var from = Fragment("items i")
    var predicate = plan.predicate
    var ranked = false
    if let search = plan.rankingSearch {
      var match = Self.matchExpression(search)
      predicate = plan.predicateWithoutRankingSearch
      if !scored, plan.aggregate != nil || relevanceUnread {
        var kept: [BoundExpression] = []
        for part in Self.flatten(predicate) {
          guard case .textSearch(let other) = part else {
            kept.append(part)
            continue
          }
          match = "(" + match + ") AND (" + Self.matchExpression(other) + ")"
        }
        predicate = kept.isEmpty ? .matchAll : (kept.count == 1 ? kept[0] : .and(kept))
      }
      var score = Fragment(scored ? ", \(Self.fullTextScore) AS score" : "")
      if scored, let relevance = rankedRelevance {
        // FTS5's scores are negative, lower first; relevance is `-score`.
        similarities.append(SimilarityTable(scores: relevance, fallback: 0))
        score = Fragment(", -sl_similarity(?, rowid) AS score", [.integer(Int64(similarities.count - 1))])
      }
      if matchesStandForItems {
        from = "(SELECT rowid" + score + Fragment(" FROM fts WHERE fts MATCH ? AND \(VisibleRowFilter.name)(rowid)) i", [.text(match)])
      } else {
        from = "(SELECT rowid" + score + Fragment(" FROM fts WHERE fts MATCH ?) f CROSS JOIN items i ON i.rowid = f.rowid", [.text(match)])
      }
      ranked = true
    } else if let similar = plan.rankingSimilar {
      // The few candidates of the vector scan drive the statement (CROSS JOIN fixes the
      // order), instead of every item of the index probing the candidate list.
      from = "(" + similarCandidates(similar) + ") s CROSS JOIN items i ON i.rowid = s.rowid"
      predicate = plan.predicateWithoutRankingSimilar
    }
    let visibility = scope.sqlCondition(alias: "i", indexID: indexID)
    // The visible matches are the scope's already (`asVisibleMatches`).
    var where_ = ranked && matchesStandForItems ? Fragment("1") : Fragment(visibility.sql, visibility.arguments)
    // With a text match or a vector scan driving, every value test is a lookup per item,
    // except those whose list of items is short beside the text's matches.
    let driven = plan.rankingSearch != nil || plan.rankingSimilar != nil
    let listed = try plan.rankingSearch.map { search throws(QueryRuntimeError) in try listedBeside(search, predicate) } ?? []
    let looked = listed.isEmpty ? predicate
      : .and(Self.flatten(predicate).enumerated().filter { part in !listed.contains { $0.part == part.offset } }.map(\.element))
    let lookups = try correlating(driven, { (c: inout SQLCompiler) throws(QueryRuntimeError) in try c.condition(looked) })
    let pieces = listed.map(\.list) + (lookups.map { [$0] } ?? [])
    if !pieces.isEmpty {
      // Parenthesized: a top-level OR must not escape the visibility condition before it.
      where_ = where_ + " AND (" + Fragment.balanced(pieces.map { "(" + $0 + ")" }[...], separator: " AND ") + ")"
    }
    return (from, where_, ranked)
  }

  /// The fewest matches a text search must have for the tests beside it to be listed rather
  /// than looked up per match (a lookup costs about a microsecond).
  static let listingMatchFloor = 2_000

  /// The parts of `predicate` (an AND's, or itself: their offsets) beside the driving text
  /// `search` whose items are listed once (`i.rowid IN (…)`) instead of looked up for each
  /// match: value tests read from an index without the pattern matcher (equality, ranges,
  /// prefixes, the matching values of an attribute with few), whose list holds at most half
  /// as many rows as the text can match (`search "launch"s | people "Sam Ortiz"`: 14,450
  /// items listed beside 260,000 matches, where each match looked two values up). The bound
  /// on the matches is the ranked index's document frequencies (a word's for an AND, their
  /// sum for an OR); the rows are counted up to half of it. Both count hidden items, which
  /// the statement leaves out as before: they change how it runs, not what it finds.
  private mutating func listedBeside(_ search: TextSearch, _ predicate: BoundExpression) throws(QueryRuntimeError) -> [(part: Int, list: Fragment)] {
    guard !correlatesValueTests, let textMatchBound, let listRowsUpTo else { return [] }
    let bound: Int?
    do { bound = try textMatchBound(search) } catch { throw QueryRuntimeError("estimating the text's matches: \(error)") }
    guard let bound, bound >= Self.listingMatchFloor else { return [] }
    var listed: [(part: Int, list: Fragment)] = []
    for (offset, part) in Self.flatten(predicate).enumerated() where try listsWithoutMatcher(part) {
      let savedMatchers = matchers.count
      guard let piece = try condition(part), let list = Self.rowidList(piece), matchers.count == savedMatchers else {
        matchers.removeLast(matchers.count - savedMatchers)
        continue
      }
      let rows: Int
      do { rows = try listRowsUpTo(list.sql, list.arguments, bound / 2 + 1) } catch { throw QueryRuntimeError("counting a test's items: \(error)") }
      // `+`: the list is probed for each match, not handed to FTS5 as rowids to seek one by one.
      if rows <= bound / 2 { listed.append((offset, "+" + piece)) }
    }
    return listed
  }

  /// Whether `part`'s items are listed from an index without calling the pattern matcher:
  /// positive value tests of numbers and dates, texts the (attr, fold) index answers, or
  /// the matching values of attributes with few (`distinctValuesMatching`), and ORs of them.
  private mutating func listsWithoutMatcher(_ part: BoundExpression) throws(QueryRuntimeError) -> Bool {
    switch part {
    case .or(let parts):
      for part in parts where !(try listsWithoutMatcher(part)) { return false }
      return !parts.isEmpty
    case .test(let test):
      guard !test.negated, case .attribute(let name, _) = test.target else { return false }
      guard let id = attributes.ids[name] else { return true }  // no item has it: no list at all
      switch test.kind {
      case .compare, .within, .range: return true
      case .present: return false
      case .match(let pattern):
        if Self.foldIndexAnswers(pattern) { return true }  // (those that call the matcher are not listed)
        return try distinctValues(of: [id]) != nil
      }
    default:
      return false
    }
  }

  /// A join after a FROM clause the full-text match drives, as a `CROSS JOIN`: SQLite keeps
  /// the tables of a CROSS JOIN in the written order, so the join cannot become the outer
  /// loop and put the match on the inner side.
  static func keepingOrder(_ join: Fragment, _ driven: Bool) -> Fragment {
    guard driven, join.sql.hasPrefix("JOIN ") else { return join }
    return "CROSS " + join
  }

  /// The SQL condition for a stored-only predicate; nil for "always true".
  mutating func condition(_ expression: BoundExpression) throws(QueryRuntimeError) -> Fragment? {
    switch expression {
    case .matchAll: return nil
    case .constant(let value): return value.truth ? nil : Fragment("0")
    case .not(let inner):
      // What is excluded is looked up per item: its list would hold every item that has it.
      let excluded = try correlating(true) { (c: inout SQLCompiler) throws(QueryRuntimeError) in try c.condition(inner) }
      return "NOT (" + (excluded ?? Fragment("1")) + ")"
    case .and(let parts):
      // Bounds on one single-valued attribute become one index range, not one lookup each.
      let (ranges, remaining) = mergedRanges(parts)
      // The most selective value test drives (its items are listed once); the others are
      // looked up per item. A merged range counts as a closed or open range.
      let rangeRanks = ranges.map { $0.bounds.lower != nil && $0.bounds.upper != nil ? 2 : 3 }
      let ranks = rangeRanks.map(Optional.some) + remaining.map(Self.drivingRank)
      let driver = correlatesValueTests ? nil : ranks.indices.filter { ranks[$0] != nil }.min { ranks[$0]! < ranks[$1]! }
      var pieces: [Fragment] = []
      for (offset, range) in ranges.enumerated() {
        let piece = correlating(offset != driver) { (c: inout SQLCompiler) in c.valueLookup(attributeIDs: [range.id]) }
        pieces.append("(" + piece + Self.boundsSQL(range.bounds, column: "num") + "))")
      }
      for (offset, part) in remaining.enumerated() {
        let position = ranges.count + offset
        let correlate = ranks[position] != nil && position != driver
        if let piece = try correlating(correlate, { (c: inout SQLCompiler) throws(QueryRuntimeError) in try c.condition(part) }) {
          pieces.append("(" + piece + ")")
        }
      }
      return pieces.isEmpty ? nil : Fragment.balanced(pieces[...], separator: " AND ")
    case .or(let parts):
      var pieces: [Fragment] = []
      for part in parts {
        guard let piece = try condition(part) else { return nil }
        // A test of an attribute no item has is false (`0`): it adds nothing to an OR.
        if piece.sql != "0" { pieces.append(piece) }
      }
      if pieces.count <= 1 { return pieces.first ?? Fragment("0") }
      // Lists of items (value tests, text searches) joined into one list: SQLite looks the
      // items of the union up by rowid instead of reading every item to test each list
      // (`people "alex"` over a million items read them all).
      // (A compound SELECT has at most 500 terms in SQLite.)
      let lists = pieces.compactMap(Self.rowidList)
      if lists.count == pieces.count, lists.count > 1, lists.count <= 100 {
        // UNION ALL: the list of an IN is a set already; a UNION built a second one to drop
        // the duplicates first (half the cost of an author's 313,000 items at 1M).
        let union = Fragment.joined(lists.map { "SELECT * FROM (" + $0 + ")" }[...], separator: " UNION ALL ")
        return "i.rowid IN (" + union + ")"
      }
      return Fragment.balanced(pieces.map { "(" + $0 + ")" }[...], separator: " OR ")
    case .textSearch(let search):
      if checksOneItem {
        return Fragment("EXISTS (SELECT 1 FROM fts WHERE fts MATCH ? AND rowid = i.rowid)", [.text(Self.matchExpression(search))])
      }
      return Fragment("i.rowid IN (SELECT rowid FROM fts WHERE fts MATCH ?)", [.text(Self.matchExpression(search))])
    case .similar(let search):
      return "i.rowid IN (" + similarCandidates(search) + ")"
    case .test(let test):
      // The visible matches have no columns but their rowid: a type is probed in its index.
      if matchesStandForItems, let probe = try contentTypeProbe(expression, item: "i.rowid") { return probe }
      // An excluded value is checked per item: its list would hold every item that has it.
      let positive = try correlating(correlatesValueTests || test.negated, { (c: inout SQLCompiler) throws(QueryRuntimeError) in
        try c.positiveCondition(test)
      })
      return test.negated ? "NOT (" + positive + ")" : positive
    default:
      throw QueryRuntimeError("internal: expression cannot run in SQLite")
    }
  }

  /// The subquery of a condition that is exactly `i.rowid IN (subquery)`; nil otherwise.
  static func rowidList(_ condition: Fragment) -> Fragment? {
    let head = "i.rowid IN ("
    guard condition.sql.hasPrefix(head), condition.sql.hasSuffix(")") else { return nil }
    // The parenthesis after IN must close at the end (quoted text skipped).
    var depth = 0
    var quoted = false
    let bytes = Array(condition.sql.utf8)
    for (offset, byte) in bytes.enumerated() where offset >= head.utf8.count - 1 {
      if byte == UInt8(ascii: "'") { quoted.toggle(); continue }
      guard !quoted else { continue }
      if byte == UInt8(ascii: "(") { depth += 1 }
      if byte == UInt8(ascii: ")") {
        depth -= 1
        if depth == 0 { return offset == bytes.count - 1 ? Fragment(String(decoding: bytes[head.utf8.count..<offset], as: UTF8.self), condition.arguments) : nil }
      }
    }
    return nil
  }

  /// The bounds that two or more tests of an AND's `parts` put on one single-valued ordered
  /// attribute, merged into one range each (`date >= a && date < b` is one range of its
  /// index), and the parts left. A list-valued attribute keeps its tests apart: two of its
  /// values may pass one bound each.
  func mergedRanges(_ parts: [BoundExpression]) -> (ranges: [(id: Int64, bounds: Bounds)], rest: [BoundExpression]) {
    var remaining = parts
    var ranges: [(id: Int64, bounds: Bounds)] = []
    for part in parts {
      guard case .test(let test) = part, !test.negated, case .attribute(let name, let type) = test.target, !type.isList,
        type.isOrdered, let id = attributes.ids[name], !ranges.contains(where: { $0.id == id }),
        let (bounds, rest) = Self.extractBounds(on: name, from: .and(remaining))
      else { continue }
      let count = remaining.count - (Self.flatten(rest).count)
      guard count > 1 else { continue }
      ranges.append((id, bounds))
      remaining = Self.flatten(rest)
    }
    return (ranges, remaining)
  }

  /// The parts of an AND (one part otherwise).
  static func flatten(_ expression: BoundExpression) -> [BoundExpression] {
    switch expression {
    case .and(let parts): parts
    case .matchAll: []
    default: [expression]
    }
  }

  /// The rowids a `similar` search matches: the nearest items from the vector scan (bound as
  /// a JSON array), and items without a vector that match the keywords.
  func similarCandidates(_ search: SimilarSearch) -> Fragment {
    let hits = similarHits[search]?.similarities.keys.sorted() ?? []
    let list = "[" + hits.map(String.init).joined(separator: ",") + "]"
    guard let keywords = search.keywords else {
      return Fragment("SELECT value AS rowid FROM json_each(?)", [.text(list)])
    }
    return Fragment(
      "SELECT value AS rowid FROM json_each(?) UNION SELECT f.rowid FROM fts f WHERE fts MATCH ? AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.item = f.rowid)",
      [.text(list), .text(Self.matchExpression(keywords))])
  }

  // MARK: Attribute tests

  private mutating func positiveCondition(_ test: AttributeTest) throws(QueryRuntimeError) -> Fragment {
    switch test.target {
    case .itemField(let field):
      return try itemFieldCondition(Self.itemColumn(field), test.kind)
    case .anyAttribute:
      if case .present = test.kind { return Fragment("1") }
      var pieces = ["(" + (try valuesCondition(attributeIDs: attributes.textualIDs, test.kind)) + ")"]
      if case .match = test.kind {
        for field in [AttributeTarget.ItemField.domainIdentifier, .contentType, .uniqueIdentifier] {
          pieces.append("(" + (try itemFieldCondition(Self.itemColumn(field), test.kind)) + ")")
        }
      }
      return Fragment.balanced(pieces[...], separator: " OR ")
    case .anyText:
      return try valuesCondition(attributeIDs: attributes.textualIDs, test.kind)
    case .attribute(let name, _):
      return try valuesCondition(attributeIDs: attributes.ids[name].map { [$0] } ?? [], test.kind)
    }
  }

  /// `i.rowid IN (SELECT item FROM vals WHERE attr ... AND <value test>)`, and for a string
  /// pattern that long text could match, the same test on the long values read from records.
  private mutating func valuesCondition(attributeIDs: [Int64], _ kind: AttributeTest.Kind) throws(QueryRuntimeError) -> Fragment {
    guard !attributeIDs.isEmpty else { return Fragment("0") }  // no item has the attribute
    var sql = valueLookup(attributeIDs: attributeIDs)
    switch kind {
    case .present: break
    case .compare(let op, let value): sql = sql + Fragment(" AND num \(op == .equal ? "=" : op.rawValue) ?", [.real(value)])
    case .within(let start, let end): sql = sql + Fragment(" AND num >= ? AND num < ?", [.real(start), .real(end)])
    case .range(let low, let high): sql = sql + Fragment(" AND num >= ? AND num <= ?", [.real(low), .real(high)])
    case .match(let pattern):
      // A pattern that the (attr, fold) index cannot answer tests every value of the
      // attributes: where they have few distinct values, the matching ones are listed
      // (`distinctValuesMatching`) and found in the index; otherwise the full-text index
      // lists the items whose text can hold a match first (`title == "window"w` at a million
      // items: 4.4 s). Not for a lookup per item.
      // (Looked up per item in one statement, the values that match are tested on the item's
      // values too: no matcher call per item. A check of one item, run again for each,
      // calls the matcher rather than build the lists each time.)
      let indexAnswers = Self.foldIndexAnswers(pattern)
      if !indexAnswers, !checksOneItem, let values = try distinctValuesMatching(attributeIDs, pattern) {
        sql = sql + " AND " + values
      } else {
        // Listing items, the text as written is read through the table's key only for rows the
        // index-only tests (`fold` ranges, `instr`) let through: named directly, SQLite reads
        // the row of every index entry first (a `WITHOUT ROWID` table has no deferred seek:
        // `people` read 115k rows for 1.5k candidates, 0.7 s instead of 0.05 s).
        // Files whose `vals_fold` holds `str` (version 6) give the text from that index.
        let text = correlatesValueTests || attributes.foldIndexHoldsText
          ? Self.valueText("") : "(SELECT " + Self.valueText("w.") + " FROM vals w WHERE w.item = vals.item AND w.attr = vals.attr AND w.ord = vals.ord)"
        sql = sql + " AND " + (try stringMatch(pattern, column: text, foldColumn: "fold"))
        if !correlatesValueTests, !indexAnswers, let items = try fullTextNarrowing(attributeIDs, pattern, shortValues: true) {
          sql = sql + " AND item IN (" + items + ")"
        }
      }
      sql = sql + ")"
      // The attributes whose long values (markers) the pattern could match.
      let long = attributeIDs.filter { id in
        guard let attribute = attributes.longAttributes[id] else { return false }
        return Self.canMatchLongText(pattern) || Schema.longTextAttributes.contains(attribute.name)
      }
      guard !long.isEmpty else { return sql }
      return "(" + sql + " OR " + (try longValuesCondition(long, pattern)) + ")"
    }
    return sql + ")"
  }

  /// The start of a value test, up to its value condition and without the closing
  /// parenthesis: the items that have a value (`i.rowid IN (SELECT item FROM vals WHERE
  /// attr = ?`), or, when `correlatesValueTests`, a lookup of this item's values.
  private func valueLookup(attributeIDs: [Int64]) -> Fragment {
    let attr = attributeIDs.count == 1 ? "attr = ?" : "attr IN (\(attributeIDs.map { _ in "?" }.joined(separator: ", ")))"
    // The (item, attr) lookup (the table's key), named: SQLite would otherwise walk the
    // (attr, num) or (attr, fold) index for each item, testing every value of the attribute
    // in range.
    let head = correlatesValueTests
      ? "EXISTS (SELECT 1 FROM vals INDEXED BY \(attributes.valueLookupIndex) WHERE item = i.rowid AND "
      : (listsDrivingValues ? "(SELECT item FROM vals WHERE " : "i.rowid IN (SELECT item FROM vals WHERE ")
    return Fragment(head + attr, attributeIDs.map(SQLValue.integer))
  }

  /// Runs `body` compiling a check of one item (`checksOneItem`, and value tests correlated).
  mutating func checkingOneItem<T, E: Error>(_ body: (inout SQLCompiler) throws(E) -> T) throws(E) -> T {
    let saved = checksOneItem
    checksOneItem = true
    defer { checksOneItem = saved }
    return try correlating(true, body)
  }

  /// Runs `body` with `correlatesValueTests` set when `value` (or already set).
  mutating func correlating<T, E: Error>(_ value: Bool, _ body: (inout SQLCompiler) throws(E) -> T) throws(E) -> T {
    let saved = correlatesValueTests
    correlatesValueTests = saved || value
    defer { correlatesValueTests = saved }
    return try body(&self)
  }

  /// How likely a part of an AND is to select few items when its value list drives the
  /// statement (lower is better); nil for parts that are not value tests. Equality is
  /// rarest, then prefixes, closed ranges, open ranges, presence, and patterns.
  static func drivingRank(_ part: BoundExpression) -> Int? {
    guard case .test(let test) = part, !test.negated else { return nil }
    switch test.target {
    case .itemField: return nil
    case .anyText, .anyAttribute: return 5
    case .attribute: break
    }
    switch test.kind {
    case .compare(.equal, _): return 0
    case .match(let pattern):
      if pattern.isWholeValue, pattern.exactText != nil { return 0 }
      return pattern.literalPrefix.isEmpty ? 5 : 1
    case .within, .range: return 2
    case .compare: return 3
    case .present: return 4
    }
  }

  /// Whether `pattern` can match a long text by its length. A whole-value comparison with a
  /// text matches only values that fold to what the text folds to (`fold` is the coarsest of
  /// the modifiers), and every value whose folded form is short is in `vals`, except those of
  /// `Schema.longTextAttributes`, which are long whatever their length.
  static func canMatchLongText(_ pattern: MatchPattern) -> Bool {
    guard pattern.isWholeValue, let exact = pattern.exactText else { return true }
    return TextFolding.fold(exact).utf8.count > Schema.longTextBytes
  }

  /// Items whose long values of `attributeIDs` (marker rows in `vals`) match `pattern`,
  /// tested on the text in the record.
  private mutating func longValuesCondition(_ attributeIDs: [Int64], _ pattern: MatchPattern) throws(QueryRuntimeError) -> Fragment {
    matchers.append(try PatternMatcher(pattern))
    let slot = SQLValue.integer(Int64(matchers.count - 1))
    var tests: [Fragment] = []
    for id in attributeIDs {
      guard let attribute = attributes.longAttributes[id] else { continue }
      tests.append(Fragment("(v.attr = ? AND sl_match(?, ", [.integer(id), slot]) + Self.recordText(attribute, values: "v", item: "r") + "))")
    }
    let attrs = Fragment("v.attr IN (\(attributeIDs.map { _ in "?" }.joined(separator: ", ")))", attributeIDs.map(SQLValue.integer))
    let test = attrs + " AND \(Schema.longTextMarker("v")) AND (" + Fragment.joined(tests, separator: " OR ") + ")"
    // Only the records of the items whose full text can hold a match are read (every record
    // of the attribute otherwise: 63,000 package descriptions for one exact description, 150 ms).
    guard let items = try fullTextNarrowing(attributeIDs, pattern) else {
      return "i.rowid IN (SELECT v.item FROM vals v JOIN items r ON r.rowid = v.item WHERE " + test + ")"
    }
    return "i.rowid IN (SELECT v.item FROM (" + items + ") f CROSS JOIN vals v ON v.item = f.rowid CROSS JOIN items r ON r.rowid = v.item WHERE "
      + test + ")"
  }

  /// The full-text search (`SELECT rowid FROM fts WHERE fts MATCH ?`, in the attributes'
  /// columns) that every item with a value of `attributeIDs` matching `pattern` passes: the
  /// words every match holds, and one of the terms that hold a piece of a word (`"*review
  /// budg*"`: `budg*` and a term holding `review`; `"granite*"cdw`: a term holding
  /// `granite`). Nil when nothing narrows, or when an attribute's text is not in the
  /// full-text index. Short values narrow by a piece only: a common word would list more
  /// items than the value index holds values to scan.
  ///
  /// The terms come from the whole index, hidden items included, so what a caller is shown
  /// must not depend on them: `explain` shows the piece, not the terms, and a piece that no
  /// term holds is searched as a term of its own (which finds nothing) rather than planned
  /// differently.
  private mutating func fullTextNarrowing(_ attributeIDs: [Int64], _ pattern: MatchPattern, shortValues: Bool = false) throws(QueryRuntimeError) -> Fragment? {
    let columns = attributeIDs.compactMap { attributes.textColumns[$0] }
    guard !columns.isEmpty, columns.count == attributeIDs.count else { return nil }
    let words = shortValues ? [] : Self.wordsEveryMatchHolds(pattern)
    var parts: [String] = []
    var shown: [String] = []
    if !words.isEmpty {
      let expression = Self.matchExpression(TextSearch(terms: words, requireAll: true))
      parts.append(expression)
      shown.append(expression)
    }
    // A whole word narrows enough: the vocabulary is read only without one.
    if !words.contains(where: { !$0.isPrefix }), let (piece, terms) = try termsHoldingAPiece(of: pattern) {
      let searched = terms.isEmpty ? [piece] : terms
      parts.append("(" + Self.matchExpression(TextSearch(terms: searched.map { TextSearch.Term(text: $0, isPrefix: false) }, requireAll: false)) + ")")
      shown.append("(the index's terms holding \"\(piece)\")")
    }
    guard !parts.isEmpty else { return nil }
    let names = "{" + Set(columns).sorted().map { Schema.ftsColumns[$0] }.joined(separator: " ") + "} : "
    let match = names + "(" + parts.joined(separator: " AND ") + ")"
    if shown != parts { undisclosed[match] = names + "(" + shown.joined(separator: " AND ") + ")" }
    return Fragment("SELECT rowid FROM fts WHERE fts MATCH ?", [.text(match)])
  }

  /// The most distinct values attributes may have for `distinctValuesMatching` to list them:
  /// one or two index seeks each (about 2 µs), so attributes with more cost a few milliseconds
  /// before the full-text narrowing takes over.
  static let distinctValueLimit = 1_024

  /// The distinct short text values of `attributeIDs` (`distinctTextValues`); nil when they
  /// have more than `distinctValueLimit`, or the file's (attr, fold) index lacks the text.
  private func distinctValues(of attributeIDs: [Int64]) throws(QueryRuntimeError) -> [(fold: String, text: String)]? {
    guard attributes.foldIndexHoldsText, let distinctTextValues else { return nil }
    do { return try distinctTextValues(attributeIDs) } catch { throw QueryRuntimeError("reading the distinct values: \(error)") }
  }

  /// The values of `attributeIDs` that `pattern` matches, as a test of the (attr, fold, str)
  /// index's columns: their folded forms, found by the index, and their texts as written,
  /// checked on it (`fold IN (…) AND coalesce(str, fold) IN (…)`: a value's folded form
  /// follows from its text, so the pair is exact). Where the attributes have few distinct
  /// values (the names on a mailbox's messages: a third of a million items hold one of 31
  /// names, and the full-text index narrows to all of them), the matcher runs once per
  /// distinct value instead of once per item. Nil when the attributes have more than
  /// `distinctValueLimit` values, or the file's index lacks the text.
  ///
  /// The values come from the whole index, hidden items included, so `explain` shows what
  /// they are, not them.
  private mutating func distinctValuesMatching(_ attributeIDs: [Int64], _ pattern: MatchPattern) throws(QueryRuntimeError) -> Fragment? {
    guard let values = try distinctValues(of: attributeIDs) else { return nil }
    let matcher = try PatternMatcher(pattern)
    let matching = values.filter { matcher.matches($0.text) }
    func list(_ texts: [String]) -> String {
      // Distinct by their bytes, as SQLite compares them: Swift's `==` takes the Kelvin sign
      // for a `K`, and a decomposed accent for a precomposed one.
      var seen = Set<[UInt8]>()
      let list = JSONValue.array(texts.filter { seen.insert(Array($0.utf8)).inserted }.map { .string($0) }).compactText
      undisclosed[list] = "(the values that match)"
      return list
    }
    return Fragment(
      "fold IN (SELECT value FROM json_each(?)) AND " + Self.valueText("") + " IN (SELECT value FROM json_each(?))",
      [.text(list(matching.map(\.fold))), .text(list(matching.map(\.text)))])
  }

  /// Whether the (attr, fold) index finds the values `pattern` matches by their key: an
  /// equality or a literal start of the whole value.
  static func foldIndexAnswers(_ pattern: MatchPattern) -> Bool {
    pattern.isWholeValue && (pattern.exactText != nil || !pattern.literalPrefix.isEmpty)
  }

  /// The most terms a piece of a word may find in the vocabulary and still narrow a long-text
  /// pattern (beside the terms that may have been cut, `SearchIndex.cutTermLimit`): an OR of
  /// more costs FTS5 about what reading the records costs.
  static let pieceTermLimit = 500

  /// The full-text terms of which a text that `pattern` matches holds at least one: those
  /// containing its longest piece (`"*rederi*"` finds `frederic`, `frederick`, `alfrederico`);
  /// nil when it narrows nothing (pieces shorter than three characters, too many terms, or no
  /// vocabulary to read).
  ///
  /// A piece is a run of ASCII letters and digits in `requiredFoldedRuns`: the folded text holds
  /// it, and the tokenizer cuts words only at characters that are not letters or digits (an
  /// apostrophe it drops only joins them), so one word's folded token holds it, unless the word
  /// was longer than the longest token: `fullTextTerms` adds every term that may have been cut.
  private func termsHoldingAPiece(of pattern: MatchPattern) throws(QueryRuntimeError) -> (piece: String, terms: [String])? {
    guard let fullTextTerms else { return nil }
    // The longest piece (the first of them), chosen without the vocabulary: choosing the one
    // that fewest terms hold would show which pieces hidden items hold.
    guard let piece = Self.requiredFoldedRuns(pattern)
      .flatMap({ $0.split(whereSeparator: { !($0.isASCII && ($0.isLetter || $0.isNumber)) }) })
      .filter({ $0.count >= 3 })
      .max(by: { $0.count < $1.count })
    else { return nil }
    let terms: [String]?
    do { terms = try fullTextTerms(String(piece)) } catch { throw QueryRuntimeError("reading the full-text terms: \(error)") }
    return terms.map { (String(piece), $0) }
  }

  /// The words (ASCII letters and digits) that every value matching `pattern` holds, as
  /// full-text terms: a run of its literal text bounded on both sides by a space or the
  /// value's edge is a word of the value, and one bounded so on its left and by a wildcard
  /// on its right (`"*budget rev*"`) the start of one, a prefix term (of three characters or
  /// more: a shorter one spans too much of the index to pay). A run that a wildcard starts
  /// may be the end of a longer word: none. None for a word or token pattern, or for words
  /// with other characters, whose tokens could depend on their neighbours.
  static func wordsEveryMatchHolds(_ pattern: MatchPattern) -> [TextSearch.Term] {
    guard pattern.isWholeValue else { return [] }
    var words: [TextSearch.Term] = []
    for (index, piece) in pattern.pieces.enumerated() {
      guard case .literal(let text) = piece else { continue }
      let chunks = text.split(separator: " ", omittingEmptySubsequences: false)
      for (offset, chunk) in chunks.enumerated() {
        guard offset > 0 || index == 0, !chunk.isEmpty,
          chunk.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) })
        else { continue }
        let whole = offset < chunks.count - 1 || index == pattern.pieces.count - 1
        guard whole || chunk.count >= 3 else { continue }
        words.append(TextSearch.Term(text: String(chunk), isPrefix: !whole))
      }
    }
    return words
  }

  /// The text of a short value as written, from the `vals` columns with `prefix` (`"s."`):
  /// `str` holds it only where it differs from its folded form `fold`.
  static func valueText(_ prefix: String) -> String { "coalesce(\(prefix)str, \(prefix)fold)" }

  /// The text of the long value that the `vals` row `values` stands for, read from the record
  /// of `items` row `item`.
  static func recordText(_ attribute: (name: String, isList: Bool), values: String, item: String) -> Fragment {
    Fragment("sl_member(\(item).attributes, ?, \(attribute.isList ? "\(values).ord" : "-1"))", [.text(attribute.name)])
  }

  private mutating func itemFieldCondition(_ column: String, _ kind: AttributeTest.Kind) throws(QueryRuntimeError) -> Fragment {
    switch kind {
    case .present: return Fragment("\(column) IS NOT NULL")
    case .match(let pattern):
      // Never NULL (so NOT works for items without the field), and the column's own
      // comparison stays visible to SQLite's index planner.
      var test = Fragment("\(column) IS NOT NULL AND ") + (try stringMatch(pattern, column: column, foldColumn: nil))
      if pattern.isWholeValue, pattern.exactText == nil, !pattern.literalPrefix.isEmpty, !pattern.caseInsensitive, !pattern.diacriticInsensitive {
        let prefix = pattern.literalPrefix
        test = Fragment("\(column) >= ? AND \(column) < ? AND ", [.text(prefix), .text(prefix + "\u{10FFFF}")]) + test
      }
      return "(" + test + ")"
    default: throw QueryRuntimeError("'\(column)' holds text; compare it with a string")
    }
  }

  /// A string-pattern test on `column`: equality and folded prefixes use the (attr, fold)
  /// index; everything else confirms with `sl_match`.
  private mutating func stringMatch(_ pattern: MatchPattern, column: String, foldColumn: String?) throws(QueryRuntimeError) -> Fragment {
    let plain = !pattern.caseInsensitive && !pattern.diacriticInsensitive
    if pattern.isWholeValue, let exact = pattern.exactText {
      if let foldColumn {
        if plain { return Fragment("\(foldColumn) = ? AND \(column) = ?", [.text(TextFolding.fold(exact)), .text(exact)]) }
        let folded = Fragment("\(foldColumn) = ?", [.text(TextFolding.fold(exact))])
        if pattern.caseInsensitive && pattern.diacriticInsensitive { return folded }
        return folded + " AND " + (try matcherCall(pattern, column))
      }
      if plain { return Fragment("\(column) = ?", [.text(exact)]) }
      return try matcherCall(pattern, column)
    }
    if pattern.isWholeValue, let foldColumn, !pattern.literalPrefix.isEmpty {
      let prefix = TextFolding.fold(pattern.literalPrefix)
      return Fragment("\(foldColumn) >= ? AND \(foldColumn) < ? AND ", [.text(prefix), .text(prefix + "\u{10FFFF}")])
        + (try matcherCall(pattern, column))
    }
    // Every short text value has its folded form, so `fold IS NOT NULL` selects the same rows
    // and lets SQLite read only this attribute's text values from the (attr, fold) index
    // instead of scanning the whole value table.
    if let foldColumn {
      var test = Fragment("\(foldColumn) IS NOT NULL AND ")
      // Words the pattern needs, found in the folded value by SQLite before the matcher runs.
      var needed = Self.requiredFoldedWords(pattern)
      for run in Self.requiredFoldedRuns(pattern) where !needed.contains(where: { $0.contains(run) }) { needed.append(run) }
      for word in needed {
        test = test + Fragment("instr(\(foldColumn), ?) > 0 AND ", [.text(word)])
      }
      return test + (try matcherCall(pattern, column))
    }
    return try matcherCall(pattern, column)
  }

  /// Texts that the folded form of every value a word pattern matches contains: for a pattern
  /// that ignores case and diacritics, each word written out (`"sam ortiz"cdw`) or a word's
  /// literal start (`"ort*"cdw`), folded. Folding works scalar by scalar and a word is a run
  /// of the value's scalars, so a word that folds to `t` leaves `t` inside the folded value;
  /// `instr` on the `fold` column (C, no callback) then discards most values before
  /// `sl_match` confirms. Empty for other patterns (a regex's caseless match and folding may
  /// disagree).
  static func requiredFoldedWords(_ pattern: MatchPattern) -> [String] {
    guard !pattern.isWholeValue, pattern.caseInsensitive, pattern.diacriticInsensitive else { return [] }
    var words: [String] = []
    for word in PatternMatcher.splitIntoWords(pattern.pieces) {
      let text: String
      switch word.count {
      case 1: guard case .literal(let literal) = word[0] else { continue }; text = literal
      case 2: guard case .literal(let literal) = word[0], word[1] == .anyRun else { continue }; text = literal
      default: continue
      }
      let folded = TextFolding.fold(text)
      if !folded.isEmpty, !words.contains(folded) { words.append(folded) }
    }
    return words
  }

  /// Texts that the folded form of every value a pattern matches contains: the runs of two
  /// or more ASCII characters in its literals (after removing diacritics, for `d`),
  /// lowercased (`"*github.com*"` needs `github.com`, `"*Crème*"d` needs `creme`).
  ///
  /// Such a run matches a run of the value's scalars (of the value without diacritics, for
  /// `d`): exactly, or for `c` by case, where PCRE2 matches an ASCII letter only by its other
  /// case, except `k` and `s`, which it also matches by the Kelvin sign and the long s, which
  /// fold elsewhere (so runs are cut there). Folding is removing diacritics, then lowercasing
  /// scalar by scalar (ASCII to ASCII), so the folded value holds the run lowercased. A word
  /// pattern matches words split at punctuation and case changes (`"zoe angstrom"w` matches
  /// `ZoeAngstrom`), and compares each word as a whole value is compared: its runs are cut
  /// where its words are (at ASCII characters other than letters and digits), and each is
  /// inside a word of the value.
  static func requiredFoldedRuns(_ pattern: MatchPattern) -> [String] {
    var runs: [String] = []
    for case .literal(let literal) in pattern.pieces {
      var run = String.UnicodeScalarView()
      func finish() {
        if run.count >= 2 {
          let folded = TextFolding.fold(String(run))
          if !runs.contains(folded) { runs.append(folded) }
        }
        run = String.UnicodeScalarView()
      }
      for scalar in (pattern.diacriticInsensitive ? TextFolding.stripDiacritics(literal) : literal).unicodeScalars {
        let caselessElsewhere = pattern.caseInsensitive && "kKsS".unicodeScalars.contains(scalar)
        let cutsWords = !pattern.isWholeValue && !(("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar))
        if scalar.isASCII && !caselessElsewhere && !cutsWords { run.append(scalar) } else { finish() }
      }
      finish()
    }
    return runs
  }

  private mutating func matcherCall(_ pattern: MatchPattern, _ column: String) throws(QueryRuntimeError) -> Fragment {
    matchers.append(try PatternMatcher(pattern))
    return Fragment("sl_match(?, \(column))", [.integer(Int64(matchers.count - 1))])
  }

  // MARK: Helpers

  /// The column of an item field that `plan`'s items are grouped by. When the predicate
  /// holds the other scope index's field to one value (`contentType == "email"` for groups by
  /// domain), that index finds the items, and `+` keeps SQLite from walking the grouped
  /// field's index for its order instead, which reads the row of every item of the index to
  /// test the other field (0.66 s against 0.24 s for 400,000 emails of a million items).
  static func groupColumn(_ field: AttributeTarget.ItemField, _ plan: SQLPlan) -> String {
    let other: AttributeTarget.ItemField? = switch field {
    case .domainIdentifier: .contentType
    case .contentType: .domainIdentifier
    case .uniqueIdentifier: nil
    }
    guard let other, flatten(plan.predicate).contains(where: { testsForOneValue(other, $0) }) else { return itemColumn(field) }
    return "+" + itemColumn(field)
  }

  /// Whether `part` tests item field `field` for one exact value, which its scope index finds
  /// by key.
  private static func testsForOneValue(_ field: AttributeTarget.ItemField, _ part: BoundExpression) -> Bool {
    guard case .test(let test) = part, !test.negated, case .itemField(field) = test.target, case .match(let pattern) = test.kind else { return false }
    return pattern.isWholeValue && pattern.exactText != nil && !pattern.caseInsensitive && !pattern.diacriticInsensitive
  }

  static func itemColumn(_ field: AttributeTarget.ItemField) -> String {
    switch field {
    case .domainIdentifier: "i.domain"
    case .contentType: "i.contentType"
    case .uniqueIdentifier: "i.id"
    }
  }

  /// A join on the values of `target` (one row per value) and the grouping key column.
  private func valueJoin(_ target: AttributeTarget, alias: String) throws(QueryRuntimeError) -> (Fragment, Fragment) {
    guard case .attribute(let name, let type) = target else {
      throw QueryRuntimeError("cannot group by '\(target.displayName)'")
    }
    var key = Fragment(type.isTextual ? Self.valueText(alias + ".") : "\(alias).num")
    guard let id = attributes.ids[name] else { return (Fragment("JOIN vals \(alias) ON 0"), key) }
    if type.isTextual, let long = attributes.longAttributes[id] {
      key = "coalesce(\(alias).str, \(alias).fold, " + Self.recordText(long, values: alias, item: "i") + ")"
    }
    return (Fragment("JOIN vals \(alias) ON \(alias).item = i.rowid AND \(alias).attr = ?", [.integer(id)]), key)
  }

  /// ORDER BY terms for an attribute, missing values last.
  private func sortExpression(_ target: AttributeTarget, descending: Bool) -> [Fragment] {
    guard let key = sortKey(target) else { return [] }
    return [key + " \(descending ? "DESC" : "ASC") NULLS LAST"]
  }

  /// The value an item sorts by for `target` (its first value; NULL when it has none); nil
  /// for a target nothing sorts by.
  private func sortKey(_ target: AttributeTarget) -> Fragment? {
    switch target {
    case .itemField(let field): return Fragment(Self.itemColumn(field))
    case .attribute(let name, let type):
      guard let id = attributes.ids[name] else { return nil }
      var column = Fragment(type.isTextual ? "fold" : "num")
      if type.isTextual, let long = attributes.longAttributes[id] {
        column = "coalesce(fold, sl_fold(" + Self.recordText(long, values: "vals", item: "i") + "))"
      }
      return "(SELECT " + column + Fragment(" FROM vals WHERE item = i.rowid AND attr = ? ORDER BY ord LIMIT 1)", [.integer(id)])
    default: return nil
    }
  }

  /// The FTS5 MATCH text for a search: every term a quoted string (quotes doubled), prefix
  /// terms with `*`, phrases as one quoted string; generated only from parsed terms, never
  /// from raw input. https://www.sqlite.org/fts5.html#full_text_query_syntax
  public static func matchExpression(_ search: TextSearch) -> String {
    let quote = FullTextQuery.quoted
    var body: String
    if search.phrase {
      body = quote(search.terms.map(\.text).joined(separator: " "))
      if search.terms.last?.isPrefix == true { body += "*" }
    } else {
      body = search.terms.map { quote($0.text) + ($0.isPrefix ? "*" : "") }.joined(separator: search.requireAll ? " AND " : " OR ")
    }
    if let columns = search.columns, !columns.isEmpty {
      return "{\(columns.joined(separator: " "))} : (\(body))"
    }
    return body
  }
}
