/// A problem found in query text, anchored to a span of that text.
///
/// Diagnostics are values: the lexer, parser and checker collect them and throw them once as
/// a `DiagnosticsError`, so a person sees every mistake at once and a model gets all of them
/// in one reply.
public struct Diagnostic: Sendable, Hashable {
  public enum Severity: String, Sendable, Hashable { case error, warning, note }

  /// A secondary message, optionally pointing at another span.
  public struct Note: Sendable, Hashable {
    public var message: String
    public var span: SourceSpan?
    public init(_ message: String, span: SourceSpan? = nil) {
      self.message = message
      self.span = span
    }
  }

  /// A suggested replacement of a span.
  public struct FixIt: Sendable, Hashable {
    public var span: SourceSpan
    public var replacement: String
    public init(span: SourceSpan, replacement: String) {
      self.span = span
      self.replacement = replacement
    }
  }

  public var severity: Severity
  /// A stable identifier such as `parse.unterminated-string`, for tests and tools.
  public var id: String
  /// Terse, lowercase, no final period.
  public var message: String
  public var span: SourceSpan
  public var notes: [Note]
  public var fixIts: [FixIt]
  /// The help line: what to do about it.
  public var help: String?

  public init(
    _ id: String, _ message: String, at span: SourceSpan, severity: Severity = .error,
    help: String? = nil, notes: [Note] = [], fixIts: [FixIt] = []
  ) {
    self.severity = severity
    self.id = id
    self.message = message
    self.span = span
    self.notes = notes
    self.fixIts = fixIts
    self.help = help
  }

  /// Adds a "did you mean" fix-it when `suggestion` exists.
  public func suggesting(_ suggestion: String?) -> Diagnostic {
    guard let suggestion else { return self }
    var copy = self
    copy.help = "did you mean '\(suggestion)'?"
    copy.fixIts.append(FixIt(span: span, replacement: suggestion))
    return copy
  }
}

/// One or more diagnostics about a source text, thrown together.
public struct DiagnosticsError: Error, Sendable, Hashable, CustomStringConvertible {
  public var source: SourceText
  public var diagnostics: [Diagnostic]

  public init(source: SourceText, diagnostics: [Diagnostic]) {
    self.source = source
    self.diagnostics = diagnostics.sorted { $0.span.start < $1.span.start }
  }

  /// The first error, the one a one-line report shows.
  public var primary: Diagnostic { diagnostics.first(where: { $0.severity == .error }) ?? diagnostics[0] }

  public var description: String { DiagnosticRenderer.render(self, color: false) }
}
