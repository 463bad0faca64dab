import Foundation
import QueryEngine
import SearchIndex
import Stages

/// One query of the benchmark mix: the engine's query and the same work written by hand in
/// SQL against the index schema (`Schema.swift`), with variants (different words, states,
/// months) that the iterations cycle through.
///
/// Every hand-written statement takes the visibility rule the engine applies as `?1` (the
/// named index) and `?2` (the clock, for expiry): `i.indexId = ?1 AND (i.expiration IS NULL OR
/// i.expiration > ?2) AND i.protection IS NULL`, so both sides return the same items.
package struct BenchmarkQuery: Sendable {
  /// What the engine runs.
  package enum EngineQuery: Sendable, Hashable {
    /// Query text in the language.
    case text(String)
    /// A question through `PlainQuestionPlanner`, as `eval` runs it.
    case question(String)
    /// A question through the built-in planner (`BuiltinPlanner`, as `plan` and `ask` run
    /// it): planning and running the query it makes are both timed.
    case planned(String)
    /// A tool call's arguments (Apple's `FullArguments` JSON) through `SearchTool`: decoding,
    /// running and paging are timed.
    case toolCall(String)

    /// How the query reads in a report.
    package var display: String {
      switch self {
      case .text(let text): text
      case .question(let question): "plain planner: \(question)"
      case .planned(let question): "built-in planner: \(question)"
      case .toolCall(let arguments): "tool call: \(arguments)"
      }
    }
  }

  /// One variant: the engine's query and the arguments of the SQL from `?3` on.
  package struct Variant: Sendable {
    package var engine: EngineQuery
    package var arguments: [SQLValue]
    /// Arguments of the hand-written side's Swift part (`finish`), not bound to the SQL.
    package var swiftArguments: [SQLValue] = []
  }

  /// How the two sides' results are compared once, before timing.
  package enum Comparison: Sendable {
    /// Item ids in order (the first SQL column).
    case identifiers
    /// Every row and column (group keys and counts, statistics).
    case rows
    /// Not compared: the engine ranks differently from anything the SQL can say. An OR of
    /// words is ranked by the ranked index's BM25F (field weights, length normalisation per
    /// field, stems), which FTS5's bm25() does not compute; `RankedBenchmark` checks those
    /// results against exhaustive BM25F scoring instead.
    case none
  }

  package var name: String
  package var sql: String
  package var variants: [Variant]
  package var comparison: Comparison
  /// What the hand-written side does in Swift with the statement's rows, when the same work
  /// is more than one statement (a seeded sample, a nearest-neighbour scan); timed with it.
  package var finish: (@Sendable ([[SQLValue]], Variant) -> [[String]])?

  init(name: String, sql: String, variants: [Variant], comparison: Comparison,
       finish: (@Sendable ([[SQLValue]], Variant) -> [[String]])? = nil) {
    self.name = name
    self.sql = sql
    self.variants = variants
    self.comparison = comparison
    self.finish = finish
  }

  /// Whether a variant asks the built-in planner (the engine side then reads its vocabulary
  /// once, before timing).
  var needsPlanner: Bool {
    variants.contains { if case .planned = $0.engine { true } else { false } }
  }

  /// The visibility condition every statement includes (see the type's documentation).
  static let visible = "i.indexId = ?1 AND (i.expiration IS NULL OR i.expiration > ?2) AND i.protection IS NULL"

  /// BM25 with the engine's column weights (title, keywords, description, body, other); FTS5's
  /// bm25() is lower-is-better.
  static let bm25 = "bm25(fts, 4.0, 3.0, 2.0, 1.0, 1.0)"

  /// `bm25` over the rows the caller may see (`sl_bm25`: FTS5's formula with hidden items
  /// left out of the statistics), which is what the engine's FTS5-ranked statements score
  /// with; the hand-written connection is told which rows are hidden.
  static let visibleBM25 = "sl_bm25(fts, 4.0, 3.0, 2.0, 1.0, 1.0)"

  /// An FTS5 query string of quoted terms (quotes doubled), joined by AND or OR.
  /// https://www.sqlite.org/fts5.html#full_text_query_syntax
  static func match(_ words: [String], all: Bool) -> String {
    words.map(FullTextQuery.quoted).joined(separator: all ? " AND " : " OR ")
  }

  /// Ranked text search, best `k` (the engine: `search "a b" | top k`).
  static func textTop(_ pairs: [[String]], k: Int) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "text top-\(k)",
      sql: """
        SELECT i.id, sl_record(i.attributes) FROM fts JOIN items i ON i.rowid = fts.rowid
        WHERE fts MATCH ?3 AND \(visible) ORDER BY \(bm25), i.rowid LIMIT \(k)
        """,
      variants: pairs.map { words in
        Variant(engine: .text("search \"\(words.joined(separator: " "))\" | top \(k)"), arguments: [.text(match(words, all: true))])
      },
      comparison: .identifiers)
  }

  /// A question as a ranked OR search over its words, best `k` (`eval`'s plain planner). The
  /// engine answers it from the ranked index, so the results are not compared (see
  /// `Comparison.none`); the SQL is the exhaustive FTS5 query it replaces.
  static func questionTop(_ questions: [String], k: Int) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "question top-\(k) (OR)",
      sql: """
        SELECT i.id, sl_record(i.attributes) FROM fts JOIN items i ON i.rowid = fts.rowid
        WHERE fts MATCH ?3 AND \(visible) ORDER BY \(bm25), i.rowid LIMIT \(k)
        """,
      variants: questions.compactMap { question in
        let words = PlainQuestionPlanner.terms(question)
        return words.isEmpty ? nil : Variant(engine: .question(question), arguments: [.text(match(words, all: false))])
      },
      comparison: .none)
  }

  /// Number of items matching a text search (`search "a" | count`).
  static func textCount(_ words: [[String]]) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "text count",
      // CROSS JOIN keeps the match as the outer loop; a plain JOIN lets SQLite scan the
      // items and run the match once per item.
      sql: "SELECT count(*) FROM fts CROSS JOIN items i ON i.rowid = fts.rowid WHERE fts MATCH ?3 AND \(visible)",
      variants: words.map { words in
        Variant(engine: .text("search \"\(words.joined(separator: " "))\" | count"), arguments: [.text(match(words, all: true))])
      },
      comparison: .rows)
  }

  /// Items per domain among the matches of a text search
  /// (`search "a b" | group by domainIdentifier | count`).
  static func textGroup(_ words: [[String]]) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "text group",
      sql: """
        SELECT i.domain, count(*) FROM fts CROSS JOIN items i ON i.rowid = fts.rowid
        WHERE fts MATCH ?3 AND \(visible) GROUP BY i.domain ORDER BY 2 DESC, 1
        """,
      variants: words.map { words in
        Variant(engine: .text("search \"\(words.joined(separator: " "))\" | group by domainIdentifier | count"), arguments: [.text(match(words, all: true))])
      },
      comparison: .rows)
  }

  /// Statistics over the matches of a text search (`search "a b" | stats avg(rating), max(rating)`).
  static func textStats(_ words: [[String]], rating: Int64) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "text stats",
      sql: """
        SELECT avg(r.num), max(r.num) FROM fts CROSS JOIN items i ON i.rowid = fts.rowid
        LEFT JOIN vals r ON r.item = i.rowid AND r.attr = ?4
        WHERE fts MATCH ?3 AND \(visible)
        """,
      variants: words.map { words in
        Variant(
          engine: .text("search \"\(words.joined(separator: " "))\" | stats avg(rating), max(rating)"),
          arguments: [.text(match(words, all: true)), .integer(rating)])
      },
      comparison: .rows)
  }

  /// The highest trails (`search domainIdentifier == "trails" | sort latitude desc | limit 10`):
  /// a sort on an indexed number with a limit. The values are compared, not the ids (ties).
  static func sortLimit(latitude: Int64) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "sort + limit",
      sql: """
        SELECT r.num FROM vals r JOIN items i ON i.rowid = r.item
        WHERE r.attr = ?4 AND r.num IS NOT NULL AND i.domain = ?3 AND \(visible)
        ORDER BY r.num DESC LIMIT 10
        """,
      variants: [Variant(
        engine: .text(#"search domainIdentifier == "trails" | sort latitude desc | limit 10 | table latitude"#),
        arguments: [.text("trails"), .integer(latitude)])],
      comparison: .rows)
  }

  /// Items per domain over the whole index (`search * | group by domainIdentifier | count`).
  static func groupAll() -> BenchmarkQuery {
    BenchmarkQuery(
      name: "group all",
      sql: "SELECT i.domain, count(*) FROM items i WHERE \(visible) GROUP BY i.domain ORDER BY 2 DESC, 1",
      variants: [Variant(engine: .text("search * | group by domainIdentifier | count"), arguments: [])],
      comparison: .rows)
  }

  /// Items with a value in a list-valued attribute (`search keywords == "waterfall"cd | count`).
  static func listValue(_ tags: [String], keywords: Int64) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "list value count",
      sql: """
        SELECT count(*) FROM items i WHERE i.rowid IN (SELECT v.item FROM vals v WHERE v.attr = ?4 AND v.fold = ?3) AND \(visible)
        """,
      variants: tags.map { tag in
        Variant(engine: .text(#"search keywords == "\#(tag)"cd | count"#), arguments: [.text(TextFolding.fold(tag)), .integer(keywords)])
      },
      comparison: .rows)
  }

  /// A Spotlight predicate over attributes: trails in a state rated at least a threshold,
  /// first 20. The SQL starts from the (attr, fold) index and reaches the rating through
  /// (item, attr); `+r.num` keeps SQLite from scanning every high rating instead
  /// (https://www.sqlite.org/optoverview.html#disqualifying_where_clause_terms_using_unary_) (`search domainIdentifier == "trails" && stateOrProvince == "Utah"cd && rating >= 4.7 | limit 20`).
  static func predicate(_ cases: [(state: String, rating: Double)], state: Int64, rating: Int64) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "predicate",
      sql: stateAndRatingSQL(where: "i.domain = ?3", orderBy: "i.rowid LIMIT 20"),
      variants: cases.map { state0, rating0 in
        Variant(
          engine: .text(#"search domainIdentifier == "trails" && stateOrProvince == "\#(state0)"cd && rating >= \#(JSONValue.format(number: rating0)) | limit 20"#),
          arguments: [.text("trails"), .integer(state), .text(TextFolding.fold(state0)), .integer(rating), .real(rating0)])
      },
      comparison: .identifiers)
  }

  /// Items whose state (attribute ?4, folded ?5) matches and whose rating (attribute ?6) is
  /// at least ?7, among those `condition` (on ?3) keeps: the SQL of "predicate" and "planner
  /// question". It starts from the (attr, fold) index and reaches the rating through (item,
  /// attr); `+r.num` keeps SQLite from scanning every high rating instead.
  static func stateAndRatingSQL(where condition: String, orderBy order: String) -> String {
    """
    SELECT i.id, sl_record(i.attributes) FROM vals s JOIN items i ON i.rowid = s.item
    JOIN vals r ON r.item = i.rowid AND r.attr = ?6 AND +r.num >= ?7
    WHERE s.attr = ?4 AND s.fold = ?5 AND \(condition) AND \(visible)
    ORDER BY \(order)
    """
  }

  /// Items modified in a month, newest first, first 20.
  static func dateRange(_ months: [(start: Date, end: Date)], modified: Int64) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "date range",
      sql: """
        SELECT i.id, sl_record(i.attributes) FROM vals d JOIN items i ON i.rowid = d.item
        WHERE d.attr = ?3 AND d.num >= ?4 AND d.num < ?5 AND \(visible)
        ORDER BY d.num DESC, i.rowid LIMIT 20
        """,
      variants: months.map { start, end in
        Variant(
          engine: .text("search contentModificationDate >= $time.iso(\(ISO8601.format(start))) && contentModificationDate < $time.iso(\(ISO8601.format(end))) | sort contentModificationDate desc | limit 20"),
          arguments: [.integer(modified), .real(start.timeIntervalSince1970), .real(end.timeIntervalSince1970)])
      },
      comparison: .identifiers)
  }

  /// Trails per state (`search domainIdentifier == "trails" | group by stateOrProvince | count`).
  static func groupCount(state: Int64) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "group + count",
      sql: """
        SELECT coalesce(g.str, g.fold), count(*) FROM items i JOIN vals g ON g.item = i.rowid AND g.attr = ?4
        WHERE i.domain = ?3 AND \(visible) GROUP BY 1 ORDER BY 2 DESC, 1
        """,
      variants: [Variant(engine: .text(#"search domainIdentifier == "trails" | group by stateOrProvince | count"#), arguments: [.text("trails"), .integer(state)])],
      comparison: .rows)
  }

  /// Average distance and best rating of the trails.
  static func stats(distance: Int64, rating: Int64) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "stats",
      sql: """
        SELECT avg(d.num), max(r.num) FROM items i
        LEFT JOIN vals d ON d.item = i.rowid AND d.attr = ?4
        LEFT JOIN vals r ON r.item = i.rowid AND r.attr = ?5
        WHERE i.domain = ?3 AND \(visible)
        """,
      variants: [Variant(engine: .text(#"search domainIdentifier == "trails" | stats avg(distance), max(rating)"#), arguments: [.text("trails"), .integer(distance), .integer(rating)])],
      comparison: .rows)
  }

  /// A text search scored by the example Swift custom stage `freshness` (Stages): each item's
  /// relevance times 1 + weight x recency of its modification date (halving every half-life),
  /// best `k`.
  static func customScoring(_ words: [String], k: Int, modified: Int64, now: Date, stage: FreshnessStage) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "custom scoring stage",
      sql: """
        SELECT i.id, sl_record(i.attributes),
          (CASE WHEN -\(visibleBM25) > 0 THEN -\(visibleBM25) ELSE 1.0 END)
            * (1 + ?5 * coalesce(pow(0.5, max(0.0, ?4 - m.num) / ?6), 0.0)) AS score
        FROM fts JOIN items i ON i.rowid = fts.rowid
        LEFT JOIN vals m ON m.item = i.rowid AND m.attr = ?7
        WHERE fts MATCH ?3 AND \(visible) ORDER BY score DESC, i.rowid LIMIT \(k)
        """,
      variants: words.map { word in
        Variant(
          engine: .text("search \"\(word)\" | freshness | top \(k)"),
          arguments: [
            .text(match([word], all: true)), .real(now.timeIntervalSince1970), .real(stage.weight), .real(stage.halfLife), .integer(modified),
          ])
      },
      comparison: .identifiers)
  }
}

