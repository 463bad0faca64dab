/// Edit distance between two strings, compared case-insensitively, for "did you mean"
/// suggestions: insertions, deletions, substitutions and transpositions of neighbours each
/// cost one (optimal string alignment), so `titel` is one edit from `title`.
package func editDistance(_ a: String, _ b: String) -> Int {
  let x = Array(a.lowercased()), y = Array(b.lowercased())
  if x.isEmpty { return y.count }
  if y.isEmpty { return x.count }
  var before = [Int](repeating: 0, count: y.count + 1)
  var previous = Array(0...y.count)
  var current = [Int](repeating: 0, count: y.count + 1)
  for i in 1...x.count {
    current[0] = i
    for j in 1...y.count {
      var cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
      if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { cost = min(cost, before[j - 2] + 1) }
      current[j] = cost
    }
    (before, previous, current) = (previous, current, before)
  }
  return previous[y.count]
}

/// The candidate closest to `name`, when it is close enough to be a likely typo.
package func closestMatch(to name: String, in candidates: some Sequence<String>) -> String? {
  // A name much longer than every candidate meets none of the rules below (each allows at most
  // three edits, or needs the name to be a prefix of the candidate or to share two thirds of
  // its length with it): answer at once instead of paying length x length per candidate for
  // a long name a query or a tool call made up.
  let length = Array(name.lowercased()).count
  let longestCandidate = candidates.reduce(0) { max($0, Array($1.lowercased()).count) }
  if length > longestCandidate + 3, length * 2 > longestCandidate * 3 { return nil }
  var best: (String, Int)?
  for candidate in candidates {
    let distance = editDistance(name, candidate)
    if best == nil || distance < best!.1 { best = (candidate, distance) }
  }
  guard let (candidate, distance) = best else { return nil }
  // Allow about one edit per three characters, at least one and at most three.
  let allowed = max(1, min(3, name.count / 3))
  if distance <= allowed { return candidate }
  // A case-insensitive prefix of a longer name is also a good suggestion.
  if candidate.lowercased().hasPrefix(name.lowercased()) && name.count >= 3 { return candidate }
  // So is a long name that starts the same way for most of its length: another form of the
  // last word (`contentModifiedDate` for `contentModificationDate`).
  let folded = Array(name.lowercased())
  var longest: (String, Int)?
  for candidate in candidates {
    let shared = zip(folded, candidate.lowercased()).prefix { $0 == $1 }.count
    if longest == nil || shared > longest!.1 { longest = (candidate, shared) }
  }
  if let (candidate, shared) = longest, shared >= 8, shared * 3 >= folded.count * 2 { return candidate }
  return nil
}
