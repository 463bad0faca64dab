import QueryEngine

/// Joins the streamed batches of an items reply back into one reply, for outputs that print
/// whole replies (tables, CSV); JSON output prints every batch as it comes.
struct ReplyAssembler {
  private var pending: [ResultItem] = []

  /// The complete reply once its last batch arrives, nil while batches are pending.
  mutating func add(_ reply: Reply) -> Reply? {
    if reply.isPartial {
      pending.append(contentsOf: reply.content.resultItems)
      return nil
    }
    guard !pending.isEmpty else { return reply }
    var whole = reply
    whole.content = reply.content.replacingItems(pending + reply.content.resultItems)
    pending = []
    return whole
  }
}
