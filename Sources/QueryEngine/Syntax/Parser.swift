/// A hand-written recursive-descent parser for queries, following `Grammar/Searchlight.ebnf`
/// rule by rule (function names match production names).
///
/// It never stops at the first mistake: a bad stage is reported and skipped up to the next
/// `|` or `;`, so one run reports every error. Nesting is limited to `maximumDepth` levels
/// (FTS5's limit) so hostile input cannot exhaust the stack: parentheses, `!` and `-` while
/// parsing, and the height of every expression tree once built. A chain of `||` (or of `&&`)
/// becomes a balanced tree, so a flat OR of thousands of words stays a few levels deep.
public struct Parser {
  var tokens: [Token]
  var position = 0
  let source: SourceText
  public private(set) var diagnostics: [Diagnostic]
  var depth = 0
  /// The deepest an expression may nest (FTS5's limit).
  public static let maximumDepth = 256
  /// The longest query, in UTF-8 bytes.
  public static let maximumLength = 1 << 20
  /// The most statements in one query: each `let` binds the rest of the query again.
  public static let maximumStatements = 256
  /// The most comparisons and calls (`InRange`, `recency`, ...) in one query: SQLite's
  /// planner takes time that grows with the square of their number.
  public static let maximumConditions = 1_000
  /// The most words in the strings of one query (text searches look each one up).
  public static let maximumWords = 10_000
  /// Comparisons and calls, and words in strings, parsed so far.
  var conditions = 0
  var words = 0
  /// Names of statements defined so far, to tell `hikes | count` from a predicate.
  var statementNames: Set<String> = []
  /// True while parsing a `.stage` file, where `stage NAME(` starts the next definition.
  var inStageFile = false

  /// Unwinds to the nearest recovery point after a diagnostic was recorded.
  struct Recovery: Error {}

  public init(_ source: SourceText) {
    self.source = source
    guard source.byteCount <= Self.maximumLength else {
      // Too long to read at all: nothing is lexed, so the limit bounds time and memory too.
      self.tokens = [Token(kind: .endOfInput, span: SourceSpan(0, 0), precededBySpace: false)]
      self.diagnostics = [Diagnostic(
        "parse.too-long", "the query is longer than \(Self.maximumLength) bytes (\(source.byteCount))", at: SourceSpan(0, 0),
        help: "split it into smaller queries")]
      return
    }
    let (tokens, diagnostics) = Lexer.tokenize(source)
    self.tokens = tokens
    self.diagnostics = diagnostics
  }

  // MARK: Entry points

  /// Parses a whole query. The result is nil only when nothing usable was parsed; check
  /// `diagnostics` for errors either way.
  public static func parseQuery(_ source: SourceText) -> (QuerySyntax?, [Diagnostic]) {
    var parser = Parser(source)
    let query = parser.query()
    return (query, parser.diagnostics)
  }

  /// Parses a query and throws every diagnostic when there is any error.
  public static func parse(_ source: SourceText) throws(DiagnosticsError) -> QuerySyntax {
    let (query, diagnostics) = parseQuery(source)
    if diagnostics.contains(where: { $0.severity == .error }) || query == nil {
      throw DiagnosticsError(source: source, diagnostics: diagnostics.isEmpty
        ? [Diagnostic("parse.empty", "empty query", at: SourceSpan(0, 0), help: "write a predicate such as title == \"june*\"cd, or search \"words\"")]
        : diagnostics)
    }
    return query!
  }

  /// Parses a lone expression (a `.stage` default value, a scoring expression).
  public static func parseExpression(_ source: SourceText) throws(DiagnosticsError) -> Expression {
    var parser = Parser(source)
    var result: Expression?
    do {
      result = try parser.expression()
      if !parser.atEnd { parser.error("parse.trailing-input", "unexpected \(parser.describe(parser.current)) after the expression", at: parser.current.span) }
    } catch {}
    if parser.diagnostics.contains(where: { $0.severity == .error }) || result == nil {
      throw DiagnosticsError(source: source, diagnostics: parser.diagnostics)
    }
    return result!
  }

  // MARK: Words of other query languages

