import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

@Suite struct ExpressionBinderTests {
  let title = AttributeTarget.attribute("title", .string)
  let rating = AttributeTarget.attribute("rating", .number)
  let dueDate = AttributeTarget.attribute("dueDate", .date)

  func test(_ target: AttributeTarget, _ kind: AttributeTest.Kind, negated: Bool = false) -> BoundExpression {
    .test(AttributeTest(target: target, kind: kind, negated: negated))
  }

  func pattern(_ text: String, form: StringLiteral.Form = .doubleQuoted, _ modifiers: String = "") -> AttributeTest.Kind {
    .match(MatchPattern(literal: StringLiteral(text: text, form: form), modifiers: Set(modifiers)))
  }

  func seconds(_ date: Date) -> Double { date.timeIntervalSince1970 }

  // MARK: Comparisons

  @Test func equalityAndInequalityOfText() throws {
    #expect(try bound(#"title == "x""#) == test(title, pattern("x")))
    #expect(try bound(#"title = "x""#) == test(title, pattern("x")))
    #expect(try bound(#"title != "x""#) == test(title, pattern("x"), negated: true))
  }

  @Test func numericComparisons() throws {
    #expect(try bound("rating == 3") == test(rating, .compare(.equal, 3)))
    #expect(try bound("rating != 3") == test(rating, .compare(.equal, 3), negated: true))
    #expect(try bound("rating < 3") == test(rating, .compare(.less, 3)))
    #expect(try bound("rating > 3") == test(rating, .compare(.greater, 3)))
    #expect(try bound("rating <= 3") == test(rating, .compare(.lessEqual, 3)))
    #expect(try bound("rating >= -3") == test(rating, .compare(.greaterEqual, -3)))
  }

  @Test func aValueOnTheLeftIsFlipped() throws {
    #expect(try bound("3 < rating") == test(rating, .compare(.greater, 3)))
    #expect(try bound("3 >= rating") == test(rating, .compare(.lessEqual, 3)))
  }

  @Test func inRangeIsInclusive() throws {
    #expect(try bound("InRange(rating, 2, 4.5)") == test(rating, .range(2, 4.5)))
    #expect(try bound("inRange(rating, 2, 4.5)") == test(rating, .range(2, 4.5)))
  }

  @Test func inRangeOfDatesCoversTheWholeLastDay() throws {
    let expected = test(dueDate, .range(seconds(utc(2026, 12, 1)), seconds(utc(2027, 1, 1)) - 0.001))
    #expect(try bound(#"InRange(dueDate, "2026-12-01", "2026-12-31")"#) == expected)
    #expect(try bound("InRange(dueDate, $time.iso(2026-12-01), $time.iso(2026-12-31))") == expected)
    #expect(try bound("InRange(dueDate, $time.today, $time.now)") == test(dueDate, .range(seconds(utc(2026, 11, 29)), seconds(sampleNow))))
  }

  @Test func andAndOrAreFlattened() throws {
    let a = test(rating, .compare(.greater, 1)), b = test(rating, .compare(.greater, 2)), c = test(rating, .compare(.greater, 3))
    #expect(try bound("rating > 1 && rating > 2 && rating > 3") == .and([a, b, c]))
    #expect(try bound("rating > 1 || (rating > 2 || rating > 3)") == .or([a, b, c]))
    #expect(try bound("rating > 1 || rating > 2 && rating > 3") == .or([a, .and([b, c])]))
    #expect(try bound("!(rating > 1)") == .not(a))
  }

  @Test func trueAndFalseAreConstants() throws {
    #expect(try bound("true") == .constant(.bool(true)))
    #expect(try bound("false || rating > 1") == .or([.constant(.bool(false)), test(rating, .compare(.greater, 1))]))
  }

  // MARK: Values

  @Test func stringForms() throws {
    #expect(try bound("title == 'june*'") == test(title, pattern("june*", form: .singleQuoted)))
    #expect(try bound("title == june*") == test(title, pattern("june*", form: .bare)))
    #expect(try bound("title == waterfall") == test(title, pattern("waterfall", form: .bare)))
    #expect(try bound("title == 42") == test(title, pattern("42", form: .singleQuoted)))
  }

