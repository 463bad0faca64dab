import QueryEngine
import SearchIndex

/// Items from, to or involving a person, by name or email; `me` is the user (identity file).
public struct PeopleStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "people", abstract: "Keep items from, to or involving a person (name or email); 'me' is the user from the identity file.",
    usage: #"people "NAME" | me [role from|to|any]"#,
    signatures: [.init(.items, .items), .init(.scoredItems, .scoredItems)],
    parameters: [
      StageParameter("person", .string, "A name, an email address, or me", required: true),
      StageParameter("role", .string, "from (author), to (recipient) or any", default: .string("any"), choices: ["from", "to", "any"]),
    ],
    examples: [#"search contentType == "email" | people "Sam Ortiz" role from | table title, authorNames"#])

  /// Attributes that name authors, recipients and other participants.
  static let fromAttributes = ["authorNames", "authorEmailAddresses"]
  static let toAttributes = ["recipientNames", "recipientEmailAddresses"]
  static let otherAttributes = ["participants", "editors", "contributors", "emailAddresses"]

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call), clauses.count == 1, let first = clauses[0].first else {
      context.report(Diagnostic("stage.usage", "'people' needs a person", at: call.span, help: "write \(descriptor.usage)"))
      return nil
    }
    var people: [String]
    switch first.kind {
    case .string(let s): people = [s.text]
    case .identifier("me"):
      let identity = context.binder.context.identity
      guard !identity.isEmpty else {
        context.report(Diagnostic("people.no-identity", "'me' needs an identity", at: first.span,
                                  help: "pass --identity FILE with {\"names\":[...],\"emails\":[...]}"))
        return nil
      }
      people = identity.names + identity.emails
    case .variable:
      guard let (bound, _) = context.bindValue(first), case .constant(let value) = bound else { return nil }
      people = [value.displayText]
    default:
      context.report(Diagnostic("stage.usage", "expected a quoted name or me", at: first.span, help: "write people \"Sam Ortiz\""))
      return nil
    }
    var role = "any"
    let rest = Array(clauses[0].dropFirst())
    if !rest.isEmpty {
      guard rest.count == 2, rest[0].identifierName == "role", let word = rest[1].identifierName, ["from", "to", "any"].contains(word) else {
        context.report(Diagnostic("stage.usage", "expected role from, role to or role any", at: rest[0].span))
        return nil
      }
      role = word
    }
    let attributes = role == "from" ? Self.fromAttributes : role == "to" ? Self.toAttributes
      : Self.fromAttributes + Self.toAttributes + Self.otherAttributes
    var tests: [BoundExpression] = []
    for person in people where !person.isEmpty {
      let literal = StringLiteral(text: person, form: .singleQuoted, escapedWildcards: [], modifiers: "", modifierSpan: nil)
      // Names match as words, ignoring case and diacritics ("sam ortiz" finds "Sam Ortiz");
      // email addresses match whole.
      let modifiers: Set<Character> = person.contains("@") ? ["c", "d"] : ["c", "d", "w"]
      for name in attributes {
        guard let target = context.binder.resolveAttribute(name) else { continue }
        tests.append(.test(AttributeTest(target: target, kind: .match(MatchPattern(literal: literal, modifiers: modifiers)), negated: false)))
      }
    }
    return Bound(filter: .or(tests), people: people, role: role, outputType: input)
  }

  struct Bound: BoundStage {
    let filter: BoundExpression
    let people: [String]
    let role: String
    let outputType: PipelineType
    var explanation: String { "items \(role == "any" ? "involving" : role) \(people.joined(separator: " or "))" }

    func push(into plan: inout SQLPlan) -> Bool {
      guard plan.acceptsFilter else { return false }
      plan.addFilter(filter)
      return true
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      let evaluator = ExpressionEvaluator(context: context)
      return input.replacingItems(try input.resultItems.filter { try evaluator.evaluate(filter, on: $0).truth })
    }
  }
}