  /// Where a statement should end at a word that SQL or `NSPredicate` uses as an operator
  /// (`rating > 3 and distance < 5`, `title contains "x"`, `not rating > 3`): what this
  /// language writes instead, with a fix-it where one operator replaces the word; nil for any
  /// other token.
  func operatorWord() -> Diagnostic? {
    let previous = position > 0 ? tokens[position - 1] : nil
    func name(_ token: Token?) -> String? {
      if case .identifier(let name)? = token?.kind { return name }
      return nil
    }
    var word = name(current)?.lowercased()
    var span = current.span
    // `not rating > 3`: `not` was read as a bare value, and the statement ends after it.
    if let before = name(previous), before.lowercased() == "not", word != "and", word != "or" {
      word = "not"
      span = previous!.span
    }
    guard let word else { return nil }
    var text: String?
    if case .string(let string) = token(at: 1).kind { text = string.text }
    return OperatorWords.diagnostic(word, at: span, attribute: name(previous).flatMap { $0.lowercased() == "not" ? nil : $0 }, text: text)
  }

  // MARK: Token helpers

  var current: Token { tokens[position] }
  func token(at offset: Int) -> Token { tokens[min(position + offset, tokens.count - 1)] }
  var atEnd: Bool { if case .endOfInput = current.kind { return true }; return false }

  @discardableResult
  mutating func advance() -> Token {
    let token = tokens[position]
    if position < tokens.count - 1 { position += 1 }
    return token
  }

  mutating func error(_ id: String, _ message: String, at span: SourceSpan, help: String? = nil) {
    report(Diagnostic(id, message, at: span, help: help))
  }

  mutating func report(_ diagnostic: Diagnostic) {
    // One diagnostic per position: later errors at the same spot are usually consequences.
    if diagnostics.contains(where: { $0.span.start == diagnostic.span.start && $0.severity == .error }) { return }
    diagnostics.append(diagnostic)
  }

  mutating func fail(_ id: String, _ message: String, at span: SourceSpan, help: String? = nil) -> Recovery {
    error(id, message, at: span, help: help)
    return Recovery()
  }

  /// A boost (`^2`) weighs the terms of a text search; anywhere else it would be ignored.
  mutating func rejectBoost(_ string: StringToken, _ place: String) {
    guard let span = string.boostSpan else { return }
    error("parse.misplaced-boost", "a weight (^) applies to text searches, not to \(place)", at: span,
               help: "remove the ^ and its number")
  }

  func isIdentifier(_ token: Token, _ name: String) -> Bool {
    if case .identifier(name) = token.kind { return true }
    return false
  }

  func describe(_ token: Token) -> String {
    switch token.kind {
    case .endOfInput: return "end of query"
    case .string: return "string \(source.slice(token.span))"
    case .number, .duration: return "number '\(source.slice(token.span))'"
    default: return "'\(source.slice(token.span))'"
    }
  }

  /// True when the token after the current one is a string (`similar "..."`).
  var nextIsString: Bool { if case .string = token(at: 1).kind { return true }; return false }
  var isPipe: Bool { if case .pipe = current.kind { return true }; return false }
  var isSemicolon: Bool { if case .semicolon = current.kind { return true }; return false }
  var isRightParen: Bool { if case .rightParen = current.kind { return true }; return false }
  var isLeftParen: Bool { if case .leftParen = current.kind { return true }; return false }
  var isComma: Bool { if case .comma = current.kind { return true }; return false }

  /// Skips to the next `|`, `;` or the end, at the current parenthesis depth.
  mutating func recover(stopAtRightParen: Bool = false) {
    var nesting = 0
    while !atEnd {
      switch current.kind {
      case .leftParen: nesting += 1
      case .rightParen:
        if nesting == 0 && stopAtRightParen { return }
        nesting = max(0, nesting - 1)
      case .pipe, .semicolon: if nesting == 0 { return }
      default: break
      }
      advance()
    }
  }

  // MARK: query = statement { ";" statement } [ ";" ]

  mutating func query() -> QuerySyntax? {
    var statements: [StatementSyntax] = []
    let start = current.span.start
    while !atEnd {
      if isSemicolon { advance(); continue }
      if let statement = self.statement() {
        statements.append(statement)
        if let name = statement.name { statementNames.insert(name) }
        if statements.count > Self.maximumStatements {
          error("parse.too-many-statements", "the query has more than \(Self.maximumStatements) statements", at: statement.span,
                help: "split it into smaller queries")
          return nil
        }
      }
      if isSemicolon { advance(); continue }
      if !atEnd {
        if let misread = operatorWord() {
          report(misread)
        } else {
          error("parse.expected-separator", "expected '|' or ';', found \(describe(current))", at: current.span,
                help: "separate stages with '|' and statements with ';'")
        }
        recover()
        if isPipe { advance(); recover() }
      }
    }
    guard !statements.isEmpty else {
      if diagnostics.isEmpty {
        error("parse.empty", "empty query", at: SourceSpan(start, start),
              help: "write a predicate such as title == \"june*\"cd, or search \"words\" | top 5")
      }
      return nil
    }
    return QuerySyntax(statements: statements, span: SourceSpan(start, current.span.start))
  }