extension BenchmarkQuery {
  /// A seeded random sample of the trails (`search domainIdentifier == "trails" | sample N
  /// seed S`): the SQL lists the visible trails in index order and Swift picks the same N
  /// with the sample stage's generator (SplitMix64, a partial Fisher-Yates shuffle, the
  /// picks kept in input order).
  static func sample(seeds: [UInt64], count: Int) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "sample",
      sql: "SELECT i.id, sl_record(i.attributes) FROM items i WHERE i.domain = ?3 AND \(visible) ORDER BY i.rowid",
      variants: seeds.map { seed in
        Variant(
          engine: .text(#"search domainIdentifier == "trails" | sample \#(count) seed \#(seed)"#),
          arguments: [.text("trails")], swiftArguments: [.integer(Int64(bitPattern: seed))])
      },
      comparison: .identifiers,
      finish: { rows, variant in
        guard case .integer(let seed) = variant.swiftArguments.first else { return [] }
        guard count < rows.count else { return rows.map { [HandWrittenValue.text($0[0])] } }
        var state = UInt64(bitPattern: seed)
        func next() -> UInt64 {
          state &+= 0x9E37_79B9_7F4A_7C15
          var z = state
          z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
          z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
          return z ^ (z >> 31)
        }
        var indices = Array(rows.indices)
        for i in 0..<count {
          indices.swapAt(i, i + Int(next() % UInt64(indices.count - i)))
        }
        return indices.prefix(count).sorted().map { [HandWrittenValue.text(rows[$0][0])] }
      })
  }

  /// Reciprocal rank fusion of two text searches, each cut to its best 50
  /// (`a = search "x" | top 50; b = search "y" | top 50; merge(a, b) | fuse | top k`):
  /// 1 / (60 + rank) summed over the lists that have the item, ties in merged order (the
  /// first list's order, then the second's new items).
  static func fuse(_ pairs: [[String]], k: Int) -> BenchmarkQuery {
    func ranked(_ parameter: Int) -> String {
      """
      SELECT item, id, row_number() OVER (ORDER BY s, item) AS rank FROM (
          SELECT i.rowid AS item, i.id AS id, \(bm25) AS s FROM fts JOIN items i ON i.rowid = fts.rowid
          WHERE fts MATCH ?\(parameter) AND \(visible) ORDER BY s, i.rowid LIMIT 50)
      """
    }
    return BenchmarkQuery(
      name: "fuse",
      sql: """
        WITH a AS (\(ranked(3))), b AS (\(ranked(4)))
        SELECT coalesce(a.id, b.id), coalesce(1.0 / (60 + a.rank), 0.0) + coalesce(1.0 / (60 + b.rank), 0.0) AS score
        FROM a FULL JOIN b ON a.item = b.item
        ORDER BY score DESC, a.rank IS NULL, coalesce(a.rank, b.rank) LIMIT \(k)
        """,
      variants: pairs.map { words in
        Variant(
          engine: .text(#"a = search "\#(words[0])" | top 50; b = search "\#(words[1])" | top 50; merge(a, b) | fuse | top \#(k)"#),
          arguments: [.text(match([words[0]], all: true)), .text(match([words[1]], all: true))])
      },
      comparison: .identifiers)
  }
}

