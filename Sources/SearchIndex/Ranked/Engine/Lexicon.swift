/// Term string <-> dense `TermID`. Ids are never reused (a term whose document
/// frequency drops to zero keeps its id), so persisted postings stay valid.
package struct Lexicon: Sendable {
  private var ids: [String: TermID] = [:]
  package private(set) var terms: [String] = []

  package init() {}

  package var count: Int { terms.count }

  package func id(for term: String) -> TermID? { ids[term] }

  package mutating func intern(_ term: String) -> TermID {
    if let id = ids[term] { return id }
    let id = TermID(terms.count)
    ids[term] = id
    terms.append(term)
    return id
  }
}