  // MARK: statement = "let" name "=" pipeline | name "=" pipeline | pipeline

  mutating func statement() -> StatementSyntax? {
    let start = current.span.start
    var name: String?
    var nameSpan: SourceSpan?
    var isLet = false
    if isIdentifier(current, "let"), case .identifier(let bound) = token(at: 1).kind {
      isLet = true
      name = bound
      nameSpan = token(at: 1).span
      advance(); advance()
      if case .operator(let op) = current.kind, op == .singleEqual || op == .equal {
        advance()
      } else {
        error("parse.expected-equals", "expected '=' after 'let \(bound)'", at: current.span)
      }
    } else if case .identifier(let candidate) = current.kind, case .operator(.singleEqual) = token(at: 1).kind,
      startsPipeline(at: 2)
    {
      name = candidate
      nameSpan = current.span
      advance(); advance()
    }
    guard let pipeline = self.pipeline(requireSource: true) else { return nil }
    return StatementSyntax(name: name, nameSpan: nameSpan, isLet: isLet, pipeline: pipeline, span: SourceSpan(start, pipeline.span.end))
  }

  /// True when the token at `offset` starts a pipeline source rather than a value
  /// (`a = search ...` is a statement; `title = "x"` is a predicate).
  private func startsPipeline(at offset: Int) -> Bool {
    let token = token(at: offset)
    if isIdentifier(token, "search") { return true }
    if isIdentifier(token, "merge"), case .leftParen = self.token(at: offset + 1).kind { return true }
    if case .identifier(let name) = token.kind, statementNames.contains(name) { return true }
    return false
  }

  // MARK: pipeline = source { "|" stage }

  mutating func pipeline(requireSource: Bool) -> PipelineSyntax? {
    let start = current.span.start
    var source: SourceSyntax?
    if requireSource {
      do {
        source = try self.pipelineSource()
      } catch {
        recover()
      }
    }
    var stages: [StageSyntax] = []
    var expectStage = !requireSource
    while true {
      if isPipe {
        advance()
        expectStage = true
      }
      guard expectStage else { break }
      expectStage = false
      if atEnd || isSemicolon || isRightParen {
        error("parse.expected-stage", "expected a stage after '|'", at: current.span,
              help: "add a stage such as 'top 5', 'count' or 'group by keywords', or remove the '|'")
        break
      }
      do {
        stages.append(try stage())
      } catch {
        recover(stopAtRightParen: !requireSource)
      }
      if !isPipe { break }
    }
    let end = stages.last?.span.end ?? max(start, tokens[max(0, position - 1)].span.end)
    if source == nil && requireSource && stages.isEmpty { return nil }
    return PipelineSyntax(source: source, stages: stages, span: SourceSpan(start, end))
  }

  // MARK: source = "search" predicate | "merge" "(" name { "," name } ")" | name | predicate

  mutating func pipelineSource() throws -> SourceSyntax {
    if isIdentifier(current, "search") {
      let keyword = advance()
      if atEnd || isPipe || isSemicolon {
        throw fail("parse.expected-predicate", "expected a predicate after 'search'", at: current.span,
                   help: "write search * for every item, or search \"words\", or search title == \"x\"cd")
      }
      let predicate = try expression()
      try checkCondition(predicate)
      return .search(predicate, keywordSpan: keyword.span)
    }
    if isIdentifier(current, "merge"), case .leftParen = token(at: 1).kind {
      let keyword = advance()
      advance()
      var names: [String] = []
      var spans: [SourceSpan] = []
      while true {
        guard case .identifier(let name) = current.kind else {
          throw fail("parse.expected-name", "expected a statement name in merge(...)", at: current.span,
                     help: "merge the results of named statements: a = search ...; b = search ...; merge(a, b)")
        }
        names.append(name)
        spans.append(advance().span)
        if isComma { advance(); continue }
        guard isRightParen else { throw fail("parse.expected-paren", "expected ',' or ')' in merge(...)", at: current.span) }
        advance()
        break
      }
      return .merge(names, spans, keywordSpan: keyword.span)
    }
    if case .identifier(let name) = current.kind, statementNames.contains(name) {
      let next = token(at: 1).kind
      let ends: Bool = switch next {
      case .pipe, .semicolon, .endOfInput, .rightParen: true
      default: false
      }
      if ends { return .reference(name, advance().span) }
    }
    // A bare predicate (an Apple query string) is an implicit `search`.
    let start = current.span
    let predicate = try expression()
    if case .anyAttribute(deep: false) = predicate.kind {
      // Not an Apple query string; the CLI and the REPL read it as `search *` (see prepareTyped).
      throw fail("parse.lone-star", "'*' alone is not a predicate", at: predicate.span,
                 help: "write search * for every item, or * == \"word\"cd for items with the word in any text attribute")
    }
    try checkCondition(predicate)
    return .search(predicate, keywordSpan: SourceSpan(start.start, start.start))
  }

