@testable import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// The tables of Apple's names hold exactly the names of Apple's schema (copied here from
/// ../shared/reference/spotlight-tool-fullarguments.schema.json), and every name in them is
/// understood by the decoder and offered by the help.
@Suite struct AppleVocabularyTests {
  typealias V = AppleVocabulary
  typealias C = Call

  static let appleStageKinds = [
    "query", "compute", "limit", "sampling", "hydration", "custom", "prompted", "count", "groupBy", "valueCount", "valueSum", "valueAverage",
    "valueMax", "valueMin", "valueMedian", "valueStddev", "itemSelect", "sort", "filter", "forEach", "merge", "extractGroupItems",
  ]
  static let appleNodeKinds = ["operation", "predicate", "contentType", "temporal", "person", "personMe", "allText", "application", "documentsFor", "semanticSimilar"]
  static let appleModels = ["sender", "recipient", "host", "participant", "topic", "semantic", "popularity"]
  static let appleRoles = ["originator", "recipient", "participant", "any"]
  static let appleRelative = ["now", "today", "yesterday", "thisWeek", "thisMonth", "thisYear", "lastWeek", "lastMonth", "lastYear", "nextWeek", "nextMonth"]

  @Test func theTablesHoldApplesNames() {
    #expect(V.names(V.StageKind.self) == Self.appleStageKinds)
    #expect(Set(V.names(V.NodeKind.self)) == Set(Self.appleNodeKinds))
    #expect(V.names(V.RankingModel.self) == Self.appleModels)
    #expect(V.names(V.PersonRole.self) == Self.appleRoles)
    #expect(Set(V.names(V.RelativeReference.self)) == Set(Self.appleRelative))
  }

  @Test(arguments: appleRelative)
  func everyRelativeReferenceDecodes(_ name: String) throws {
    let call = C.root(C.temporal("on", #""reference":\#(C.relative(name))"#))
    #expect(Harness.decodingError(call) == nil)
    #expect(try Harness.tool().call(call).error == nil)
  }

  @Test(arguments: appleModels)
  func everyRankingModelDecodes(_ name: String) throws {
    let value = switch name {
    case "topic": #"{"terms":"lake","weight":1}"#
    case "semantic", "popularity": #"{"weight":0.5}"#
    default: #"{"entity":{"type":"namedPerson","value":{"name":"Lena Novak"}},"weight":1}"#
    }
    let call = C.root(C.allText("lake"), #""modelComposition":{"type":"nonTemporal","value":{"models":[{"type":"\#(name)","value":\#(value)}]}}"#)
    let result = try Harness.tool().call(call)
    #expect(result.error == nil, "\(result.text)")
  }

  @Test(arguments: appleStageKinds)
  func everyStageKindIsKnownToTheDecoderAndTheHelp(_ kind: String) throws {
    // A stage of the kind with nothing in it: the error, if any, is about its fields, never
    // an unknown kind.
    let call = C.pipeline([C.trailsStage, C.stage("x", kind, "{}")])
    if let error = Harness.decodingError(call) {
      #expect(!error.message.hasPrefix("unknown stage type"), "\(error)")
    }
    let help = try Harness.tool().call(#"{"query":{"type":"help","value":{"topic":"pipeline"}}}"#).text
    if V.StageKind(rawValue: kind)?.needsModel == false { #expect(help.contains(kind), "\(kind) is not in the help") }
  }

  @Test func theHelpAndTheSchemaListTheTables() throws {
    let temporal = try Harness.tool().call(#"{"query":{"type":"help","value":{"topic":"temporal"}}}"#).text
    for name in Self.appleRelative { #expect(temporal.contains("\"\(name)\""), "\(name)") }
    let ranking = try Harness.tool().call(#"{"query":{"type":"help","value":{"topic":"ranking"}}}"#).text
    for name in Self.appleModels { #expect(ranking.contains(name), "\(name)") }
    let schema = try ToolSchemaTests.parameters("complete").compactText
    for name in Self.appleRelative + Self.appleRoles { #expect(schema.contains("\"\(name)\""), "\(name)") }
  }
}