  @Test func singleQuotesAndEscapesMakeWildcardsLiteral() throws {
    guard case .test(let single) = try bound("title == 'a*b?'"), case .match(let p1) = single.kind else { Issue.record(); return }
    #expect(p1.pieces == [.literal("a*b?")])
    guard case .test(let escaped) = try bound(#"title == "a\*b?""#), case .match(let p2) = escaped.kind else { Issue.record(); return }
    #expect(p2.pieces == [.literal("a*b"), .anyCharacter])
    guard case .test(let wild) = try bound(#"title == "a**b?""#), case .match(let p3) = wild.kind else { Issue.record(); return }
    #expect(p3.pieces == [.literal("a"), .anyRun, .literal("b"), .anyCharacter])
  }

  @Test func modifiersInAnyOrderAndInBrackets() throws {
    let expected = test(title, pattern("x", "cdw"))
    #expect(try bound(#"title == "x"cdw"#) == expected)
    #expect(try bound(#"title == "x"wdc"#) == expected)
    #expect(try bound(#"title ==[cdw] "x""#) == expected)
    #expect(try bound(#"title ==[wc] "x"d"#) == expected)
    #expect(try bound(#"title ==[] "x""#) == test(title, pattern("x")))
    guard case .test(let t) = try bound(#"title == "x"t"#), case .match(let p) = t.kind else { Issue.record(); return }
    #expect(p.tokenized && !p.wordBased && !p.caseInsensitive && !p.diacriticInsensitive)
  }

  @Test func presenceAndAbsenceWhateverTheType() throws {
    #expect(try bound(#"title == "*""#) == test(title, .present))
    #expect(try bound(#"title != "*""#) == test(title, .present, negated: true))
    #expect(try bound(#"rating == "*""#) == test(rating, .present))
    #expect(try bound(#"dueDate != "*""#) == test(dueDate, .present, negated: true))
    #expect(try bound("dueDate == *") == test(dueDate, .present))
    // A quoted or escaped star is the literal text.
    #expect(try bound("title == '*'") == test(title, pattern("*", form: .singleQuoted)))
    guard case .test(let escaped) = try bound(#"title == "\*""#), case .match(let p) = escaped.kind else { Issue.record(); return }
    #expect(p.pieces == [.literal("*")])
  }

  @Test func booleanAttributes() throws {
    let pinned = AttributeTarget.attribute("pinned", .bool)
    #expect(try bound("pinned") == test(pinned, .compare(.equal, 1)))
    #expect(try bound("pinned == true") == test(pinned, .compare(.equal, 1)))
    #expect(try bound("pinned == false") == test(pinned, .compare(.equal, 0)))
    #expect(try bound("pinned != 1") == test(pinned, .compare(.equal, 1), negated: true))
  }

  // MARK: Names

  @Test(arguments: [
    ("kMDItemTitle", "title"), ("kMDItemTextContent", "textContent"), ("kMDItemAuthors", "authorNames"),
    ("kMDItemKeywords", "keywords"), ("kMDItemStarRating", "rating"), ("kMDItemDescription", "contentDescription"),
    ("kMDItemContentCreationDate", "contentCreationDate"), ("kMDItemRecipients", "recipientNames"),
    ("kMDItemFSContentChangeDate", "contentModificationDate"),
  ])
  func kMDItemNamesAreAliases(alias: String, name: String) throws {
    var binder = ExpressionBinder(context: BindingContext(catalog: sampleCatalog, clock: sampleClock))
    guard case .attribute(let resolved, _)? = binder.resolveAttribute(alias) else {
      Issue.record("\(alias) does not resolve")
      return
    }
    #expect(resolved == name)
    let aliasExpression = try predicate("\(alias) == \"*\"")
    let nameExpression = try predicate("\(name) == \"*\"")
    #expect(binder.bindCondition(aliasExpression) == binder.bindCondition(nameExpression))
  }

  @Test func itemFieldsAndTheirAliases() throws {
    let domain = AttributeTarget.itemField(.domainIdentifier), type = AttributeTarget.itemField(.contentType)
    #expect(try bound(#"domainIdentifier == "mail*""#) == test(domain, pattern("mail*")))
    #expect(try bound(#"kMDItemDomainIdentifier == "mail*""#) == test(domain, pattern("mail*")))
    #expect(try bound(#"contentType == "email""#) == test(type, pattern("email")))
    #expect(try bound(#"kMDItemContentType == "email""#) == test(type, pattern("email")))
    #expect(try bound(#"uniqueIdentifier == "trail-1""#) == test(.itemField(.uniqueIdentifier), pattern("trail-1")))
  }

  @Test func starAndDoubleStarAsAttributes() throws {
    #expect(try bound(#"* == "x"c"#) == test(.anyText, pattern("x", "c")))
    #expect(try bound(#"** == "x"c"#) == test(.anyAttribute, pattern("x", "c")))
    #expect(try bound("search *") == .matchAll)
  }

  // MARK: Dates

  @Test func datesCompareAsPeriods() throws {
    let start = seconds(utc(2026, 11, 29)), end = seconds(utc(2026, 11, 30))
    #expect(try bound("dueDate == $time.today") == test(dueDate, .within(start: start, end: end)))
    #expect(try bound("dueDate != $time.today") == test(dueDate, .within(start: start, end: end), negated: true))
    #expect(try bound("dueDate < $time.today") == test(dueDate, .compare(.less, start)))
    #expect(try bound("dueDate >= $time.today") == test(dueDate, .compare(.greaterEqual, start)))
    #expect(try bound("dueDate <= $time.today") == test(dueDate, .compare(.less, end)))
    #expect(try bound("dueDate > $time.today") == test(dueDate, .compare(.greaterEqual, end)))
  }

  @Test func instantsCompareAsNumbers() throws {
    let now = seconds(sampleNow)
    #expect(try bound("dueDate > $time.now") == test(dueDate, .compare(.greater, now)))
    #expect(try bound("dueDate <= $time.now(-3600)") == test(dueDate, .compare(.lessEqual, now - 3600)))
    #expect(try bound("dueDate == $time.iso(2026-10-01T08:00:00Z)") == test(dueDate, .compare(.equal, seconds(utc(2026, 10, 1, 8)))))
  }

  @Test func isoStringsAndBareDatesAgainstDateAttributes() throws {
    let day = AttributeTest.Kind.within(start: seconds(utc(2026, 10, 1)), end: seconds(utc(2026, 10, 2)))
    #expect(try bound(#"dueDate == "2026-10-01""#) == test(dueDate, day))
    #expect(try bound("dueDate == 2026-10-01") == test(dueDate, day))
    #expect(try bound("dueDate == '2026-10-01'") == test(dueDate, day))
    #expect(try bound("dueDate == $time.iso(2026-10-01)") == test(dueDate, day))
    #expect(try bound("dueDate > 2026-10-01T08:00:00Z") == test(dueDate, .compare(.greater, seconds(utc(2026, 10, 1, 8)))))
  }

  @Test func bareNumbersAgainstDatesAreSecondsSince2001() throws {
    #expect(try bound("dueDate > 0") == test(dueDate, .compare(.greater, seconds(utc(2001, 1, 1)))))
    #expect(try bound("dueDate < 817300800") == test(dueDate, .compare(.less, seconds(utc(2026, 11, 25, 12)))))
  }

  @Test func isoDatesFollowTheClockZone() throws {
    let clock = QueryClock(now: sampleNow, timeZone: pacific)
    #expect(try bound("dueDate == 2026-12-15", clock: clock)
      == test(dueDate, .within(start: seconds(utc(2026, 12, 15, 8)), end: seconds(utc(2026, 12, 16, 8)))))
    #expect(try bound("dueDate >= $time.this_month", clock: clock) == test(dueDate, .compare(.greaterEqual, seconds(utc(2026, 11, 1, 7)))))
  }

  // MARK: Text search

  @Test func aBareStringIsARankedSearchOfEveryWord() throws {
    #expect(try bound(#""june launch""#) == .textSearch(TextSearch(
      terms: [.init(text: "june", isPrefix: false), .init(text: "launch", isPrefix: false)], requireAll: true)))
    #expect(try bound(#""laun*""#) == .textSearch(TextSearch(terms: [.init(text: "laun", isPrefix: true)], requireAll: true)))
    #expect(try bound("'june launch'") == .textSearch(TextSearch(
      terms: [.init(text: "june", isPrefix: false), .init(text: "launch", isPrefix: false)], requireAll: true, phrase: true)))
  }

  @Test func punctuationOnlyWordsAreDropped() throws {
    #expect(try bound(#""budget -- ; *""#) == .textSearch(TextSearch(terms: [.init(text: "budget", isPrefix: false)], requireAll: true)))
  }

  // MARK: Explain

  @Test func explanationsShowResolvedDatesInTheClockZone() throws {
    #expect(try bound("dueDate == $time.this_month").explained(in: utcZone)
      == "dueDate in [2026-11-01T00:00:00Z, 2026-12-01T00:00:00Z)")
    let clock = QueryClock(now: sampleNow, timeZone: pacific)
    #expect(try bound("dueDate == $time.this_month", clock: clock).explained(in: pacific)
      == "dueDate in [2026-11-01T00:00:00-07:00, 2026-12-01T00:00:00-08:00)")
    #expect(try bound(#"title == "june*"dc && rating != 3"#).explained(in: utcZone) == #"(title == "june*"cd) and (rating != 3)"#)
  }
}
