import Foundation
import Testing

/// The lowest guidance level whose generated schema offers everything a call uses.
enum SchemaLevel: Sendable, Hashable {
  /// Words, dates, operations, pageSize and label: valid under focused and complete.
  case focused
  /// Valid under complete.
  case complete
  /// Valid under this profile (`profile:...`) and under complete.
  case profile(String)
  /// Uses parts of Apple's shape the generated schemas do not offer (they still decode).
  case appleOnly
}

/// A tool call, the hand-written query that means the same, and the guidance level it fits.
struct ToolCase: Sendable, CustomTestStringConvertible {
  var name: String
  var call: String
  /// A query a person would write for the same question: it must return the same results.
  var dsl: String
  var level: SchemaLevel
  /// The exact query the call decodes to, where it is worth pinning.
  var query: String? = nil
  /// Whether the call needs the user's identity (personMe, the user entity).
  var needsIdentity = false
  /// A note the decoder must add (what it assumed), when it adds one.
  var note: String? = nil
  /// True when an empty result is the right answer.
  var mayBeEmpty = false

  var testDescription: String { name }
}

/// The decode suite: every query node, operator, value kind, temporal form, person role,
/// ranking model, stage kind and search option.
enum ToolCases {
  typealias C = Call

  // MARK: Nodes