  /// Rejects conditions Apple's query syntax does not have, which would otherwise mean
  /// something other than what they seem to: `-word` (a negated name, not an exclusion) and
  /// `* != "x"` (which text attribute differs?). Walks the `&&`, `||` and `!` of a predicate.
  mutating func checkCondition(_ expression: Expression) throws {
    switch expression.kind {
    case .binary(.and, let lhs, let rhs), .binary(.or, let lhs, let rhs):
      try checkCondition(lhs)
      try checkCondition(rhs)
    case .unary(.not, let operand):
      try checkCondition(operand)
    case .unary(.negate, let operand):
      switch operand.kind {
      case .identifier(let word):
        throw fail("parse.leading-minus", "'-' does not exclude a word: -\(word) is the negative of a name", at: expression.span,
                   help: "write !\"\(word)\" for items without the word")
      case .string(let literal):
        throw fail("parse.leading-minus", "'-' does not exclude text", at: expression.span,
                   help: "write !\"\(literal.text)\" for items without it")
      default: break
      }
    case .comparison(.notEqual, let lhs, _, _):
      if case .anyAttribute(let deep) = lhs.kind {
        let star = deep ? "**" : "*"
        throw fail("parse.any-attribute-not-equal", "'\(star) !=' has no single meaning: some attribute differs, or none matches", at: expression.span,
                   help: "write !(\(star) == \"x\") for items in which no attribute matches")
      }
    default: break
    }
  }

  // MARK: stage = name ( callArguments | "fork" branch { branch } | clauses ) [ "as" string ]

  mutating func stage() throws -> StageSyntax {
    guard case .identifier(let name) = current.kind else {
      throw fail("parse.expected-stage", "expected a stage name, found \(describe(current))", at: current.span,
                 help: "stages are words such as where, sort, top, group, count, stats, table, text")
    }
    let nameToken = advance()
    var arguments: StageSyntax.Arguments
    if name == "fork" {
      var branches: [PipelineSyntax] = []
      while isLeftParen {
        advance()
        guard let branch = pipeline(requireSource: false) else { throw Recovery() }
        branches.append(branch)
        guard isRightParen else {
          throw fail("parse.expected-paren", "expected ')' to close the fork branch", at: current.span)
        }
        advance()
      }
      if branches.count < 2 {
        throw fail("parse.fork-branches", "fork needs at least two branches in parentheses", at: nameToken.span,
                   help: "write fork (count as \"Matches\") (top 3 | text)")
      }
      arguments = .branches(branches)
    } else if isLeftParen, !current.precededBySpace {
      advance()
      arguments = .call(try callArguments())
    } else {
      arguments = .clauses(try clauses())
    }
    var label: String?
    var labelSpan: SourceSpan?
    if isIdentifier(current, "as") {
      advance()
      guard case .string(let text) = current.kind else {
        throw fail("parse.expected-label", "expected a quoted label after 'as'", at: current.span, help: "write as \"Matches\"")
      }
      rejectBoost(text, "a label")
      label = text.text
      labelSpan = advance().span
    }
    let end = max(nameToken.span.end, tokens[max(0, position - 1)].span.end)
    return StageSyntax(name: name, nameSpan: nameToken.span, arguments: arguments, label: label, labelSpan: labelSpan,
                       span: SourceSpan(nameToken.span.start, end))
  }

