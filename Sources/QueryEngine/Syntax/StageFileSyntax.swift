/// A declarative stage as written in a `.stage` file:
///
/// ```
/// stage importantNotes(minimumScore: Number = 0.6 in 0...1 "Minimum importance from 0 to 1")
///   "Scores notes by rating and freshness"
///   : items -> scoredItems
///   = score 0.6 * rating / 5 + 0.4 * recency(contentModificationDate, 14d)
///   | where score >= minimumScore
/// ```
public struct StageDeclarationSyntax: Sendable, Hashable {
  /// One parameter: `minimumScore: Number = 0.6 in 0...1 "description"`.
  public struct Parameter: Sendable, Hashable {
    public var name: String
    public var nameSpan: SourceSpan
    public var typeName: String
    public var typeSpan: SourceSpan
    public var defaultValue: Expression?
    public var range: ClosedRange<Double>?
    public var rangeSpan: SourceSpan?
    public var description: String
  }

  public var name: String
  public var nameSpan: SourceSpan
  public var parameters: [Parameter]
  public var description: String
  /// Input type names with their spans (`items | scoredItems`).
  public var inputTypes: [(String, SourceSpan)]
  public var outputType: String
  public var outputSpan: SourceSpan
  /// The body: stages applied to the input.
  public var body: [StageSyntax]
  public var span: SourceSpan

  public static func == (lhs: StageDeclarationSyntax, rhs: StageDeclarationSyntax) -> Bool {
    lhs.name == rhs.name && lhs.span == rhs.span && lhs.body == rhs.body && lhs.parameters == rhs.parameters
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(name)
    hasher.combine(span)
  }
}

extension Parser {
  /// Parses a `.stage` file: any number of stage definitions.
  public static func parseStageFile(_ source: SourceText) -> ([StageDeclarationSyntax], [Diagnostic]) {
    var parser = Parser(source)
    parser.inStageFile = true
    var declarations: [StageDeclarationSyntax] = []
    while !parser.atEnd {
      if parser.isSemicolon { parser.advance(); continue }
      do {
        declarations.append(try parser.stageDeclaration())
      } catch {
        // Skip to the next definition.
        while !parser.atEnd && !parser.startsStageDefinition { parser.advance() }
      }
    }
    if declarations.isEmpty && parser.diagnostics.isEmpty {
      parser.error("stagefile.empty", "the file defines no stage", at: SourceSpan(0, 0),
                   help: "write stage name(parameter: Number = 1) \"description\" : items -> scoredItems = score ...")
    }
    return (declarations, parser.diagnostics)
  }

  /// True at `stage NAME(`.
  var startsStageDefinition: Bool {
    guard isIdentifier(current, "stage"), case .identifier = token(at: 1).kind, case .leftParen = token(at: 2).kind else { return false }
    return true
  }

