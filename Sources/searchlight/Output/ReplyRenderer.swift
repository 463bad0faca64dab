import Foundation
import QueryEngine
import SearchIndex
import Stages

/// Renders replies for the terminal (readable tables sized to the width), as JSON Lines (the
/// reply format of DESIGN §4) or as CSV.
struct ReplyRenderer {
  enum Format: String { case table, json, csv }

  var format: Format
  /// Attributes to show or include (nil: the defaults).
  var fetch: [String]?
  /// Show score terms.
  var why = false
  /// At most this many items or rows per reply.
  var limit: Int?
  var width = Terminal.width
  var color = false
  /// The searched words of a text search: item tables (without --fetch) get a `snippet`
  /// column of each item's text around them.
  var snippet: Snippet?
  /// Show identical documents once (`query`, table and JSON): see `collapseIdentical`.
  var collapsesIdentical = false

  /// Items shown in a terminal table when no limit is given.
  static let defaultTableLimit = 25
  /// Titles shown under each group of a table.
  static let itemsShownPerGroup = 5

  /// The items a query needs to read for this output: a table shows a screenful (or
  /// `--limit`) and says how many more there are, so it reads those first items (with room
  /// for identical documents that collapse) and a count; JSON and CSV with `--limit` read the
  /// items they print. nil: every item is printed.
  var itemWindow: ItemWindow? {
    switch format {
    case .table:
      let shown = limit ?? Self.defaultTableLimit
      return ItemWindow(first: shown + max(shown, 100), countsAll: true, itemsPerGroup: Self.itemsShownPerGroup)
    case .json:
      return limit.map { ItemWindow(first: $0 + max($0, 100), countsAll: false) }
    case .csv:
      return limit.map { ItemWindow(first: $0, countsAll: false) }
    }
  }

  /// `options` reading only what this output shows (`itemWindow`); JSON gets those items in
  /// one batch, so identical documents collapse across all of them before the cut.
  func readingWhatItShows(_ options: QueryOptions) -> QueryOptions {
    var options = options
    options.itemWindow = itemWindow
    if format == .json, let window = itemWindow { options.batchSize = max(options.batchSize, window.first) }
    return options
  }

  func render(_ reply: Reply) -> String {
    var reply = reply
    var identical: [String: Int] = [:]
    if collapsesIdentical && format != .csv { (reply.content, identical) = Self.collapseIdentical(reply.content) }
    var hidden = 0
    if let limit {
      let before = Self.size(reply.content)
      reply.content = Self.truncate(reply.content, to: limit)
      hidden = before - Self.size(reply.content)
      if let total = reply.total {
        // The reply held the first items (or rows of items) of the query's `total`.
        if case .table(let table) = reply.content {
          hidden = max(0, total - table.rows.count)
        } else {
          hidden = Self.itemsBeyond(reply.content.resultItems, identical: identical, total: total)
        }
      }
    }
    switch format {
    case .json: return Self.marking(identical, in: reply.jsonValue(fetch: fetch, why: why)).compactText + "\n"
    case .csv: return csv(reply.content)
    case .table:
      let dim = color ? "\u{1B}[2m" : "", reset = color ? "\u{1B}[0m" : ""
      return table(reply, identical: identical) + (hidden > 0 ? "  \(dim)… \(hidden) more\(reset)\n" : "")
    }
  }

  /// Items of `data` whose content is identical to an earlier item's (the same title and the
  /// same non-empty text) left out; returns, by the kept item's id, how many were left out.
  /// Only documents collapse: items without text (trails, contacts) stay, however alike.
  /// Within one reply, before `--limit`, so the top results are distinct documents.
  static func collapseIdentical(_ data: PipelineData) -> (PipelineData, [String: Int]) {
    func collapse(_ items: [ResultItem]) -> ([ResultItem], [String: Int]) {
      var firstWithContent: [IdenticalContent: String] = [:]
      var counts: [String: Int] = [:]
      var kept: [ResultItem] = []
      for item in items {
        let text = item.item.attributeSet["textContent"]?.elements.compactMap(\.stringValue).joined(separator: "\n") ?? ""
        guard !text.isEmpty else { kept.append(item); continue }
        let content = IdenticalContent(title: item.item.attributeSet.title ?? "", text: text)
        if let first = firstWithContent[content] {
          counts[first, default: 0] += 1
        } else {
          firstWithContent[content] = item.id
          kept.append(item)
        }
      }
      return (kept, counts)
    }
    switch data {
    case .items(let items):
      let (kept, counts) = collapse(items)
      return (.items(kept), counts)
    case .scoredItems(let items):
      let (kept, counts) = collapse(items)
      return (.scoredItems(kept), counts)
    default: return (data, [:])
    }
  }

