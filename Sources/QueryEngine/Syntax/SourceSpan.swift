/// A half-open range of UTF-8 byte offsets into a source text.
public struct SourceSpan: Sendable, Hashable, CustomStringConvertible {
  public var start: Int
  public var end: Int

  public init(_ start: Int, _ end: Int) {
    self.start = start
    self.end = max(start, end)
  }

  /// The span covering both.
  public func union(_ other: SourceSpan) -> SourceSpan {
    SourceSpan(min(start, other.start), max(end, other.end))
  }

  public var isEmpty: Bool { start == end }
  public var length: Int { end - start }
  public var description: String { "\(start)..<\(end)" }
}

/// A source text (a query, or a `.stage` file) and where its lines start, to turn byte
/// offsets into 1-based lines and columns.
public struct SourceText: Sendable, Hashable {
  /// The name shown after `-->`: `query` for command-line queries, or a file path.
  public var name: String
  public let text: String
  let bytes: [UInt8]
  private let lineStarts: [Int]

  public init(_ text: String, name: String = "query") {
    self.name = name
    self.text = text
    self.bytes = Array(text.utf8)
    var starts = [0]
    for (offset, byte) in bytes.enumerated() where byte == 0x0A { starts.append(offset + 1) }
    self.lineStarts = starts
  }

  /// 1-based line and column (in characters) of a byte offset.
  public func location(of offset: Int) -> (line: Int, column: Int) {
    let clamped = min(max(0, offset), bytes.count)
    var low = 0, high = lineStarts.count - 1
    while low < high {
      let mid = (low + high + 1) / 2
      if lineStarts[mid] <= clamped { low = mid } else { high = mid - 1 }
    }
    let lineStart = lineStarts[low]
    let column = String(decoding: bytes[lineStart..<clamped], as: UTF8.self).count + 1
    return (low + 1, column)
  }

  /// The text of 1-based line `line`, without its terminator.
  public func lineText(_ line: Int) -> String {
    guard line >= 1, line <= lineStarts.count else { return "" }
    let start = lineStarts[line - 1]
    var end = line < lineStarts.count ? lineStarts[line] - 1 : bytes.count
    if end > start, bytes[end - 1] == 0x0D { end -= 1 }
    return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
  }

  /// The source text of a span.
  public func slice(_ span: SourceSpan) -> String {
    let start = min(max(0, span.start), bytes.count), end = min(max(start, span.end), bytes.count)
    return String(decoding: bytes[start..<end], as: UTF8.self)
  }

  /// An expression as this text writes it (a table's column name, a score's term); a query
  /// built as syntax (the planner's) has no text there, so as printed.
  public func text(of expression: Expression) -> String {
    let written = slice(expression.span)
    return written.isEmpty ? SyntaxPrinter.text(expression) : written
  }

  public var byteCount: Int { bytes.count }
}