  /// stage-definition = "stage" name "(" [ parameter { "," parameter } ] ")" string ":" type { "|" type } "->" type "=" stage { "|" stage } [ ";" ]
  mutating func stageDeclaration() throws -> StageDeclarationSyntax {
    guard isIdentifier(current, "stage") else {
      throw fail("stagefile.expected-stage", "expected 'stage' to start a definition, found \(describe(current))", at: current.span,
                 help: "write stage name(...) \"description\" : items -> scoredItems = ...")
    }
    let start = advance().span.start
    guard case .identifier(let name) = current.kind else {
      throw fail("stagefile.expected-name", "expected the stage's name", at: current.span)
    }
    let nameSpan = advance().span
    guard isLeftParen else { throw fail("stagefile.expected-paren", "expected '(' after the stage name", at: current.span) }
    advance()
    var parameters: [StageDeclarationSyntax.Parameter] = []
    if !isRightParen {
      while true {
        parameters.append(try parameterDeclaration())
        if isComma { advance(); continue }
        guard isRightParen else { throw fail("stagefile.expected-paren", "expected ',' or ')' after a parameter", at: current.span) }
        break
      }
    }
    advance()
    guard case .string(let description) = current.kind else {
      throw fail("stagefile.expected-description", "expected a quoted description of the stage", at: current.span,
                 help: "describe what the stage does for a model: \"Scores notes by rating and freshness\"")
    }
    advance()
    guard case .colon = current.kind else {
      throw fail("stagefile.expected-signature", "expected ':' and the signature (items -> scoredItems)", at: current.span)
    }
    advance()
    var inputs: [(String, SourceSpan)] = []
    while true {
      guard case .identifier(let type) = current.kind else {
        throw fail("stagefile.expected-type", "expected an input type (items, scoredItems, groupedItems, ...)", at: current.span)
      }
      inputs.append((type, advance().span))
      if isPipe { advance(); continue }
      break
    }
    guard case .arrow = current.kind else { throw fail("stagefile.expected-arrow", "expected '->' and the output type", at: current.span) }
    advance()
    guard case .identifier(let output) = current.kind else {
      throw fail("stagefile.expected-type", "expected the output type (items, scoredItems, ...)", at: current.span)
    }
    let outputSpan = advance().span
    guard case .operator(let op) = current.kind, op == .singleEqual || op == .equal else {
      throw fail("stagefile.expected-body", "expected '=' and the stages of the body", at: current.span)
    }
    advance()
    var body: [StageSyntax] = []
    while true {
      body.append(try stage())
      if isPipe { advance(); continue }
      break
    }
    if isSemicolon { advance() }
    if !atEnd && !startsStageDefinition {
      throw fail("stagefile.trailing", "unexpected \(describe(current)) after the stage body", at: current.span,
                 help: "start the next definition with 'stage name(...)', or join stages with '|'")
    }
    let end = body.last?.span.end ?? outputSpan.end
    return StageDeclarationSyntax(
      name: name, nameSpan: nameSpan, parameters: parameters, description: description.text, inputTypes: inputs,
      outputType: output, outputSpan: outputSpan, body: body, span: SourceSpan(start, end))
  }

  /// parameter = name ":" type-name [ "=" expression ] [ "in" number "..." number ] [ string ]
  mutating func parameterDeclaration() throws -> StageDeclarationSyntax.Parameter {
    guard case .identifier(let name) = current.kind else {
      throw fail("stagefile.expected-parameter", "expected a parameter name", at: current.span)
    }
    let nameSpan = advance().span
    guard case .colon = current.kind else {
      throw fail("stagefile.expected-parameter-type", "expected ':' and the type of '\(name)'", at: current.span,
                 help: "write \(name): Number = 1")
    }
    advance()
    guard case .identifier(let typeName) = current.kind else {
      throw fail("stagefile.expected-parameter-type", "expected the type of '\(name)' (Number, Integer, String, Boolean, Duration, Date, Attribute)", at: current.span)
    }
    let typeSpan = advance().span
    var defaultValue: Expression?
    if case .operator(let op) = current.kind, op == .singleEqual || op == .equal {
      advance()
      defaultValue = try unary()
    }
    var range: ClosedRange<Double>?
    var rangeSpan: SourceSpan?
    if isIdentifier(current, "in") {
      let rangeStart = advance().span.start
      let low = try signedNumber()
      guard case .ellipsis = current.kind else { throw fail("stagefile.expected-range", "expected '...' in the range", at: current.span, help: "write in 0...1") }
      advance()
      let high = try signedNumber()
      guard low <= high else {
        throw fail("stagefile.empty-range", "the range is empty: \(low) is above \(high)", at: SourceSpan(rangeStart, tokens[position - 1].span.end))
      }
      range = low...high
      rangeSpan = SourceSpan(rangeStart, tokens[position - 1].span.end)
    }
    var description = ""
    if case .string(let text) = current.kind {
      description = text.text
      advance()
    }
    return StageDeclarationSyntax.Parameter(
      name: name, nameSpan: nameSpan, typeName: typeName, typeSpan: typeSpan, defaultValue: defaultValue, range: range,
      rangeSpan: rangeSpan, description: description)
  }

  private mutating func signedNumber() throws -> Double {
    var sign = 1.0
    if case .operator(.minus) = current.kind { sign = -1; advance() }
    switch current.kind {
    case .number(let n): advance(); return sign * n
    case .duration(let n): advance(); return sign * n
    default: throw fail("stagefile.expected-number", "expected a number in the range", at: current.span)
    }
  }
}