  /// The reply JSON with `"identical": N` on each item that stands for N left-out copies.
  static func marking(_ identical: [String: Int], in json: JSONValue) -> JSONValue {
    guard !identical.isEmpty, case .object(var reply) = json, case .object(var content)? = reply["content"],
      let items = content["items"]?.arrayValue
    else { return json }
    content["items"] = .array(items.map { entry in
      guard case .object(var object) = entry else { return entry }
      if case .object(var item)? = object["item"] {
        // scoredItems: {"score":..,"item":{..}}
        if let id = item["id"]?.stringValue, let count = identical[id] { item["identical"] = .number(Double(count)) }
        object["item"] = .object(item)
      } else if let id = object["id"]?.stringValue, let count = identical[id] {
        object["identical"] = .number(Double(count))
      }
      return .object(object)
    })
    reply["content"] = .object(content)
    return .object(reply)
  }

  /// How many of a reply's `total` items are neither `shown` nor identical copies folded
  /// into them: the reply held only the first items of the query's (`Reply.total`).
  static func itemsBeyond(_ shown: [ResultItem], identical: [String: Int], total: Int) -> Int {
    max(0, total - shown.count - shown.reduce(0) { $0 + (identical[$1.id] ?? 0) })
  }

  /// Items, groups or rows in a reply.
  static func size(_ data: PipelineData) -> Int {
    switch data {
    case .items(let items), .scoredItems(let items): items.count
    case .table(let table): table.rows.count
    case .groupedItems(let grouped): grouped.groups.count
    default: 1
    }
  }

  static func truncate(_ data: PipelineData, to limit: Int) -> PipelineData {
    switch data {
    case .items(let items): .items(Array(items.prefix(limit)))
    case .scoredItems(let items): .scoredItems(Array(items.prefix(limit)))
    case .table(var table):
      { table.rows = Array(table.rows.prefix(limit)); return .table(table) }()
    case .groupedItems(var grouped):
      { grouped.groups = Array(grouped.groups.prefix(limit)); return .groupedItems(grouped) }()
    default: data
    }
  }

  // MARK: Table

  private func table(_ reply: Reply, identical: [String: Int] = [:]) -> String {
    let (bold, dim, reset) = color ? ("\u{1B}[1m", "\u{1B}[2m", "\u{1B}[0m") : ("", "", "")
    var out = "\(bold)\(VisibleText.visible(reply.label, keepingLines: false))\(reset) \(dim)[\(reply.content.type) · \(reply.queryToken)]\(reset)\n"
    switch reply.content {
    case .items(let items), .scoredItems(let items):
      if items.isEmpty { return out + "  (no items)\n" }
      let scored: Bool = if case .scoredItems = reply.content { true } else { false }
      let columns = fetch ?? Self.defaultColumns(items)
      let snippet = fetch == nil ? self.snippet : nil
      let header = (scored ? ["score"] : []) + ["id"] + columns + (snippet == nil ? [] : [TableStage.snippetColumn])
      var rows: [[String]] = []
      let shown = limit == nil ? Array(items.prefix(Self.defaultTableLimit)) : items
      for item in shown {
        var row = scored ? [String(format: "%.3f", item.score ?? 0)] : []
        row.append(identical[item.id].map { "\(item.id) (+\($0) identical)" } ?? item.id)
        row += columns.map { item.item.attributeSet[$0]?.displayText ?? "" }
        if let snippet { row.append(snippet.passage(of: item.item)) }
        rows.append(row)
      }
      out += grid(header, rows)
      if why && scored {
        out += "  \(bold)why\(reset)\n"
        for item in shown {
          out += "  \(item.id)  \(String(format: "%.3f", item.score ?? 0))\n"
          for term in item.scoreTerms { out += "    \(String(format: "%+.3f", term.value))  \(cut(VisibleText.visible(term.name, keepingLines: false), width - 16))\n" }
        }
      }
      // With --limit, `render` says how many more there are.
      let more = limit != nil ? 0 : reply.total.map { Self.itemsBeyond(shown, identical: identical, total: $0) } ?? items.count - shown.count
      if more > 0 { out += "  \(dim)… \(more) more (use --limit N or --format json)\(reset)\n" }
    case .groupedItems(let grouped):
      for group in grouped.groups {
        let key = VisibleText.visible(group.key.displayText, keepingLines: false)
        out += "  \(bold)\(key.isEmpty ? "(none)" : key)\(reset) (\(group.count))\n"
        let shown = group.items.prefix(Self.itemsShownPerGroup)
        for item in shown { out += "    \(cut(VisibleText.visible(item.item.attributeSet.title ?? item.id, keepingLines: false), width - 4))\n" }
        // The group's count: with an item window it holds more items than it carries.
        if group.count > shown.count { out += "    \(dim)… \(group.count - shown.count) more\(reset)\n" }
      }
    case .count(let n):
      out += "  \(n)\n"
    case .table(let table):
      // A screenful of rows, as of items: a table of every match need not flood the terminal.
      let shown = limit == nil ? Array(table.rows.prefix(Self.defaultTableLimit)) : table.rows
      out += grid(table.columns, shown.map { $0.map(\.displayText) })
      let more = limit != nil ? 0 : (reply.total ?? table.rows.count) - shown.count
      if more > 0 { out += "  \(dim)… \(more) more row\(more == 1 ? "" : "s") (use --limit N or --format json)\(reset)\n" }
    case .statistic(let statistic):
      out += "  \(statistic.function)(\(statistic.attribute)) = \(VisibleText.visible(statistic.value.displayText, keepingLines: false))\n"
    case .text(let text):
      out += "  " + VisibleText.visible(text.header, keepingLines: false) + "\n"
      if !text.body.isEmpty {
        out += VisibleText.visible(text.body).split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") + "\n"
      }
    }
    return out
  }

