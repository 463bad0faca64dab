import SearchIndex

/// What a stage sees while it runs: who is asking, the clock, the execution's token and
/// cancellation, and the index services a stage may use (`similar` matching, similarity,
/// the app's delegate for hydration).
///
/// Narrow on purpose: stages transform the data they are given and never run SQL; what
/// SQLite can do for them, the plan pushes down before they run (`BoundStage.push`).
public protocol StageContext: AnyObject {
  /// The caller's access: which protection classes it may see, and expiry.
  var scope: AccessScope { get }
  /// The clock `$time` and recency are measured against.
  var clock: QueryClock { get }
  /// Checked between items so a long stage stops when the query is cancelled.
  var cancellation: CancellationFlag { get }
  /// The execution's token, which every reply carries.
  var token: QueryToken { get }
  /// The app's side of the index (current, authorised records); nil when none is registered.
  var delegate: (any IndexDelegate)? { get }
  /// True when `item` matches the `similar` search.
  func matches(_ search: SimilarSearch, _ item: ResultItem) throws -> Bool
  /// The cosine similarity of `item`'s best chunk to `phrase`; 0 when it has no vector.
  func similarity(of item: ResultItem, to phrase: String) throws -> Double
}

extension ExecutionContext: StageContext {}