  /// clauses = [ clause { "," clause } ]; clause = expression { expression }
  private mutating func clauses() throws -> [[Expression]] {
    var result: [[Expression]] = []
    var clause: [Expression] = []
    while true {
      if atEnd || isPipe || isSemicolon || isRightParen { break }
      if inStageFile, startsStageDefinition { break }
      if isIdentifier(current, "as") {
        if case .string = token(at: 1).kind { break }
        throw fail("parse.expected-label", "expected a quoted label after 'as'", at: token(at: 1).span, help: "write as \"Matches\"")
      }
      if isComma {
        if clause.isEmpty { throw fail("parse.empty-clause", "expected a value before ','", at: current.span) }
        result.append(clause)
        clause = []
        advance()
        continue
      }
      clause.append(try expression())
    }
    if !clause.isEmpty { result.append(clause) }
    else if !result.isEmpty { throw fail("parse.empty-clause", "expected a value after ','", at: current.span) }
    return result
  }

  /// callArguments = [ argument { "," argument } ] ")"; argument = [ name ":" ] expression
  private mutating func callArguments() throws -> [Argument] {
    var arguments: [Argument] = []
    if isRightParen { advance(); return arguments }
    while true {
      var label: String?
      var labelSpan: SourceSpan?
      if case .identifier(let name) = current.kind, case .colon = token(at: 1).kind {
        label = name
        labelSpan = advance().span
        advance()
      }
      // Bare dates and patterns work as arguments too: InRange(dueDate, 2026-12-01, 2026-12-31).
      arguments.append(Argument(label: label, labelSpan: labelSpan, value: try bareWord() ?? expression()))
      if isComma { advance(); continue }
      guard isRightParen else {
        throw fail("parse.expected-paren", "expected ',' or ')' in the argument list, found \(describe(current))", at: current.span)
      }
      advance()
      return arguments
    }
  }

  // MARK: Expressions

  /// expression = or
  public mutating func expression() throws -> Expression {
    depth += 1
    defer { depth -= 1 }
    guard depth < Self.maximumDepth else { throw tooDeep(at: current.span) }
    let result = try or()
    // The outermost expression checks the height of the whole tree it built: arithmetic
    // chains (`1 - 1 - 1 ...`) nest one level per operator.
    if depth == 1, Self.height(of: result) > Self.maximumDepth { throw tooDeep(at: result.span) }
    return result
  }

  private mutating func tooDeep(at span: SourceSpan) -> Recovery {
    fail("parse.too-deep", "the query is nested too deeply (more than \(Self.maximumDepth) levels)", at: span,
         help: "split it into smaller queries, or use fewer parentheses, '!' and arithmetic operators in a row")
  }

  /// The height of an expression tree, counted without recursion.
  static func height(of expression: Expression) -> Int {
    var deepest = 0
    var pending: [(Expression, Int)] = [(expression, 1)]
    while let (node, level) = pending.popLast() {
      deepest = max(deepest, level)
      switch node.kind {
      case .unary(_, let operand): pending.append((operand, level + 1))
      case .binary(_, let lhs, let rhs), .comparison(_, let lhs, let rhs, _):
        pending.append((lhs, level + 1))
        pending.append((rhs, level + 1))
      case .call(_, _, let arguments): pending += arguments.map { ($0.value, level + 1) }
      case .boolean, .number, .duration, .string, .time, .identifier, .anyAttribute, .variable, .similar: break
      }
    }
    return deepest
  }

  /// or = and { "||" and }
  private mutating func or() throws -> Expression {
    var operands = [try and()]
    while case .operator(.or) = current.kind {
      advance()
      operands.append(try and())
    }
    return Self.balanced(.or, operands[...])
  }

  /// and = not { "&&" not }
  private mutating func and() throws -> Expression {
    var operands = [try not()]
    while case .operator(.and) = current.kind {
      advance()
      operands.append(try not())
    }
    return Self.balanced(.and, operands[...])
  }

  /// `a op b op c ...` for an associative `op` as a balanced tree (left-leaning: `a || b || c`
  /// is `(a || b) || c`, as written), so its height grows with the logarithm of its length.
  package static func balanced(_ op: BinaryOperator, _ operands: ArraySlice<Expression>) -> Expression {
    if operands.count == 1 { return operands[operands.startIndex] }
    let middle = operands.startIndex + (operands.count + 1) / 2
    let lhs = balanced(op, operands[..<middle])
    let rhs = balanced(op, operands[middle...])
    return Expression(.binary(op, lhs, rhs), lhs.span.union(rhs.span))
  }