extension BenchmarkQuery {
  /// Emails from a person (`search contentType == "email" | people "NAME" role from | count`):
  /// the people stage matches the name as words of the author's name or address, ignoring
  /// case and diacritics; the SQL matches the folded author names and addresses as words
  /// with LIKE.
  static func people(_ names: [String], authorNames: Int64, authorEmails: Int64) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "people",
      sql: """
        SELECT count(*) FROM items i WHERE i.contentType = ?3 AND \(visible) AND i.rowid IN (
          SELECT item FROM vals WHERE attr IN (?4, ?5) AND fold IS NOT NULL AND ' ' || fold || ' ' LIKE ?6)
        """,
      variants: names.map { name in
        Variant(
          engine: .text(#"search contentType == "email" | people "\#(name)" role from | count"#),
          arguments: [.text("email"), .integer(authorNames), .integer(authorEmails), .text("% " + TextFolding.fold(name) + " %")])
      },
      comparison: .rows)
  }

  /// A question through the built-in planner ("trails in Utah rated 4.7 or more"), which
  /// reads it as `search contentType == "trail" && stateOrProvince == "Utah"cd && rating >=
  /// 4.7 | sort rating desc`; the SQL is that query written by hand.
  static func planned(_ cases: [(state: String, rating: Double)], state: Int64, rating: Int64) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "planner question",
      sql: stateAndRatingSQL(where: "i.contentType = ?3", orderBy: "r.num DESC, i.rowid"),
      variants: cases.map { state0, rating0 in
        Variant(
          engine: .planned("trails in \(state0) rated \(JSONValue.format(number: rating0)) or more"),
          arguments: [.text("trail"), .integer(state), .text(TextFolding.fold(state0)), .integer(rating), .real(rating0)])
      },
      comparison: .identifiers)
  }

  /// A model's tool call in Apple's `FullArguments` shape, every word required, one page of
  /// `k` (`{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":[...]}},
  /// "pageSize":k}}}`): decoded to `search "a b" | top k+1`, run, paged and formatted for the
  /// model. The SQL is the ranked search of the page.
  static func toolCall(_ pairs: [[String]], k: Int) -> BenchmarkQuery {
    BenchmarkQuery(
      name: "tool call",
      sql: """
        SELECT i.id, sl_record(i.attributes) FROM fts JOIN items i ON i.rowid = fts.rowid
        WHERE fts MATCH ?3 AND \(visible) ORDER BY \(bm25), i.rowid LIMIT \(k)
        """,
      variants: pairs.map { words in
        let terms = JSONValue.array(words.map(JSONValue.string)).compactText
        return Variant(
          engine: .toolCall(#"{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":\#(terms)}},"pageSize":\#(k)}}}"#),
          arguments: [.text(match(words, all: true))])
      },
      comparison: .identifiers)
  }
}

/// How the hand-written side's Swift part turns a value into a compared cell.
enum HandWrittenValue {
  static func text(_ value: SQLValue) -> String {
    if case .text(let text) = value { return text }
    return "\(value)"
  }
}

/// A benchmark query that could not run as written.
struct BenchmarkError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
