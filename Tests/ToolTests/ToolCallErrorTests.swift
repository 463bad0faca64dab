import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// An invalid tool call and the error it must produce.
struct ErrorCase: Sendable, CustomTestStringConvertible {
  var name: String
  var call: String
  var path: String
  var message: String
  /// The `expected` text, where it matters (suggestions from the engine land there).
  var expected: String? = nil
  var needsIdentity = false
  var testDescription: String { name }
}

/// Malformed and meaningless calls: each is refused with the JSON path of the mistake and a
/// message the model can act on, in band, and nothing runs.
@Suite struct ToolCallErrorTests {
  typealias C = Call
  static let t = C.trailsStage
  static let on = #""reference":{"type":"relative","value":"today"}"#

  /// Calls the decoder refuses.
  static let decoding: [ErrorCase] = [
    // The JSON text and the envelope.
    ErrorCase(name: "invalid JSON", call: #"{"query":"#, path: "$",
              message: "the arguments are not valid JSON: unexpected end of input, expected a value at line 1, column 10"),
    ErrorCase(name: "arguments that are not an object", call: "[]", path: "$", message: "expected an object, got an array"),
    ErrorCase(name: "missing query", call: "{}", path: "$.query", message: "missing required field 'query'"),
    ErrorCase(name: "unknown top-level field", call: #"{"query":{"type":"help","value":{"topic":""}},"qurey":1}"#, path: "$.qurey",
              message: "unknown field 'qurey'; did you mean 'query'?"),
    ErrorCase(name: "unknown query type", call: #"{"query":{"type":"serch","value":{}}}"#, path: "$.query.type",
              message: #"unknown query type "serch"; did you mean "search"?"#),
    ErrorCase(name: "query type of the wrong kind", call: #"{"query":{"type":3,"value":{}}}"#, path: "$.query.type", message: "expected a string, got a number"),
    ErrorCase(name: "missing query type", call: #"{"query":{"value":{}}}"#, path: "$.query.type", message: "missing required field 'type'"),
    ErrorCase(name: "unknown search field", call: C.search(#"{"rooot":\#(C.allText("x"))}"#), path: "$.query.value.rooot",
              message: "unknown field 'rooot'; did you mean 'root'?"),
    ErrorCase(name: "pageSize out of range", call: C.root(C.allText("x"), #""pageSize":0"#), path: "$.query.value.pageSize", message: "0 is out of range 1...1000"),
    ErrorCase(name: "pageSize of the wrong kind", call: C.root(C.allText("x"), #""pageSize":"ten""#), path: "$.query.value.pageSize", message: "expected a number, got a string"),
    ErrorCase(name: "an unknown cursor", call: C.root(C.allText("x"), #""cursor":"page2""#), path: "$.query.value.cursor", message: #"unknown cursor "page2""#),
    ErrorCase(name: "a postFilter that is not a predicate", call: C.root(C.allText("x"), #""postFilters":["rating > 3","rating >"]"#),
              path: "$.query.value.postFilters[1]", message: "expected a value after '>' (line 1, column 9)"),
    ErrorCase(name: "a postFilter with a stage", call: C.root(C.allText("x"), #""postFilters":["rating > 3 | count"]"#), path: "$.query.value.postFilters[0]",
              message: "a post filter is one predicate, without stages or statements"),
    ErrorCase(name: "an unknown source", call: C.root(C.allText("x"), #""source":"icloud""#), path: "$.query.value.source", message: #"unknown source "icloud""#),
    ErrorCase(name: "an unknown rankingType", call: C.root(C.allText("x"), #""rankingMetadata":{"rankingType":"alphabetic","wasExplicit":true}"#),
              path: "$.query.value.rankingMetadata.rankingType", message: #"unknown rankingType "alphabetic"; did you mean "alphabetical"?"#),
    ErrorCase(name: "an unknown sortDirection", call: C.root(C.allText("x"), #""rankingMetadata":{"rankingType":"alphabetical","wasExplicit":true,"sortDirection":"up"}"#),
              path: "$.query.value.rankingMetadata.sortDirection", message: #"unknown sortDirection "up""#),
    ErrorCase(name: "display of the wrong kind", call: #"{"query":{"type":"display","value":{"display":"yes"}}}"#, path: "$.query.value.display",
              message: "expected true or false, got a string"),
    ErrorCase(name: "autoDisplay of the wrong kind", call: C.root(C.allText("x"), #""autoDisplay":"yes""#), path: "$.query.value.autoDisplay",
              message: "expected true or false, got a string"),

    // Nodes.
    ErrorCase(name: "unknown node type", call: C.root(#"{"type":"alltext","value":{"terms":["x"]}}"#), path: "$.query.value.root.type",
              message: #"unknown query node type "alltext"; did you mean "allText"?"#),
    ErrorCase(name: "node without a value", call: C.root(#"{"type":"allText"}"#), path: "$.query.value.root", message: "missing 'value' of the allText node"),
    ErrorCase(name: "node that is not an object", call: C.root(#""budget""#), path: "$.query.value.root",
              message: #"expected a query node object {"type": ..., "value": ...}, got a string"#),
    ErrorCase(name: "empty operation", call: C.root(#"{"type":"operation","value":{"logic":"all","children":[]}}"#), path: "$.query.value.root.value.children",
              message: "an operation must have at least one child"),
    ErrorCase(name: "unknown logic", call: C.root(#"{"type":"operation","value":{"logic":"and","children":[\#(C.allText("x"))]}}"#),
              path: "$.query.value.root.value.logic", message: #"unknown logic "and""#),
    ErrorCase(name: "children that are not an array", call: C.root(#"{"type":"operation","value":{"logic":"any","children":\#(C.allText("x"))}}"#),
              path: "$.query.value.root.value.children", message: "expected an array, got an object"),
    ErrorCase(name: "a bad child deep in operations",
              call: C.root(C.operation("all", C.allText("x"), C.operation("any", C.allText("y"), #"{"type":"allText","value":{"terms":"z"}}"#))),
              path: "$.query.value.root.value.children[1].value.children[1].value.terms", message: "expected an array, got a string"),
    ErrorCase(name: "allText without words", call: C.root(C.allText(" ", "!")), path: "$.query.value.root.value.terms", message: "terms has no words"),
    ErrorCase(name: "allText with an unknown field", call: C.root(#"{"type":"allText","value":{"terms":["x"],"match":"all"}}"#),
              path: "$.query.value.root.value.match", message: "unknown field 'match'"),
    ErrorCase(name: "empty contentTypes", call: C.root(#"{"type":"contentType","value":{"contentTypes":[]}}"#), path: "$.query.value.root.value.contentTypes",
              message: "contentTypes is empty"),
    ErrorCase(name: "semanticSimilar without words",
              call: C.root(#"{"type":"semanticSimilar","value":{"contentType":"text","query":"a b","keywords":[],"maxDistance":1,"maxCount":0}}"#),
              path: "$.query.value.root.value.keywords", message: "semanticSimilar needs keywords (or a query with content words)"),

    // Predicates.
    ErrorCase(name: "predicate with an unknown field", call: C.root(#"{"type":"predicate","value":{"attribute":"title","operater":"equals","value":\#(C.string("x"))}}"#),
              path: "$.query.value.root.value.operater", message: "unknown field 'operater'; did you mean 'operator'?"),
    ErrorCase(name: "predicate without an operator", call: C.root(#"{"type":"predicate","value":{"attribute":"title","value":\#(C.string("x"))}}"#),
              path: "$.query.value.root.value.operator", message: "missing required field 'operator'"),
    ErrorCase(name: "predicate without a value", call: C.root(#"{"type":"predicate","value":{"attribute":"title","operator":"equals"}}"#),
              path: "$.query.value.root.value.value", message: "missing required field 'value'"),
    ErrorCase(name: "predicate without an attribute", call: C.root(#"{"type":"predicate","value":{"operator":"equals","value":\#(C.string("x"))}}"#),
              path: "$.query.value.root.value.attribute", message: "missing required field 'attribute'"),
    ErrorCase(name: "an attribute name with spaces", call: C.root(C.predicate("rating > 3", "equals", C.int(1))), path: "$.query.value.root.value.attribute",
              message: #""rating > 3" is not an attribute name"#),
    ErrorCase(name: "unknown operator", call: C.root(C.predicate("title", "startsWith", C.string("x"))), path: "$.query.value.root.value.operator",
              message: #"unknown operator "startsWith""#),
    ErrorCase(name: "misspelt operator", call: C.root(C.predicate("title", "prefx", C.string("x"))), path: "$.query.value.root.value.operator",
              message: #"unknown operator "prefx"; did you mean "prefix"?"#),
    ErrorCase(name: "unknown value type", call: C.root(C.predicate("rating", "equals", #"{"type":"integr","value":3}"#)), path: "$.query.value.root.value.value.type",
              message: #"unknown value type "integr""#),
    ErrorCase(name: "int holding a string", call: C.root(C.predicate("rating", "equals", #"{"type":"int","value":"3"}"#)), path: "$.query.value.root.value.value.value",
              message: "expected a number, got a string"),
    ErrorCase(name: "int holding a fraction", call: C.root(C.predicate("rating", "equals", #"{"type":"int","value":2.5}"#)), path: "$.query.value.root.value.value.value",
              message: "expected a whole number, got 2.5"),
    ErrorCase(name: "bool holding a string", call: C.root(C.predicate("pinned", "equals", #"{"type":"bool","value":"true"}"#)), path: "$.query.value.root.value.value.value",
              message: "expected true or false, got a string"),
    ErrorCase(name: "string holding a number", call: C.root(C.predicate("title", "equals", #"{"type":"string","value":3}"#)), path: "$.query.value.root.value.value.value",
              message: "expected a string, got a number"),
    ErrorCase(name: "a date that is not ISO 8601", call: C.root(C.predicate("dueDate", "lessThan", C.date("next friday"))), path: "$.query.value.root.value.value.value",
              message: #""next friday" is not an ISO-8601 date"#),
    ErrorCase(name: "a variable name that is not a name", call: C.root(C.predicate("title", "equals", C.variable("1st"))), path: "$.query.value.root.value.value.value",
              message: #""1st" is not a variable name"#),
    ErrorCase(name: "a list for equals", call: C.root(C.predicate("title", "equals", C.array("a", "b"))), path: "$.query.value.root.value.value",
              message: "a list needs the operator in, containsAny or range"),
    ErrorCase(name: "in without a list", call: C.root(C.predicate("stateOrProvince", "in", C.string("Utah"))), path: "$.query.value.root.value.value",
              message: "in needs a non-empty array value"),
    ErrorCase(name: "containsAny with an empty list", call: C.root(C.predicate("title", "containsAny", C.array())), path: "$.query.value.root.value.value",
              message: "containsAny needs a non-empty array value"),
    ErrorCase(name: "range of three values", call: C.root(C.predicate("distance", "range", C.array("1", "2", "3"))), path: "$.query.value.root.value.value",
              message: "range needs an array of two values [low, high]"),
    ErrorCase(name: "prefix of a Boolean", call: C.root(C.predicate("title", "prefix", C.bool(true))), path: "$.query.value.root.value.value",
              message: "prefix needs a string value"),

    // Time.
    ErrorCase(name: "unknown temporal type", call: C.root(C.temporal("during", on)), path: "$.query.value.root.value.type",
              message: #"unknown temporal type "during""#),
    ErrorCase(name: "temporal with a field of another type", call: C.root(C.temporal("after", on + #","tense":"past""#)), path: "$.query.value.root.value.tense",
              message: "unknown field 'tense'"),
    ErrorCase(name: "temporal without a reference", call: C.root(C.temporal("on", #""tense":"past""#)), path: "$.query.value.root.value.reference",
              message: "missing required field 'reference'"),
    ErrorCase(name: "unknown reference type", call: C.root(C.temporal("on", #""reference":{"type":"relativ","value":"today"}"#)),
              path: "$.query.value.root.value.reference.type", message: #"unknown reference type "relativ"; did you mean "relative"?"#),
    ErrorCase(name: "unknown relative reference", call: C.root(C.temporal("on", #""reference":{"type":"relative","value":"lastweek"}"#)),
              path: "$.query.value.root.value.reference.value", message: #"unknown relative reference "lastweek"; did you mean "lastWeek"?"#),
    ErrorCase(name: "month 13", call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":{"type":"concrete","value":2026},"month":{"type":"concrete","value":13}"#))"#)),
              path: "$.query.value.root.value.reference.value.month.value", message: "13 is out of range 1...12"),
    ErrorCase(name: "month 13 in Apple's month form", call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":2026,"month":{"type":"month","value":{"value":13}}"#))"#)),
              path: "$.query.value.root.value.reference.value.month.value.value", message: "13 is out of range 1...12"),
    ErrorCase(name: "month 13 as a plain number", call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":2026,"month":13"#))"#)),
              path: "$.query.value.root.value.reference.value.month", message: "13 is out of range 1...12"),
    ErrorCase(name: "February 30", call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":2026,"month":2,"day":30"#))"#)),
              path: "$.query.value.root.value.reference.value", message: "2026-2-30 is not a date"),
    ErrorCase(name: "hour 24", call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":2026,"month":2,"day":3,"hour":24"#))"#)),
              path: "$.query.value.root.value.reference.value.hour", message: "24 is out of range 0...23"),
    ErrorCase(name: "an absolute date without a year", call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""month":{"type":"concrete","value":6}"#))"#)),
              path: "$.query.value.root.value.reference.value.year", message: "an absolute date needs a year"),
    ErrorCase(name: "an absolute date with an unknown component", call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":2026,"week":6"#))"#)),
              path: "$.query.value.root.value.reference.value.week", message: "unknown field 'week'"),
    ErrorCase(name: "a variable in an absolute date with an offset",
              call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":{"type":"variable","value":"y"}"#)),"offset":{"value":1,"unit":"days"}"#)),
              path: "$.query.value.root.value.offset", message: "an offset cannot shift a date whose components are variables"),
    ErrorCase(name: "a variable in an absolute date down to the minute",
              call: C.root(C.temporal("on", #""reference":\#(C.absolute(#""year":{"type":"variable","value":"y"},"minute":{"type":"concrete","value":5}"#))"#)),
              path: "$.query.value.root.value.reference.value.minute", message: "with a variable component, an absolute date goes down to the hour"),
    ErrorCase(name: "unknown offset unit", call: C.root(C.temporal("on", on + #","offset":{"value":1,"unit":"fortnights"}"#)),
              path: "$.query.value.root.value.offset.unit", message: #"unknown unit "fortnights""#),
    ErrorCase(name: "a fractional offset", call: C.root(C.temporal("on", on + #","offset":{"value":1.5,"unit":"days"}"#)),
              path: "$.query.value.root.value.offset.value", message: "expected a whole number, got 1.5"),
    ErrorCase(name: "an offset without a unit", call: C.root(C.temporal("on", on + #","offset":{"value":1}"#)),
              path: "$.query.value.root.value.offset.unit", message: "missing required field 'unit'"),
    ErrorCase(name: "unknown tense", call: C.root(C.temporal("on", on + #","tense":"pluperfect""#)), path: "$.query.value.root.value.tense",
              message: #"unknown tense "pluperfect""#),
    ErrorCase(name: "a period that ends before it starts",
              call: C.root(C.temporal("between", #""startReference":\#(C.absolute(#""year":2026,"month":11"#)),"endReference":\#(C.absolute(#""year":2026,"month":3"#))"#)),
              path: "$.query.value.root.value", message: "the period is empty: it starts 2026-11-01T00:00:00Z and ends 2026-04-01T00:00:00Z"),
    ErrorCase(name: "recurring without components", call: C.root(C.temporal("recurring", #""value":{}"#)), path: "$.query.value.root.value.value",
              message: "recurring needs at least one of month, day, weekday, weekOfYear"),
    ErrorCase(name: "recurring weekday 8", call: C.root(C.temporal("recurring", #""value":{"weekday":{"type":"weekday","value":{"value":8}}}"#)),
              path: "$.query.value.root.value.value.weekday.value.value", message: "8 is out of range 1...7"),

    // People.
    ErrorCase(name: "unknown person role", call: C.root(#"{"type":"person","value":{"type":"sender","value":"Sam"}}"#), path: "$.query.value.root.value.type",
              message: #"unknown person type "sender""#),
    ErrorCase(name: "an empty person name", call: C.root(#"{"type":"person","value":{"type":"originator","value":"  "}}"#), path: "$.query.value.root.value.value",
              message: "the name is empty"),
    ErrorCase(name: "personMe without an identity", call: C.root(#"{"type":"personMe","value":{"type":"fromMe","value":true}}"#), path: "$.query.value.root.value",
              message: "personMe needs to know who the user is, and no identity is configured"),
    ErrorCase(name: "the user entity without an identity",
              call: C.root(C.allText("x"), #""modelComposition":{"type":"nonTemporal","value":{"models":[{"type":"sender","value":{"entity":{"type":"user","value":"me"},"weight":1}}]}}"#),
              path: "$.query.value.modelComposition.value.models[0].value.entity",
              message: "the user entity needs to know who the user is, and no identity is configured"),

    // Ranking.
    ErrorCase(name: "unknown modelComposition", call: C.root(C.allText("x"), #""modelComposition":{"type":"temporal","value":{}}"#),
              path: "$.query.value.modelComposition.type", message: #"unknown modelComposition type "temporal""#),
    ErrorCase(name: "empty models", call: C.root(C.allText("x"), #""modelComposition":{"type":"nonTemporal","value":{"models":[]}}"#),
              path: "$.query.value.modelComposition.value.models", message: "models is empty"),
    ErrorCase(name: "a weight out of range",
              call: C.root(C.allText("x"), #""modelComposition":{"type":"nonTemporal","value":{"models":[{"type":"popularity","value":{"weight":50}}]}}"#),
              path: "$.query.value.modelComposition.value.models[0].value.weight", message: "weight must be from 0 to 10"),
    ErrorCase(name: "a multiplier out of range", call: C.root(C.allText("x"), #""modelComposition":{"type":"purelyTemporal","value":{"type":"recency","value":{"multiplier":-1}}}"#),
              path: "$.query.value.modelComposition.value.value.multiplier", message: "multiplier must be from 0 to 10"),

    // Pipelines.
    ErrorCase(name: "an empty pipeline", call: C.pipeline([]), path: "$.query.value.pipeline.stages",
              message: "a pipeline needs at least one stage, starting with a query stage"),
    ErrorCase(name: "a pipeline not starting with a query", call: C.pipeline([C.stage("c", "count", #"{"from":"q"}"#), t]), path: "$.query.value.pipeline.stages[0]",
              message: "a pipeline must begin with a query stage"),
    ErrorCase(name: "a first query stage that reads another", call: C.pipeline([C.query("a", C.allText("x"), #""from":"b""#), C.query("b", C.allText("y"))]),
              path: "$.query.value.pipeline.stages[0]", message: "a pipeline must begin with a query stage"),
    ErrorCase(name: "missing from", call: C.pipeline([t, C.stage("c", "count", "{}")]), path: "$.query.value.pipeline.stages[1].kind.value.from",
              message: "missing 'from': which stage does count read?"),
    ErrorCase(name: "from an unknown stage", call: C.pipeline([t, C.stage("c", "count", #"{"from":"qq"}"#)]), path: "$.query.value.pipeline.stages[1].kind.value.from",
              message: #"stage "c" reads from unknown stage "qq"; did you mean "q"?"#),
    ErrorCase(name: "merge of an unknown stage", call: C.pipeline([t, C.stage("m", "merge", #"{"inputStageIds":["q","nope"]}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.inputStageIds[1]", message: #"stage "m" reads from unknown stage "nope""#),
    ErrorCase(name: "duplicate stage ids", call: C.pipeline([t, C.stage("q", "count", #"{"from":"q"}"#)]), path: "$.query.value.pipeline.stages[1].id",
              message: #"stage id "q" is used twice"#),
    ErrorCase(name: "an empty stage id", call: C.pipeline([t, C.stage("", "count", #"{"from":"q"}"#)]), path: "$.query.value.pipeline.stages[1].id",
              message: "the stage id is empty"),
    ErrorCase(name: "a cycle",
              call: C.pipeline([t, C.stage("a", "filter", #"{"from":"b","filterPredicate":\#(C.allText("x"))}"#), C.stage("b", "filter", #"{"from":"a","filterPredicate":\#(C.allText("y"))}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.from", message: "the stages form a cycle: a -> b -> a"),
    ErrorCase(name: "a stage reading itself", call: C.pipeline([t, C.stage("c", "count", #"{"from":"c"}"#)]), path: "$.query.value.pipeline.stages[1].kind.value.from",
              message: "the stages form a cycle: c -> c"),
    ErrorCase(name: "unknown stage id type", call: C.pipeline([t, C.stage("g", "grupBy", #"{"from":"q","attribute":"x"}"#)]), path: "$.query.value.pipeline.stages[1].kind.type",
              message: #"unknown stage type "grupBy"; did you mean "groupBy"?"#),
    ErrorCase(name: "a stage with an unknown field", call: C.pipeline([t, C.stage("s", "sort", #"{"from":"q","sortBy":"title","sortOrdr":"asc"}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.sortOrdr", message: "unknown field 'sortOrdr'; did you mean 'sortOrder'?"),
    ErrorCase(name: "a stage without kind", call: C.pipeline([t, #"{"id":"c"}"#]), path: "$.query.value.pipeline.stages[1].kind", message: "missing required field 'kind'"),
    ErrorCase(name: "a stage with an unknown member", call: C.pipeline([t, #"{"id":"c","kind":{"type":"count","value":{"from":"q"}},"note":"x"}"#]),
              path: "$.query.value.pipeline.stages[1].note", message: "unknown field 'note'"),
    ErrorCase(name: "a bad sort order", call: C.pipeline([t, C.stage("s", "sort", #"{"from":"q","sortBy":"title","sortOrder":"descending"}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.sortOrder", message: #"unknown sort order "descending""#),
    ErrorCase(name: "a limit of zero", call: C.pipeline([t, C.stage("l", "limit", #"{"from":"q","limit":0}"#)]), path: "$.query.value.pipeline.stages[1].kind.value.limit",
              message: "0 is out of range 1...1000000"),
    ErrorCase(name: "a stratified sample without stratifyBy", call: C.pipeline([t, C.stage("s", "sampling", #"{"from":"q","strategy":"stratified","sampleSize":3}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.stratifyBy", message: "a stratified sample needs stratifyBy"),
    ErrorCase(name: "an unknown sampling strategy", call: C.pipeline([t, C.stage("s", "sampling", #"{"from":"q","strategy":"reservoir","sampleSize":3}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.strategy", message: #"unknown strategy "reservoir""#),
    ErrorCase(name: "merge of one stage", call: C.pipeline([t, C.stage("m", "merge", #"{"inputStageIds":["q"]}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.inputStageIds", message: "merge needs at least two stage ids"),
    ErrorCase(name: "extractGroupItems with a negative offset", call: C.pipeline([t, C.stage("g", "groupBy", #"{"from":"q","attribute":"difficulty"}"#),
                                                                                  C.stage("e", "extractGroupItems", #"{"from":"g","groupKey":"easy","offset":-5}"#)]),
              path: "$.query.value.pipeline.stages[2].kind.value.offset", message: "-5 is out of range 0...1000000"),
    ErrorCase(name: "an unknown named index", call: C.pipeline([t, C.stage("s", "itemSelect", #"{"from":"q","field":"title","index":{"type":"named","value":"middle"}}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.index.value", message: #"unknown named index "middle""#),
    ErrorCase(name: "an extractValue without bindVariable",
              call: C.pipeline([t, C.stage("l", "limit", #"{"from":"q","limit":1,"extractValue":{"selector":{"type":"first"},"extractField":"title"}}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.extractValue.bindVariable", message: "missing required field 'bindVariable'"),
    ErrorCase(name: "prompted", call: C.pipeline([t, C.stage("p", "prompted", #"{"from":"q","prompt":"summarise"}"#)]), path: "$.query.value.pipeline.stages[1]",
              message: "prompted is not supported without a model"),
    ErrorCase(name: "a prefix of a variable", call: C.pipeline([t, C.stage("f", "filter", #"{"from":"q","filterPredicate":\#(C.predicate("title", "prefix", C.variable("best")))}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.filterPredicate.value.value",
              message: "prefix needs the text itself; a variable stands for a whole value"),
    ErrorCase(name: "forEach with an instruction in words", call: C.pipeline([t, C.stage("f", "forEach", #"{"from":"q","operation":"Summarise: the trail"}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.operation",
              message: #"forEach operation "Summarise: the trail" is an instruction for a model, and a search runs without one; write stages of the query language, or use a prompted stage in an answer session"#),
    ErrorCase(name: "forEach with a second statement", call: C.pipeline([t, C.stage("f", "forEach", #"{"from":"q","operation":"count; x = search *"}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.operation",
              message: #"forEach operation "count; x = search *" is an instruction for a model, and a search runs without one; write stages of the query language, or use a prompted stage in an answer session"#),
    ErrorCase(name: "hydration with a timeout out of range", call: C.pipeline([t, C.stage("h", "hydration", #"{"from":"q","timeoutSeconds":0}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.timeoutSeconds", message: "timeoutSeconds must be from 0.1 to 300"),
    ErrorCase(name: "a custom parameter without a value", call: C.pipeline([t, C.stage("f", "custom", #"{"from":"q","stageType":"freshness","parameters":[{"key":"weight"}]}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.parameters[0].value", message: "missing required field 'value'"),

    // Other query types.
    ErrorCase(name: "schema with an unknown queryType", call: #"{"query":{"type":"schema","value":{"queryType":"tables"}}}"#, path: "$.query.value.queryType",
              message: #"unknown queryType "tables""#),
    ErrorCase(name: "schema attribute without the attribute", call: #"{"query":{"type":"schema","value":{"queryType":"attribute"}}}"#,
              path: "$.query.value.attribute", message: "queryType attribute needs 'attribute'"),
    ErrorCase(name: "schema without a value", call: #"{"query":{"type":"schema"}}"#, path: "$.query", message: "missing 'value'"),
    ErrorCase(name: "dsl without a query", call: #"{"query":{"type":"dsl","value":{"text":"search *"}}}"#, path: "$.query.value.text", message: "unknown field 'text'"),
  ]

  /// Calls that decode but that the engine refuses: the error comes back at the JSON path of the
  /// field that produced the offending text.
  static let checking: [ErrorCase] = [
    // The decoder reads a forEach operation in words as stages; the tool, knowing the
    // registry, says it needs a model.
    ErrorCase(name: "forEach with a sentence", call: C.pipeline([t, C.stage("f", "forEach", #"{"from":"q","operation":"summarise each trail in one line"}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.operation",
              message: #"forEach operation "summarise each trail in one line" is an instruction for a model, and a search runs without one; write stages of the query language, or use a prompted stage in an answer session"#),
    ErrorCase(name: "a postFilter naming an unknown attribute", call: C.root(C.allText("lake"), #""postFilters":["ratng > 3"]"#), path: "$.query.value.postFilters[0]",
              message: "unknown attribute 'ratng'", expected: "did you mean 'rating'?"),
    ErrorCase(name: "unknown attribute", call: C.root(C.predicate("titel", "equals", C.string("x"))), path: "$.query.value.root.value.attribute",
              message: "unknown attribute 'titel'", expected: "did you mean 'title'?"),
    ErrorCase(name: "unknown attribute deep in an operation",
              call: C.root(C.operation("all", C.allText("budget"), C.operation("none", C.predicate("ratng", "greaterThan", C.int(3))))),
              path: "$.query.value.root.value.children[1].value.children[0].value.attribute", message: "unknown attribute 'ratng'", expected: "did you mean 'rating'?"),
    ErrorCase(name: "a text value for a number attribute", call: C.root(C.predicate("rating", "greaterThan", C.string("high"))), path: "$.query.value.root.value.value",
              message: #"'rating' is a number; "high" is text"#),
    ErrorCase(name: "a Boolean for a number attribute", call: C.root(C.predicate("rating", "equals", C.bool(true))), path: "$.query.value.root.value.value",
              message: "'rating' is a number; true is a Boolean"),
    ErrorCase(name: "an order comparison of text", call: C.root(C.predicate("title", "greaterThan", C.int(3))), path: "$.query.value.root.value.attribute",
              message: "'>' needs a number or a date; 'title' is text"),
    ErrorCase(name: "an unknown attribute in a filter stage",
              call: C.pipeline([t, C.stage("f", "filter", #"{"from":"q","filterPredicate":\#(C.predicate("elevatonGain", "greaterThan", C.int(3)))}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.filterPredicate.value.attribute", message: "unknown attribute 'elevatonGain'",
              expected: "did you mean 'elevationGain'?"),
    ErrorCase(name: "an unknown group attribute", call: C.pipeline([t, C.stage("g", "groupBy", #"{"from":"q","attribute":"stateOrProvinc"}"#), C.stage("c", "valueCount", #"{"from":"g"}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.attribute", message: "unknown attribute 'stateOrProvinc'", expected: "did you mean 'stateOrProvince'?"),
    ErrorCase(name: "an unknown group attribute before a statistic",
              call: C.pipeline([t, C.stage("g", "groupBy", #"{"from":"q","attribute":"stateOrProvinc"}"#), C.stage("a", "valueAverage", #"{"from":"g","field":"rating"}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.attribute", message: "unknown attribute 'stateOrProvinc'", expected: "did you mean 'stateOrProvince'?"),
    ErrorCase(name: "an unknown sort attribute", call: C.pipeline([t, C.stage("s", "sort", #"{"from":"q","sortBy":"ratin"}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.sortBy", message: "unknown attribute 'ratin'", expected: "did you mean 'rating'?"),
    ErrorCase(name: "a sum of text", call: C.pipeline([t, C.stage("s", "valueSum", #"{"from":"q","field":"title"}"#)]), path: "$.query.value.pipeline.stages[1].kind.value.field",
              message: "sum needs a number or date attribute; 'title' is not"),
    ErrorCase(name: "an unknown custom stage", call: C.pipeline([t, C.stage("f", "custom", #"{"from":"q","stageType":"freshnes"}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.stageType", message: "unknown stage 'freshnes'", expected: "did you mean 'freshness'?"),
    ErrorCase(name: "an unknown custom parameter",
              call: C.pipeline([t, C.stage("f", "custom", #"{"from":"q","stageType":"freshness","parameters":[{"key":"halfLife","value":"14d"},{"key":"wieght","value":"0.5"}]}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.parameters[1].key", message: "'freshness' has no parameter 'wieght'", expected: "did you mean 'weight'?"),
    ErrorCase(name: "a custom parameter of the wrong type",
              call: C.pipeline([t, C.stage("f", "custom", #"{"from":"q","stageType":"freshness","parameters":[{"key":"halfLife","value":"soon"}]}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.parameters[0].value", message: "'halfLife' of freshness is a number"),
    ErrorCase(name: "an unknown variable", call: C.pipeline([t, C.stage("f", "filter", #"{"from":"q","filterPredicate":\#(C.predicate("stateOrProvince", "equals", C.variable("best")))}"#)]),
              path: "$.query.value.pipeline.stages[1].kind.value.filterPredicate.value.value", message: "unknown variable '$best'"),
    ErrorCase(name: "an error in a dsl query", call: #"{"query":{"type":"dsl","value":{"query":"search titel == \"x\""}}}"#, path: "$.query.value.query",
              message: "unknown attribute 'titel' (query line 1, column 8)", expected: "did you mean 'title'?"),
  ]

  @Test(arguments: decoding)
  func theDecoderRefusesTheCallAtThePath(_ c: ErrorCase) throws {
    let error = try #require(Harness.decodingError(c.call, identity: c.needsIdentity ? Harness.identity : Identity()), "the call decoded")
    #expect(error.path == c.path)
    #expect(error.message == c.message)
    if let expected = c.expected { #expect(error.expected == expected) }
    try expectInBand(c)
  }

  @Test(arguments: checking)
  func theEngineRefusesTheCallAtThePathThatProducedTheText(_ c: ErrorCase) throws {
    #expect(Harness.decodingError(c.call) == nil, "the call should decode; the engine refuses it")
    try expectInBand(c)
  }

  /// The search tool returns the error in band: no replies, the error, and a text naming the
  /// path, the message and what to do.
  func expectInBand(_ c: ErrorCase) throws {
    let result = try Harness.tool(identity: c.needsIdentity ? Harness.identity : Identity()).call(c.call)
    #expect(result.isError)
    #expect(result.replies.isEmpty)
    #expect(result.error?.path == c.path)
    #expect(result.error?.message == c.message)
    if let expected = c.expected { #expect(result.error?.expected == expected) }
    #expect(result.text.hasPrefix("The tool call was invalid and did not run. Correct it and call again.\ninvalid tool call at \(c.path): \(c.message)"))
    #expect(!result.text.contains("<data>"), "an error carries no retrieved data")
  }

  @Test func errorsAsJSONCarryPathMessageExpectedAndExample() throws {
    let error = try #require(Harness.decodingError(#"{"query":{"type":"serch","value":{}}}"#))
    let json = error.jsonValue
    #expect(json["error"]?["path"]?.stringValue == "$.query.type")
    #expect(json["error"]?["message"]?.stringValue == #"unknown query type "serch"; did you mean "search"?"#)
    #expect(json["error"]?["expected"]?.stringValue == "one of search, schema, help, display, dsl")
    let example = try #require(json["error"]?["example"]?.stringValue)
    #expect(Harness.decodingError(example) == nil, "the example is itself a valid call")
  }

  @Test func examplesInErrorsAreValidCalls() throws {
    // Where the example is a whole call, it decodes; where it is a node, it decodes as a root.
    for c in Self.decoding {
      guard let example = Harness.decodingError(c.call)?.example, example.hasPrefix("{") else { continue }
      if example.hasPrefix(#"{"query""#) {
        #expect(Harness.decodingError(example) == nil, "\(c.name): \(example)")
      } else if example.hasPrefix(#"{"type":"predicate""#) || example.hasPrefix(#"{"type":"allText""#) {
        #expect(Harness.decodingError(Call.root(example)) == nil, "\(c.name): \(example)")
      }
    }
  }

  @Test func nothingIsSilentlyDropped() throws {
    // Every predicate of a call reaches the query: a filter that could not be honoured is an
    // error, never a broader search.
    let call = Call.root(Call.operation("all", Call.trails, Call.predicate("rating", "greaterThanOrEqual", Call.double(4.9)),
                                        Call.temporal("after", #""reference":\#(Call.absolute(#""year":2025"#))"#)))
    let request = try Harness.searchRequest(call)
    #expect(request.query.contains("domainIdentifier == 'trails'cd"))
    #expect(request.query.contains("rating >= 4.9"))
    #expect(request.query.contains("contentModificationDate >= $time.iso(2026-01-01T00:00:00Z)"))
    let replies = try Harness.run(request.query)
    let expected = try Harness.run(#"search domainIdentifier == "trails" && rating >= 4.9 && (contentModificationDate >= $time.iso(2026-01-01) || contentCreationDate >= $time.iso(2026-01-01)) | top 21"#)
    #expect(!Harness.isEmpty(expected))
    #expect(Harness.fingerprint(replies) == Harness.fingerprint(expected))
  }
}