  /// not = "!" not | comparison
  private mutating func not() throws -> Expression {
    if case .operator(.not) = current.kind {
      let bang = advance()
      depth += 1
      defer { depth -= 1 }
      guard depth < Self.maximumDepth else { throw tooDeep(at: bang.span) }
      let operand = try not()
      return Expression(.unary(.not, operand), bang.span.union(operand.span))
    }
    return try comparison()
  }

  /// comparison = additive [ compareOp [ "[" modifiers "]" ] value ]
  private mutating func comparison() throws -> Expression {
    let lhs = try additive()
    guard case .operator(let op) = current.kind, let comparison = Self.comparisonOperator(op) else { return lhs }
    let opToken = advance()
    var bracket: String?
    if case .bracketModifiers(let letters) = current.kind {
      bracket = letters
      advance()
    }
    if atEnd || isPipe || isSemicolon || isRightParen || isComma {
      throw fail("parse.expected-value", "expected a value after '\(source.slice(opToken.span))'", at: current.span,
                 help: "compare with a quoted string, a number or a date, e.g. title == \"june*\"cd")
    }
    let rhs = try value()
    if case .operator(let next) = current.kind, Self.comparisonOperator(next) != nil {
      throw fail("parse.chained-comparison", "comparisons cannot be chained", at: current.span,
                 help: "use InRange(attribute, low, high) or join two comparisons with &&")
    }
    let span = lhs.span.union(rhs.span)
    try countCondition(span)
    return Expression(.comparison(comparison, lhs, rhs, bracketModifiers: bracket), span)
  }

  /// Counts a comparison or call against `maximumConditions`.
  private mutating func countCondition(_ span: SourceSpan) throws {
    conditions += 1
    guard conditions <= Self.maximumConditions else {
      throw fail("parse.too-many-conditions", "the query has more than \(Self.maximumConditions) comparisons and calls", at: span,
                 help: "split it into smaller queries, or search for the words in one string: \"alpha beta gamma\"")
    }
  }

  /// Counts the words of a string against `maximumWords`.
  private mutating func countWords(_ text: String, _ span: SourceSpan) throws {
    words += Self.wordCount(text)
    guard words <= Self.maximumWords else {
      throw fail("parse.too-many-words", "the query's strings have more than \(Self.maximumWords) words", at: span,
                 help: "search for fewer words: the rarest few find the same items")
    }
  }

  /// The runs of non-whitespace scalars in `text` (by scalar rather than by `Character`:
  /// every query pays for this count, and grapheme breaking cost more than the rest of parsing).
  static func wordCount(_ text: String) -> Int {
    var count = 0
    var inWord = false
    for scalar in text.unicodeScalars {
      let space = scalar.isASCII ? (scalar == " " || (scalar.value >= 0x09 && scalar.value <= 0x0D)) : scalar.properties.isWhitespace
      if !space, !inWord { count += 1 }
      inWord = !space
    }
    return count
  }

  private static func comparisonOperator(_ op: Token.Operator) -> ComparisonOperator? {
    switch op {
    case .equal, .singleEqual: .equal
    case .notEqual: .notEqual
    case .less: .less
    case .greater: .greater
    case .lessEqual: .lessEqual
    case .greaterEqual: .greaterEqual
    default: nil
    }
  }

  /// value = bareWord | additive. A bare word is a run of adjacent tokens that spells a
  /// pattern or a date (`june*`, `*.pdf`, `2026-05-01`, `2026-05-01T08:00:00Z`).
  private mutating func value() throws -> Expression {
    if let word = bareWord() { return word }
    return try additive()
  }

  /// A bare word at the current position, if the adjacent tokens spell one.
  private mutating func bareWord() -> Expression? {
    var end = position
    var hasWildcard = false
    var hasColonOrDot = false
    while end < tokens.count - 1 {
      let token = tokens[end]
      if end > position && token.precededBySpace { break }
      var allowed = true
      switch token.kind {
      case .identifier, .number, .duration: break
      case .star, .starStar, .question: hasWildcard = true
      case .colon, .dot: hasColonOrDot = true
      case .operator(.minus), .operator(.plus): break
      default: allowed = false
      }
      if !allowed { break }
      end += 1
    }
    let run = Array(tokens[position..<end])
    let startsWithNumber: Bool = if case .number = run.first?.kind { true } else { false }
    let hasMinusAfterNumber = startsWithNumber && run.count > 2 && {
      if case .operator(.minus) = run[1].kind { return true }
      return false
    }()
    let isSingleStar = run.count == 1 && hasWildcard
    if isSingleStar || (run.count > 1 && (hasWildcard || hasColonOrDot || hasMinusAfterNumber)) {
      let span = SourceSpan(run.first!.span.start, run.last!.span.end)
      position = end
      let literal = StringLiteral(text: source.slice(span), form: .bare, escapedWildcards: [], modifiers: "", modifierSpan: nil)
      return Expression(.string(literal), span)
    }
    return nil
  }