  static let nodes: [ToolCase] = [
    ToolCase(name: "allText", call: C.root(C.allText("budget")), dsl: #"search "budget" | top 21"#, level: .focused,
             query: #"search ("budget") | top 21"#),
    ToolCase(name: "allText with several words requires every word", call: C.root(C.allText("kitchen", "remodel")),
             dsl: #"search "kitchen remodel" | top 21"#, level: .focused),
    ToolCase(name: "operation all", call: C.root(C.operation("all", C.allText("budget"), C.predicate("domainIdentifier", "prefix", C.string("mail")))),
             dsl: #"search "budget" && domainIdentifier == "mail*"cd | top 21"#, level: .complete),
    ToolCase(name: "operation any", call: C.root(C.operation("any", C.allText("waterfall"), C.allText("glacier"))),
             dsl: #"search "waterfall" || "glacier" | top 21"#, level: .focused),
    ToolCase(name: "operation none", call: C.root(C.operation("none", C.allText("budget"))), dsl: #"search !"budget" | top 21"#, level: .focused),
    ToolCase(name: "nested operations",
             call: C.root(C.operation("all", C.predicate("domainIdentifier", "equals", C.string("trails")),
                                      C.operation("any", C.predicate("stateOrProvince", "equals", C.string("oregon")),
                                                  C.operation("none", C.predicate("rating", "lessThan", C.double(4.5)))))),
             dsl: #"search domainIdentifier == "trails" && (stateOrProvince == "Oregon"cd || !(rating < 4.5)) | top 21"#, level: .complete),
    ToolCase(name: "contentType", call: C.root(#"{"type":"contentType","value":{"contentTypes":["emails","note"]}}"#),
             dsl: #"search contentType == "email" || contentType == "note" | top 21"#, level: .complete),
    ToolCase(name: "application", call: C.root(#"{"type":"application","value":{"application":"com.apple.mail"}}"#),
             dsl: #"search domainIdentifier == "mail*" | top 21"#, level: .appleOnly, note: #"application "com.apple.mail" matched as domainIdentifier mail*"#),
    ToolCase(name: "documentsFor", call: C.root(#"{"type":"documentsFor","value":{"application":"Notes"}}"#),
             dsl: #"search domainIdentifier == "notes*" && contentType != "email" | top 21"#, level: .appleOnly),
    ToolCase(name: "semanticSimilar with keywords",
             call: C.root(#"{"type":"semanticSimilar","value":{"contentType":"text","query":"hikes to glaciers","keywords":["glacier","icefield"],"maxDistance":0.8,"maxCount":0}}"#),
             dsl: #"search "glacier" || "icefield" | top 21"#, level: .complete,
             note: "semanticSimilar ran as a ranked search for any of: glacier, icefield (this index has no embeddings)"),
    ToolCase(name: "semanticSimilar with only a query",
             call: C.root(#"{"type":"semanticSimilar","value":{"contentType":"all","query":"a waterfall hike","keywords":[],"maxDistance":1.0,"maxCount":0}}"#),
             dsl: #"search "waterfall" || "hike" | top 21"#, level: .complete),
  ]

  // MARK: Predicates: every operator and value kind

  static let predicates: [ToolCase] = [
    ToolCase(name: "equals string ignores case", call: C.root(C.predicate("stateOrProvince", "equals", C.string("oregon"))),
             dsl: #"search stateOrProvince == "Oregon"cd | top 21"#, level: .complete,
             query: #"search (stateOrProvince == 'oregon'cd) | top 21"#),
    ToolCase(name: "equals string caseSensitive", call: C.root(C.predicate("title", "equals", C.string("Mist Trail"), caseSensitive: true)),
             dsl: #"search title == "Mist Trail" | top 21"#, level: .complete),
    ToolCase(name: "equals string caseSensitive misses another case", call: C.root(C.predicate("title", "equals", C.string("mist trail"), caseSensitive: true)),
             dsl: #"search title == "mist trail" | top 21"#, level: .complete, mayBeEmpty: true),
    ToolCase(name: "equals keeps wildcards literal", call: C.root(C.predicate("title", "equals", C.string("Mist*"))),
             dsl: #"search title == 'Mist*'cd | top 21"#, level: .complete, mayBeEmpty: true),
    ToolCase(name: "equals int", call: C.root(C.predicate("rating", "equals", C.int(5))), dsl: "search rating == 5 | top 21", level: .complete),
    ToolCase(name: "equals double", call: C.root(C.predicate("rating", "equals", C.double(4.9))), dsl: "search rating == 4.9 | top 21", level: .complete),
    ToolCase(name: "equals bool", call: C.root(C.predicate("pinned", "equals", C.bool(true))), dsl: "search pinned == true | top 21", level: .complete),
    ToolCase(name: "equals date is within the day", call: C.root(C.predicate("contentCreationDate", "greaterThanOrEqual", C.date("2026-11-20"))),
             dsl: "search contentCreationDate >= $time.iso(2026-11-20) | top 21", level: .complete),
    ToolCase(name: "prefix", call: C.root(C.predicate("title", "prefix", C.string("mount"))), dsl: #"search title == "mount*"cd | top 21"#, level: .complete,
             query: #"search (title == "mount*"cd) | top 21"#),
    ToolCase(name: "prefix caseSensitive", call: C.root(C.predicate("title", "prefix", C.string("Mount"), caseSensitive: true)),
             dsl: #"search title == "Mount*" | top 21"#, level: .complete),
    ToolCase(name: "slowInfix", call: C.root(C.predicate("title", "slowInfix", C.string("lake"))), dsl: #"search title == "*lake*"cd | top 21"#, level: .complete),
    ToolCase(name: "containsWord", call: C.root(C.predicate("title", "containsWord", C.string("window"))), dsl: #"search title == "window"cdw | top 21"#, level: .complete),
    ToolCase(name: "in", call: C.root(C.predicate("stateOrProvince", "in", C.array("Oregon", "Utah"))),
             dsl: #"search stateOrProvince == "Oregon" || stateOrProvince == "Utah" | top 21"#, level: .complete),
    ToolCase(name: "`in` as Apple spells it", call: C.root(C.predicate("stateOrProvince", "`in`", C.array("Oregon", "Utah"))),
             dsl: #"search stateOrProvince == "Oregon" || stateOrProvince == "Utah" | top 21"#, level: .appleOnly),
    ToolCase(name: "containsAny", call: C.root(C.predicate("title", "containsAny", C.array("lake", "falls"))),
             dsl: #"search title == "lake"cdw || title == "falls"cdw | top 21"#, level: .complete),
    ToolCase(name: "greaterThan int", call: C.root(C.predicate("elevationGain", "greaterThan", C.int(1500))), dsl: "search elevationGain > 1500 | top 21", level: .complete),
    ToolCase(name: "lessThan double", call: C.root(C.predicate("distance", "lessThan", C.double(2.5))), dsl: "search distance < 2.5 | top 21", level: .complete),
    ToolCase(name: "greaterThanOrEqual date", call: C.root(C.predicate("contentModificationDate", "greaterThanOrEqual", C.date("2026-11-01T00:00:00Z"))),
             dsl: "search contentModificationDate >= $time.iso(2026-11-01T00:00:00Z) | top 21", level: .complete),
    ToolCase(name: "lessThanOrEqual a number written as a string", call: C.root(C.predicate("rating", "lessThanOrEqual", C.string("3.5"))),
             dsl: "search rating <= 3.5 | top 21", level: .complete),
    ToolCase(name: "lessThan a date written as a string", call: C.root(C.predicate("dueDate", "lessThan", C.string("2026-01-01"))),
             dsl: "search dueDate < $time.iso(2026-01-01) | top 21", level: .complete),
    ToolCase(name: "range of numbers", call: C.root(C.predicate("distance", "range", C.array("2", "4"))), dsl: "search InRange(distance, 2, 4) | top 21", level: .complete,
             query: "search (InRange(distance, 2, 4)) | top 21"),
    ToolCase(name: "range of dates", call: C.root(C.predicate("contentCreationDate", "range", C.array("2026-11-01", "2026-11-30"))),
             dsl: "search InRange(contentCreationDate, $time.iso(2026-11-01), $time.iso(2026-11-30)) | top 21", level: .complete),
    ToolCase(name: "the any-text attribute", call: C.root(C.predicate("*", "equals", C.string("lake"))), dsl: #"search * == 'lake'cd | top 21"#, level: .appleOnly,
             mayBeEmpty: true),
  ]

  // MARK: Time

  static let temporal: [ToolCase] = [
    ToolCase(name: "on lastWeek in the past", call: C.root(C.temporal("on", #""reference":\#(C.relative("lastWeek")),"tense":"past""#)),
             dsl: "search contentModificationDate == $time.last_week || contentCreationDate == $time.last_week | top 21", level: .focused),
    ToolCase(name: "on yesterday", call: C.root(C.temporal("on", #""reference":\#(C.relative("yesterday"))"#)),
             dsl: "search contentModificationDate == $time.yesterday || contentCreationDate == $time.yesterday | top 21", level: .focused, mayBeEmpty: true),
    ToolCase(name: "on thisMonth current", call: C.root(C.temporal("on", #""reference":\#(C.relative("thisMonth")),"tense":"current""#)),
             dsl: "search contentModificationDate == $time.this_month || contentCreationDate == $time.this_month | top 21", level: .focused),
    ToolCase(name: "on thisMonth in the future",
             call: C.root(C.temporal("on", #""reference":\#(C.relative("thisMonth")),"tense":"future""#)),
             dsl: """
               search contentModificationDate >= $time.now && contentModificationDate < $time.iso(2026-12-01T00:00:00Z)
                 || contentCreationDate >= $time.now && contentCreationDate < $time.iso(2026-12-01T00:00:00Z) | top 21
               """, level: .focused, mayBeEmpty: true),
    ToolCase(name: "on thisYear", call: C.root(C.temporal("on", #""reference":\#(C.relative("thisYear"))"#)),
             dsl: "search contentModificationDate == $time.this_year || contentCreationDate == $time.this_year | top 21", level: .focused),
    ToolCase(name: "on lastMonth", call: C.root(C.temporal("on", #""reference":\#(C.relative("lastMonth"))"#)),
             dsl: "search contentModificationDate == $time.this_month(-1) || contentCreationDate == $time.this_month(-1) | top 21", level: .focused),
    ToolCase(name: "on lastYear", call: C.root(C.temporal("on", #""reference":\#(C.relative("lastYear"))"#)),
             dsl: "search contentModificationDate == $time.this_year(-1) || contentCreationDate == $time.this_year(-1) | top 21", level: .focused),
    ToolCase(name: "on nextWeek", call: C.root(C.temporal("on", #""reference":\#(C.relative("nextWeek"))"#)),
             dsl: "search contentModificationDate == $time.this_week(1) || contentCreationDate == $time.this_week(1) | top 21", level: .focused, mayBeEmpty: true),
    ToolCase(name: "on nextMonth", call: C.root(C.temporal("on", #""reference":\#(C.relative("nextMonth"))"#)),
             dsl: "search contentModificationDate == $time.this_month(1) || contentCreationDate == $time.this_month(1) | top 21", level: .focused, mayBeEmpty: true),
    ToolCase(name: "offset in hours", call: C.root(C.temporal("on", #""reference":\#(C.relative("today")),"offset":{"value":-24,"unit":"hours"}"#)),
             dsl: "search contentModificationDate == $time.yesterday || contentCreationDate == $time.yesterday | top 21", level: .focused, mayBeEmpty: true),
    ToolCase(name: "offset in days", call: C.root(C.temporal("on", #""reference":\#(C.relative("today")),"offset":{"value":-2,"unit":"days"}"#)),
             dsl: "search contentModificationDate == $time.today(-2) || contentCreationDate == $time.today(-2) | top 21", level: .focused),
    ToolCase(name: "offset in weeks", call: C.root(C.temporal("on", #""reference":\#(C.relative("thisWeek")),"offset":{"value":-1,"unit":"weeks"}"#)),
             dsl: "search contentModificationDate == $time.last_week || contentCreationDate == $time.last_week | top 21", level: .focused),
    ToolCase(name: "offset in months", call: C.root(C.temporal("on", #""reference":\#(C.relative("thisMonth")),"offset":{"value":-2,"unit":"months"}"#)),
             dsl: "search contentModificationDate == $time.this_month(-2) || contentCreationDate == $time.this_month(-2) | top 21", level: .focused),
    ToolCase(name: "offset in years", call: C.root(C.temporal("on", #""reference":\#(C.relative("thisYear")),"offset":{"value":-1,"unit":"years"}"#)),
             dsl: "search contentModificationDate == $time.this_year(-1) || contentCreationDate == $time.this_year(-1) | top 21", level: .focused),
    ToolCase(name: "on an absolute month, plain integers", call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":2025,"month":6"#))"#)),
             dsl: """
               search contentModificationDate >= $time.iso(2025-06-01) && contentModificationDate < $time.iso(2025-07-01)
                 || contentCreationDate >= $time.iso(2025-06-01) && contentCreationDate < $time.iso(2025-07-01) | top 21
               """, level: .focused),
    ToolCase(name: "on an absolute month, Apple's component form",
             call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":{"type":"concrete","value":2025},"month":{"type":"month","value":{"value":6}}"#)),"tense":"past""#)),
             dsl: """
               search contentModificationDate >= $time.iso(2025-06-01) && contentModificationDate < $time.iso(2025-07-01)
                 || contentCreationDate >= $time.iso(2025-06-01) && contentCreationDate < $time.iso(2025-07-01) | top 21
               """, level: .appleOnly),
    ToolCase(name: "on an absolute day, concrete components",
             call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":{"type":"concrete","value":2026},"month":{"type":"concrete","value":11},"day":{"type":"day","value":{"value":5}}"#))"#)),
             dsl: "search contentModificationDate == $time.iso(2026-11-05) || contentCreationDate == $time.iso(2026-11-05) | top 21", level: .appleOnly),
    ToolCase(name: "on an absolute hour",
             call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":{"type":"concrete","value":2026},"month":{"type":"concrete","value":11},"day":{"type":"concrete","value":5},"hour":{"type":"hour","value":{"value":18}}"#))"#)),
             dsl: """
               search contentModificationDate >= $time.iso(2026-11-05T18:00:00Z) && contentModificationDate < $time.iso(2026-11-05T19:00:00Z)
                 || contentCreationDate >= $time.iso(2026-11-05T18:00:00Z) && contentCreationDate < $time.iso(2026-11-05T19:00:00Z) | top 21
               """, level: .appleOnly),
    ToolCase(name: "after a relative reference", call: C.root(C.temporal("after", #""reference":\#(C.relative("lastMonth"))"#)),
             dsl: "search contentModificationDate >= $time.this_month || contentCreationDate >= $time.this_month | top 21", level: .focused),
    ToolCase(name: "after with an offset", call: C.root(C.temporal("after", #""reference":\#(C.relative("today")),"offset":{"value":-7,"unit":"days"}"#)),
             dsl: "search contentModificationDate >= $time.today(-6) || contentCreationDate >= $time.today(-6) | top 21", level: .focused),
    ToolCase(name: "before an absolute year", call: C.root(C.temporal("before", #""reference":\#(C.absolute(#""year":2025"#))"#)),
             dsl: "search contentModificationDate < $time.iso(2025-01-01) || contentCreationDate < $time.iso(2025-01-01) | top 21", level: .focused),
    ToolCase(name: "between an absolute month and a relative reference",
             call: C.root(C.temporal("between", #""startReference":\#(C.absolute(#""year":2026,"month":3"#)),"endReference":\#(C.relative("lastMonth"))"#)),
             dsl: """
               search contentModificationDate >= $time.iso(2026-03-01) && contentModificationDate < $time.iso(2026-11-01)
                 || contentCreationDate >= $time.iso(2026-03-01) && contentCreationDate < $time.iso(2026-11-01) | top 21
               """, level: .focused),
    ToolCase(name: "between with offsets includes the end day",
             call: C.root(C.temporal("between", #""startReference":\#(C.relative("today")),"startOffset":{"value":-10,"unit":"days"},"endReference":\#(C.relative("today")),"endOffset":{"value":-3,"unit":"days"}"#)),
             dsl: """
               search contentModificationDate >= $time.today(-10) && contentModificationDate < $time.today(-2)
                 || contentCreationDate >= $time.today(-10) && contentCreationDate < $time.today(-2) | top 21
               """, level: .focused),
    ToolCase(name: "recurring month", call: C.root(C.temporal("recurring", #""value":{"month":{"type":"concrete","value":12}}"#)),
             dsl: "search * | where month(contentCreationDate) == 12 | top 21", level: .appleOnly,
             query: "search * | where (month(contentCreationDate) == 12) | top 21"),
    ToolCase(name: "recurring day, weekday and week of year",
             call: C.root(C.temporal("recurring", #""value":{"day":{"type":"concrete","value":5},"weekday":{"type":"weekday","value":{"value":5}},"weekOfYear":{"type":"weekOfYear","value":{"value":45}}}"#)),
             dsl: "search * | where dayOfMonth(contentCreationDate) == 5 && weekday(contentCreationDate) == 5 && weekOfYear(contentCreationDate) == 45 | top 21",
             level: .appleOnly, mayBeEmpty: true),
    ToolCase(name: "recurring inside scopes",
             call: C.search(#"{"root":\#(C.temporal("recurring", #""value":{"month":{"type":"concrete","value":6}}"#)),"scopes":["trails"]}"#),
             dsl: #"search domainIdentifier == "trails" | where month(contentCreationDate) == 6 | top 21"#, level: .appleOnly),
  ]

  // MARK: People

  static let people: [ToolCase] = [
    ToolCase(name: "person originator", call: C.root(#"{"type":"person","value":{"type":"originator","value":"Sam Ortiz"}}"#),
             dsl: #"search authorNames == "Sam Ortiz"cdw | top 21"#, level: .complete),
    ToolCase(name: "person recipient", call: C.root(#"{"type":"person","value":{"type":"recipient","value":"Sam Ortiz"}}"#),
             dsl: #"search recipientNames == "Sam Ortiz"cdw | top 21"#, level: .complete),
    ToolCase(name: "person participant", call: C.root(#"{"type":"person","value":{"type":"participant","value":"Lena Novak"}}"#),
             dsl: #"search authorNames == "Lena Novak"cdw || recipientNames == "Lena Novak"cdw | top 21"#, level: .complete),
    ToolCase(name: "person any by email", call: C.root(#"{"type":"person","value":{"type":"any","value":"sam.ortiz@example.com"}}"#),
             dsl: #"search authorEmailAddresses == "sam.ortiz@example.com"cd || recipientEmailAddresses == "sam.ortiz@example.com"cd | top 21"#, level: .complete),
    ToolCase(name: "personMe fromMe", call: C.root(#"{"type":"personMe","value":{"type":"fromMe","value":true}}"#),
             dsl: #"search authorNames == "Alex Morgan"cdw || authorEmailAddresses == "alex.morgan@example.com"cd | top 21"#, level: .complete, needsIdentity: true),
    ToolCase(name: "personMe toMe", call: C.root(#"{"type":"personMe","value":{"type":"toMe","value":true}}"#),
             dsl: #"search recipientNames == "Alex Morgan"cdw || recipientEmailAddresses == "alex.morgan@example.com"cd | top 21"#, level: .complete, needsIdentity: true),
    ToolCase(name: "personMe toMe false", call: C.root(C.operation("all", C.predicate("contentType", "equals", C.string("email")), #"{"type":"personMe","value":{"type":"toMe","value":false}}"#)),
             dsl: #"search contentType == "email" && !(recipientNames == "Alex Morgan"cdw || recipientEmailAddresses == "alex.morgan@example.com"cd) | top 21"#,
             level: .complete, needsIdentity: true),
  ]

  // MARK: Ranking

  static let ranking: [ToolCase] = [
    ToolCase(name: "modelComposition none", call: C.root(C.allText("budget"), #""modelComposition":{"type":"none","value":{"placeholder":0}}"#),
             dsl: #"search "budget" | top 21"#, level: .complete),
    ToolCase(name: "purelyTemporal recency", call: C.root(C.allText("budget"), #""modelComposition":{"type":"purelyTemporal","value":{"type":"recency","value":{"multiplier":2}}}"#),
             dsl: #"search "budget" | score 2 * recency(contentModificationDate, 30d) | top 21"#, level: .complete),
    ToolCase(name: "purelyTemporal upcoming", call: C.root(C.allText("budget"), #""modelComposition":{"type":"purelyTemporal","value":{"type":"upcoming","value":{"multiplier":1}}}"#),
             dsl: #"search "budget" | score upcoming(coalesce(dueDate, startDate, contentCreationDate), 7d) | top 21"#, level: .complete),
    ToolCase(name: "purelyTemporal temporalAdjacency", call: C.root(C.allText("budget"), #""modelComposition":{"type":"purelyTemporal","value":{"type":"temporalAdjacency","value":{"multiplier":1}}}"#),
             dsl: #"search "budget" | score 1 / (1 + abs(contentModificationDate - $time.now) / 86400) | top 21"#, level: .complete),
    ToolCase(name: "nonTemporal topic, sender, popularity",
             call: C.root(C.allText("budget"), #""modelComposition":{"type":"nonTemporal","value":{"models":[{"type":"topic","value":{"terms":"orion launch","weight":1}},{"type":"sender","value":{"entity":{"type":"namedPerson","value":{"name":"Priya Natarajan"}},"weight":0.5}},{"type":"popularity","value":{"weight":0.2}}]}}"#),
             dsl: #"search "budget" | score relevance + 5 * if("orion" || "launch", 1, 0) + 2.5 * if(authorNames == "Priya Natarajan"cdw, 1, 0) + log(engagement) / 5 | top 21"#,
             level: .complete),
    ToolCase(name: "nonTemporal recipient user, host organization, participant, semantic",
             call: C.root(C.allText("budget"), #""modelComposition":{"type":"nonTemporal","value":{"models":[{"type":"recipient","value":{"entity":{"type":"user","value":"me"},"weight":1}},{"type":"host","value":{"entity":{"type":"organization","value":{"name":"Halyard"}},"weight":0.1}},{"type":"participant","value":{"entity":{"type":"namedPerson","value":{"name":"Sam Ortiz"}},"weight":0.4}},{"type":"semantic","value":{"weight":0.3}}]}}"#),
             dsl: #"search "budget" | score relevance + 5 * if(recipientNames == "Alex Morgan"cdw, 1, 0) + 0.5 * if(authorNames == "Halyard"cdw, 1, 0) + 2 * if(authorNames == "Sam Ortiz"cdw || recipientNames == "Sam Ortiz"cdw, 1, 0) + 0.3 * relevance | top 21"#,
             level: .appleOnly, needsIdentity: true),
    ToolCase(name: "combined", call: C.root(C.allText("budget"), #""modelComposition":{"type":"combined","value":{"temporal":{"type":"recency","value":{"multiplier":0.5}},"models":[{"type":"topic","value":{"terms":"2027","weight":1}}]}}"#),
             dsl: #"search "budget" | score relevance + 2.5 * recency(contentModificationDate, 30d) + 5 * if("2027", 1, 0) | top 21"#, level: .complete),
    ToolCase(name: "ranking is modelComposition's old name", call: C.root(C.allText("budget"), #""ranking":{"type":"purelyTemporal","value":{"type":"recency","value":{"multiplier":1}}}"#),
             dsl: #"search "budget" | score recency(contentModificationDate, 30d) | top 21"#, level: .appleOnly),
  ]

  // MARK: Stages

  static let t = C.trailsStage
  static let trailsDSL = #"search domainIdentifier == "trails""#

  static let stages: [ToolCase] = [
    ToolCase(name: "query stage alone is one page", call: C.pipeline([t]), dsl: trailsDSL + " | top 21", level: .complete,
             query: #"s_q = search (domainIdentifier == 'trails'cd) | top 21 as "q""#),
    ToolCase(name: "query stage with limit", call: C.pipeline([C.query("q", C.allText("lake"), #""limit":3"#)]), dsl: #"search "lake" | top 3"#, level: .complete),
    ToolCase(name: "filter", call: C.pipeline([t, C.stage("f", "filter", #"{"from":"q","filterPredicate":\#(C.predicate("rating", "greaterThanOrEqual", C.double(4.8)))}"#)]),
             dsl: trailsDSL + " | where rating >= 4.8", level: .complete),
    ToolCase(name: "a query stage reading another stage filters it",
             call: C.pipeline([t, C.query("w", C.predicate("stateOrProvince", "equals", C.string("Utah")), #""from":"q""#), C.stage("c", "count", #"{"from":"w"}"#)]),
             dsl: trailsDSL + #" | where stateOrProvince == "utah"cd | count"#, level: .complete),
    ToolCase(name: "sort descending", call: C.pipeline([t, C.stage("s", "sort", #"{"from":"q","sortBy":"distance","sortOrder":"desc"}"#)]),
             dsl: trailsDSL + " | sort distance desc", level: .complete),
    ToolCase(name: "sort ascending by default", call: C.pipeline([t, C.stage("s", "sort", #"{"from":"q","sortBy":"title"}"#)]),
             dsl: trailsDSL + " | sort title", level: .complete),
    ToolCase(name: "limit", call: C.pipeline([t, C.stage("l", "limit", #"{"from":"q","limit":4}"#)]), dsl: trailsDSL + " | limit 4", level: .complete),
    ToolCase(name: "limit with sortBy", call: C.pipeline([t, C.stage("l", "limit", #"{"from":"q","limit":3,"sortBy":"elevationGain","sortOrder":"desc"}"#)]),
             dsl: trailsDSL + " | sort elevationGain desc | limit 3", level: .complete),
    ToolCase(name: "sampling random", call: C.pipeline([t, C.stage("s", "sampling", #"{"from":"q","strategy":"random","sampleSize":5,"seed":3}"#)]),
             dsl: trailsDSL + " | sample 5 seed 3", level: .appleOnly),
    ToolCase(name: "sampling stratified", call: C.pipeline([t, C.stage("s", "sampling", #"{"from":"q","strategy":"stratified","sampleSize":6,"seed":7,"stratifyBy":"stateOrProvince"}"#)]),
             dsl: trailsDSL + " | sample 6 seed 7 by stateOrProvince", level: .appleOnly),
    ToolCase(name: "sampling entropy", call: C.pipeline([t, C.stage("s", "sampling", #"{"from":"q","strategy":"entropy","sampleSize":4,"diversityAttributes":["difficulty"]}"#)]),
             dsl: trailsDSL + " | sample 4 seed 1 by difficulty", level: .appleOnly, note: "the entropy sample was drawn stratified by difficulty"),
    ToolCase(name: "sampling score_aware", call: C.pipeline([C.query("q", C.allText("lake")), C.stage("s", "sampling", #"{"from":"q","strategy":"score_aware","sampleSize":3,"topRatio":0.5}"#)]),
             dsl: #"search "lake" | top 3"#, level: .appleOnly, note: "the score_aware sample kept the 3 best-scored items"),
    ToolCase(name: "groupBy alone", call: C.pipeline([t, C.stage("g", "groupBy", #"{"from":"q","attribute":"difficulty"}"#)]),
             dsl: trailsDSL + " | group by difficulty", level: .complete),
    ToolCase(name: "groupBy then valueCount", call: C.pipeline([t, C.stage("g", "groupBy", #"{"from":"q","attribute":"stateOrProvince"}"#), C.stage("c", "valueCount", #"{"from":"g"}"#)]),
             dsl: trailsDSL + " | group by stateOrProvince | count", level: .complete,
             query: #"s_c = search (domainIdentifier == 'trails'cd) | group by stateOrProvince | count as "c""#),
    ToolCase(name: "count", call: C.pipeline([t, C.stage("c", "count", #"{"from":"q"}"#)]), dsl: trailsDSL + " | count", level: .complete),
    ToolCase(name: "valueCount without a group counts", call: C.pipeline([t, C.stage("c", "valueCount", #"{"from":"q"}"#)]), dsl: trailsDSL + " | count", level: .complete),
    ToolCase(name: "valueCount bindVariable and extractGroupItems of the variable",
             call: C.pipeline([t, C.stage("g", "groupBy", #"{"from":"q","attribute":"stateOrProvince"}"#),
                               C.stage("c", "valueCount", #"{"from":"g","bindVariable":"biggest"}"#),
                               C.stage("e", "extractGroupItems", #"{"from":"g","groupKey":"$biggest","limit":3}"#)]),
             dsl: #"t = search domainIdentifier == "trails" | group by stateOrProvince; t | count; t | extract "California" | limit 3"#, level: .complete),
    ToolCase(name: "extractGroupItems of a literal key", call: C.pipeline([t, C.stage("g", "groupBy", #"{"from":"q","attribute":"stateOrProvince"}"#),
                                                                       C.stage("e", "extractGroupItems", #"{"from":"g","groupKey":"Oregon"}"#)]),
             dsl: trailsDSL + #" | group by stateOrProvince | extract "Oregon""#, level: .complete),
    ToolCase(name: "extractValue on a limit binds a variable a filter uses",
             call: C.pipeline([t, C.stage("l", "limit", #"{"from":"q","limit":1,"sortBy":"rating","sortOrder":"desc","extractValue":{"selector":{"type":"first"},"extractField":"stateOrProvince","bindVariable":"best"}}"#),
                               C.stage("f", "filter", #"{"from":"q","filterPredicate":\#(C.predicate("stateOrProvince", "equals", C.variable("best")))}"#),
                               C.stage("c", "count", #"{"from":"f"}"#)]),
             dsl: trailsDSL + #" | sort rating desc | limit 1; "# + trailsDSL + #" | where stateOrProvince == "Montana" | count"#, level: .appleOnly),
    ToolCase(name: "extractValue of a group key with selectMaxBy _count",
             call: C.pipeline([t, C.stage("g", "groupBy", #"{"from":"q","attribute":"difficulty"}"#),
                               C.stage("l", "limit", #"{"from":"q","limit":1,"extractValue":{"selector":{"type":"selectMaxBy","field":"_count"},"extractField":"_groupKey","bindVariable":"common","fromStageId":"g"}}"#),
                               C.stage("f", "filter", #"{"from":"q","filterPredicate":\#(C.predicate("difficulty", "equals", C.variable("$common")))}"#),
                               C.stage("c", "count", #"{"from":"f"}"#)]),
             dsl: trailsDSL + " | limit 1; " + trailsDSL + #" | where difficulty == "moderate" | count"#, level: .appleOnly),
    ToolCase(name: "valueMax after groupBy binds the key of the largest group",
             call: C.pipeline([t, C.stage("g", "groupBy", #"{"from":"q","attribute":"stateOrProvince"}"#),
                               C.stage("m", "valueMax", #"{"from":"g","field":"elevationGain","bindVariable":"steepest"}"#),
                               C.stage("f", "filter", #"{"from":"q","filterPredicate":\#(C.predicate("stateOrProvince", "equals", C.variable("steepest")))}"#),
                               C.stage("c", "count", #"{"from":"f"}"#)]),
             dsl: trailsDSL + " | stats max(elevationGain) by stateOrProvince; " + trailsDSL + #" | where stateOrProvince == "California" | count"#, level: .appleOnly),
    ToolCase(name: "valueMax bindVariable without a group binds the value",
             call: C.pipeline([t, C.stage("m", "valueMax", #"{"from":"q","field":"rating","bindVariable":"top"}"#),
                               C.stage("f", "filter", #"{"from":"q","filterPredicate":\#(C.predicate("rating", "greaterThanOrEqual", C.variable("top")))}"#),
                               C.stage("c", "count", #"{"from":"f"}"#)]),
             dsl: trailsDSL + " | stats max(rating); " + trailsDSL + " | where rating >= 5 | count", level: .appleOnly),
    ToolCase(name: "itemSelect max by", call: C.pipeline([t, C.stage("s", "itemSelect", #"{"from":"q","field":"title","sortBy":"distance","order":"desc"}"#)]),
             dsl: trailsDSL + " | select max-by distance", level: .appleOnly),
    ToolCase(name: "itemSelect min by", call: C.pipeline([t, C.stage("s", "itemSelect", #"{"from":"q","field":"title","sortBy":"distance","order":"asc"}"#)]),
             dsl: trailsDSL + " | select min-by distance", level: .appleOnly),
    ToolCase(name: "itemSelect integer index", call: C.pipeline([t, C.stage("s", "itemSelect", #"{"from":"q","field":"title","index":{"type":"integer","value":2}}"#)]),
             dsl: trailsDSL + " | select nth 3", level: .appleOnly),
    ToolCase(name: "itemSelect named last", call: C.pipeline([t, C.stage("s", "itemSelect", #"{"from":"q","field":"title","index":{"type":"named","value":"last"}}"#)]),
             dsl: trailsDSL + " | select last", level: .appleOnly),
    ToolCase(name: "itemSelect fractional first", call: C.pipeline([t, C.stage("s", "itemSelect", #"{"from":"q","field":"title","index":{"type":"fractional","value":0}}"#)]),
             dsl: trailsDSL + " | select first", level: .appleOnly),
    ToolCase(name: "itemSelect of groups", call: C.pipeline([t, C.stage("g", "groupBy", #"{"from":"q","attribute":"stateOrProvince"}"#),
                                                           C.stage("s", "itemSelect", #"{"from":"g","field":"title","sortBy":"rating"}"#)]),
             dsl: trailsDSL + " | group by stateOrProvince | select max-by rating", level: .appleOnly),
    ToolCase(name: "merge", call: C.pipeline([C.query("a", C.predicate("rating", "equals", C.int(5))), C.query("b", C.allText("budget"), #""limit":2"#),
                                              C.stage("m", "merge", #"{"inputStageIds":["a","b"]}"#), C.stage("c", "count", #"{"from":"m"}"#)]),
             dsl: #"a = search rating == 5; b = search "budget" | top 2; merge(a, b) | count"#, level: .complete),
    ToolCase(name: "compute reads the stage before it", call: C.pipeline([t, C.stage("c", "compute", #"{"expression":"title, rating / 5","outputFields":["title","r"]}"#)]),
             dsl: trailsDSL + " | table title, rating / 5", level: .appleOnly),
    ToolCase(name: "custom Swift stage with parameters",
             call: C.pipeline([C.query("q", C.allText("budget")), C.stage("f", "custom", #"{"from":"q","stageType":"freshness","parameters":[{"key":"halfLife","value":"14d"},{"key":"weight","value":"0.8"}]}"#)]),
             dsl: #"search "budget" | freshness(halfLife: 14d, weight: 0.8)"#, level: .profile("profile:textMatch,stages=freshness")),
    ToolCase(name: "custom stage file with a parameter",
             call: C.pipeline([C.query("q", C.predicate("domainIdentifier", "prefix", C.string("notes"))),
                               C.stage("i", "custom", #"{"from":"q","stageType":"importantNotes","parameters":[{"key":"minimumScore","value":"0.5"}]}"#)]),
             dsl: #"search domainIdentifier == "notes*" | importantNotes(minimumScore: 0.5)"#, level: .complete),
    ToolCase(name: "custom stage file with several parameters",
             call: C.pipeline([t, C.stage("n", "custom", #"{"from":"q","stageType":"nearby","processingMode":"map","parameters":[{"key":"latitude","value":"45.52"},{"key":"longitude","value":"-122.68"},{"key":"radius","value":"100"}]}"#)]),
             dsl: trailsDSL + " | nearby(latitude: 45.52, longitude: -122.68, radius: 100)", level: .appleOnly),
    ToolCase(name: "a stage's output label names its reply",
             call: C.pipeline([t, #"{"id":"c","output":{"type":"agent","value":"Trail count"},"kind":{"type":"count","value":{"from":"q"}}}"#]),
             dsl: trailsDSL + #" | count as "Trail count""#, level: .appleOnly),
  ] + valueStages

  /// Every value stage alone and after groupBy.
  static let valueStages: [ToolCase] = [
    ("valueSum", "sum", "distance"), ("valueAverage", "avg", "rating"), ("valueMin", "min", "elevationGain"),
    ("valueMax", "max", "distance"), ("valueMedian", "median", "rating"), ("valueStddev", "stddev", "distance"),
  ].flatMap { (kind, function, field) in
    [
      ToolCase(name: "\(kind) alone", call: C.pipeline([t, C.stage("v", kind, #"{"from":"q","field":"\#(field)"}"#)]),
               dsl: trailsDSL + " | stats \(function)(\(field))", level: .complete),
      ToolCase(name: "\(kind) after groupBy", call: C.pipeline([t, C.stage("g", "groupBy", #"{"from":"q","attribute":"difficulty"}"#), C.stage("v", kind, #"{"from":"g","field":"\#(field)"}"#)]),
               dsl: trailsDSL + " | stats \(function)(\(field)) by difficulty", level: .complete,
               query: #"s_v = search (domainIdentifier == 'trails'cd) | stats \#(function)(\#(field)) by difficulty as "v""#),
    ]
  }

  // MARK: Search options

  static let options: [ToolCase] = [
    ToolCase(name: "no root searches every item", call: C.search(#"{"pageSize":5}"#), dsl: "search * | top 6", level: .focused),
    ToolCase(name: "null fields mean absent", call: C.search(#"{"root":\#(C.allText("budget")),"pageSize":null,"label":null,"cursor":null,"fetchAttributes":null,"pipeline":null,"modelComposition":null,"autoDisplay":null}"#),
             dsl: #"search "budget" | top 21"#, level: .appleOnly, query: #"search ("budget") | top 21"#),
    ToolCase(name: "pageSize", call: C.root(C.allText("budget"), #""pageSize":3"#), dsl: #"search "budget" | top 4"#, level: .focused,
             query: #"search ("budget") | top 4"#),
    ToolCase(name: "label", call: C.root(C.allText("budget"), #""label":"Budget \"notes\"""#), dsl: #"search "budget" | top 21 as "Budget \"notes\"""#, level: .focused,
             query: #"search ("budget") | top 21 as "Budget \"notes\"""#),
    ToolCase(name: "cursor", call: C.root(C.allText("budget"), #""pageSize":5,"cursor":"offset:10""#), dsl: #"search "budget" | top 16"#, level: .complete,
             query: #"search ("budget") | top 16"#),
    ToolCase(name: "scopes", call: C.search(#"{"root":\#(C.allText("lake")),"scopes":["trails"]}"#), dsl: #"search domainIdentifier == "trails" && "lake" | top 21"#,
             level: .appleOnly),
    ToolCase(name: "fetchAttributes", call: C.root(C.allText("lake"), #""fetchAttributes":["title","rating"]"#), dsl: #"search "lake" | top 21"#, level: .complete),
    ToolCase(name: "autoDisplay", call: C.root(C.allText("lake"), #""autoDisplay":true"#), dsl: #"search "lake" | top 21"#, level: .appleOnly),
    ToolCase(name: "dsl", call: #"{"query":{"type":"dsl","value":{"query":"search \"budget\" | group by authorNames | count"}}}"#,
             dsl: #"search "budget" | group by authorNames | count"#, level: .appleOnly),
  ]

  static let all: [ToolCase] = nodes + predicates + temporal + people + ranking + stages + options
}