  /// The columns shown for items without --fetch: title and the attributes most items have
  /// among a short list of useful ones.
  static func defaultColumns(_ items: [ResultItem]) -> [String] {
    let candidates = ["title", "domainIdentifier", "contentModificationDate", "rating", "stateOrProvince", "authorNames"]
    return candidates.filter { name in
      name == "title" || items.filter({ $0.item.attributeSet[name] != nil }).count * 2 >= items.count
    }.filter { $0 != "domainIdentifier" }
  }

  /// An aligned table that fits the terminal width: wide columns are cut with an ellipsis.
  private func grid(_ header: [String], _ rows: [[String]]) -> String {
    // Each cell as printed, made once: on one line, control characters shown as pictures.
    func printable(_ cell: String) -> String { VisibleText.visible(cell.replacingOccurrences(of: "\n", with: " "), keepingLines: false) }
    let header = header.map(printable)
    let rows = rows.map { $0.map(printable) }
    var widths = header.map(\.count)
    for row in rows { for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) } }
    let available = max(20, width - 2 - 2 * (widths.count - 1))
    while widths.reduce(0, +) > available, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > 8 {
      widths[widest] -= 1
    }
    func line(_ cells: [String]) -> String {
      "  " + cells.enumerated().map { index, cell in
        let text = cut(cell, widths[index])
        return index == cells.count - 1 ? text : text.padding(toLength: widths[index], withPad: " ", startingAt: 0)
      }.joined(separator: "  ") + "\n"
    }
    var out = line(header)
    out += "  " + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
    for row in rows { out += line(row) }
    return out
  }

  private func cut(_ text: String, _ limit: Int) -> String {
    text.count <= limit ? text : String(text.prefix(max(1, limit - 1))) + "…"
  }

  // MARK: CSV

  private func csv(_ data: PipelineData) -> String {
    func field(_ raw: String) -> String {
      let s = VisibleText.visible(raw)
      return s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }
    func lines(_ header: [String], _ rows: [[String]]) -> String {
      ([header] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\n") + "\n"
    }
    switch data {
    case .items(let items), .scoredItems(let items):
      let columns = fetch ?? Self.defaultColumns(items)
      let scored: Bool = if case .scoredItems = data { true } else { false }
      return lines((scored ? ["score"] : []) + ["id"] + columns, items.map { item in
        (scored ? [String(item.score ?? 0)] : []) + [item.id] + columns.map { item.item.attributeSet[$0]?.displayText ?? "" }
      })
    case .groupedItems(let grouped):
      return lines([grouped.attribute, "count", "id"], grouped.groups.flatMap { group in
        group.items.map { [group.key.displayText, String(group.count), $0.id] }
      })
    case .count(let n): return lines(["count"], [[String(n)]])
    case .table(let table): return lines(table.columns, table.rows.map { $0.map(\.displayText) })
    case .statistic(let s): return lines(["function", "attribute", "value"], [[s.function, s.attribute, s.value.displayText]])
    case .text(let t): return lines(["header", "body"], [[t.header, t.body]])
    }
  }
}

/// A title and text that are the same when their bytes are: hashing a document of megabytes as
/// a `String` normalizes it first (a sixth of listing Debian's documentation for a word).
struct IdenticalContent: Hashable {
  let title: String
  let text: String

  static func == (a: IdenticalContent, b: IdenticalContent) -> Bool {
    a.title.utf8.elementsEqual(b.title.utf8) && a.text.utf8.elementsEqual(b.text.utf8)
  }

  func hash(into hasher: inout Hasher) {
    for part in [title, text] {
      var part = part
      part.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
      hasher.combine(part.utf8.count)
    }
  }
}