  /// additive = multiplicative { ("+" | "-") multiplicative }
  private mutating func additive() throws -> Expression {
    var lhs = try multiplicative()
    while case .operator(let op) = current.kind, op == .plus || op == .minus {
      advance()
      let rhs = try multiplicative()
      lhs = Expression(.binary(op == .plus ? .add : .subtract, lhs, rhs), lhs.span.union(rhs.span))
    }
    return lhs
  }

  /// multiplicative = unary { ("*" | "/" | "%") unary }
  private mutating func multiplicative() throws -> Expression {
    var lhs = try unary()
    while true {
      let op: BinaryOperator
      switch current.kind {
      case .star: op = .multiply
      case .operator(.slash): op = .divide
      case .operator(.percent): op = .remainder
      default: return lhs
      }
      advance()
      let rhs = try unary()
      lhs = Expression(.binary(op, lhs, rhs), lhs.span.union(rhs.span))
    }
  }

  /// unary = "-" unary | primary
  mutating func unary() throws -> Expression {
    if case .operator(.minus) = current.kind {
      let minus = advance()
      depth += 1
      defer { depth -= 1 }
      guard depth < Self.maximumDepth else { throw tooDeep(at: minus.span) }
      let operand = try unary()
      return Expression(.unary(.negate, operand), minus.span.union(operand.span))
    }
    return try primary()
  }

  /// Seconds in the unit each `$time` function counts its offset in (now: seconds; today,
  /// yesterday, tomorrow: days; the week functions: weeks). Months and years have no fixed
  /// length, so their offsets take no unit.
  static let timeOffsetUnits: [String: (seconds: Double, name: String)] = [
    "now": (1, "seconds"), "today": (86_400, "days"), "yesterday": (86_400, "days"), "tomorrow": (86_400, "days"),
    "this_week": (604_800, "weeks"), "last_week": (604_800, "weeks"), "next_week": (604_800, "weeks"),
  ]

  /// An offset given with a unit, converted to the function's own unit; an error when it is
  /// not a whole number of that unit.
  mutating func offset(_ seconds: Double, of function: String, at span: SourceSpan) throws -> Double {
    guard let unit = Self.timeOffsetUnits[function] else {
      throw fail("parse.offset-unit", "an offset of $time.\(function) counts \(function.hasSuffix("year") ? "years" : "months") and takes no unit", at: span,
                 help: "write $time.\(function)(-1)")
    }
    let count = seconds / unit.seconds
    guard count.rounded() == count else {
      throw fail("parse.offset-unit", "an offset of $time.\(function) is a whole number of \(unit.name)", at: span,
                 help: "write $time.\(function)(\(Int(count.rounded()))) or use $time.now(\(Int(seconds))) for an offset in seconds")
    }
    return count
  }

  /// primary = number | duration | string | time | variable | "true" | "false" | "*" | "**"
  ///         | "(" expression ")" | name [ "(" callArguments ]
  private mutating func primary() throws -> Expression {
    let token = current
    switch token.kind {
    case .number(let n):
      advance()
      return Expression(.number(n), token.span)
    case .duration(let seconds):
      advance()
      return Expression(.duration(seconds), token.span)
    case .string(let s):
      advance()
      try countWords(s.text, token.span)
      let literal = StringLiteral(
        text: s.text, form: s.quote == .double ? .doubleQuoted : .singleQuoted, escapedWildcards: s.escapedWildcards,
        modifiers: s.modifiers, modifierSpan: s.modifierSpan, boost: s.boost, boostSpan: s.boostSpan)
      return Expression(.string(literal), token.span)
    case .time(let function):
      advance()
      var literal = TimeLiteral(function: function, functionSpan: token.span, offset: nil, iso: nil)
      var span = token.span
      if isLeftParen, !current.precededBySpace {
        advance()
        // `$time.this_week()`: empty parentheses are no offset.
        if isRightParen {
          span = span.union(advance().span)
          return Expression(.time(literal), span)
        }
        var sign = 1.0
        if case .operator(let op) = current.kind, op == .minus || op == .plus {
          sign = op == .minus ? -1 : 1
          advance()
        }
        switch current.kind {
        case .number(let n):
          literal.offset = sign * n
        case .duration(let seconds):
          // An offset with a unit (`-30d`, `+1w`, `-3600s`), in the function's own unit.
          literal.offset = try offset(sign * seconds, of: function, at: current.span)
        default:
          throw fail("parse.expected-offset", "expected a signed number offset in $time.\(function)(...)", at: current.span,
                     help: "write $time.today(-7) or $time.today(-7d) for seven days ago")
        }
        advance()
        guard isRightParen else { throw fail("parse.expected-paren", "expected ')' after the offset", at: current.span) }
        span = span.union(advance().span)
      }
      return Expression(.time(literal), span)
    case .timeISO(let text):
      advance()
      return Expression(.time(TimeLiteral(function: "iso", functionSpan: token.span, offset: nil, iso: text)), token.span)
    case .variable(let name):
      advance()
      return Expression(.variable(name), token.span)
    case .star:
      advance()
      return Expression(.anyAttribute(deep: false), token.span)
    case .starStar:
      advance()
      return Expression(.anyAttribute(deep: true), token.span)
    case .leftParen:
      advance()
      let inner = try expression()
      guard isRightParen else {
        throw fail("parse.expected-paren", "expected ')', found \(describe(current))", at: current.span,
                   help: "close the parenthesis opened here")
      }
      let close = advance()
      return Expression(inner.kind, token.span.union(close.span))
    case .identifier("similar") where nextIsString:
      return try similar()
    case .identifier(let name):
      advance()
      if name == "true" { return Expression(.boolean(true), token.span) }
      if name == "false" { return Expression(.boolean(false), token.span) }
      if isLeftParen {
        advance()
        let arguments = try callArguments()
        let span = token.span.union(tokens[position - 1].span)
        try countCondition(span)
        return Expression(.call(name: name, nameSpan: token.span, arguments: arguments), span)
      }
      return Expression(.identifier(name), token.span)
    case .bracketModifiers:
      throw fail("parse.unexpected-modifiers", "modifiers in brackets go right after a comparison operator", at: token.span,
                 help: "write title ==[cd] \"x\" or title == \"x\"cd")
    default:
      throw fail("parse.expected-value", "expected a value, found \(describe(token))", at: token.span,
                 help: "a predicate looks like title == \"june*\"cd, rating > 3, or \"words to search\"")
    }
  }

  /// similar = "similar" , string , { "within" , number | "limit" , number | "keywords" , string } ;
  private mutating func similar() throws -> Expression {
    let keyword = advance()
    guard case .string(let phrase) = current.kind else {
      throw fail("parse.expected-string", "expected the text to compare after 'similar'", at: current.span)
    }
    rejectBoost(phrase, "the text of 'similar'")
    try countWords(phrase.text, current.span)
    var span = keyword.span.union(advance().span)
    var syntax = SimilarSyntax(phrase: phrase.text)
    var seen = Set<String>()
    while case .identifier(let option) = current.kind, ["within", "limit", "keywords"].contains(option) {
      let optionToken = advance()
      guard seen.insert(option).inserted else {
        throw fail("parse.repeated-option", "'\(option)' is given twice", at: optionToken.span)
      }
      if option == "keywords" {
        guard case .string(let words) = current.kind else {
          throw fail("parse.expected-string", "expected quoted words after 'keywords'", at: current.span,
                     help: "write keywords \"sun star\"")
        }
        rejectBoost(words, "the keywords of 'similar'")
        try countWords(words.text, current.span)
        syntax.keywords = words.text
        span = span.union(advance().span)
        continue
      }
      guard case .number(let n) = current.kind else {
        throw fail("parse.expected-number", "expected a number after '\(option)'", at: current.span,
                   help: option == "within" ? "write within 0.8 (cosine distance, 0 to 2)" : "write limit 20")
      }
      let numberToken = advance()
      span = span.union(numberToken.span)
      if option == "within" {
        syntax.maxDistance = n
        syntax.maxDistanceSpan = numberToken.span
      } else {
        syntax.maxCount = n
        syntax.maxCountSpan = numberToken.span
      }
    }
    return Expression(.similar(syntax), span)
  }
}
