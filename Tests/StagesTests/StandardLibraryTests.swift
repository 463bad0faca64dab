import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

@Suite struct StandardLibraryTests {
  static let stagesFolder = repositoryRoot.appendingPathComponent("Stages")
  static let names = StandardLibrary.stages.map(\.descriptor.name)

  @Test func stagesAreSortedByNameWithUniqueNames() {
    #expect(Self.names == Self.names.sorted())
    #expect(Set(Self.names).count == Self.names.count)
    #expect(standardRegistry.names == Self.names)
  }

  @Test func theLibraryHasEveryStageOfTheDesign() {
    for name in ["where", "score", "sort", "top", "limit", "sample", "group", "count", "table", "stats", "select", "extract", "text", "fetch", "people"] {
      #expect(Self.names.contains(name), "\(name)")
    }
  }

  @Test func eachStageHasItsOwnFileNamedAfterIt() throws {
    for stage in StandardLibrary.stages {
      let typeName = String(describing: type(of: stage))
      let name = stage.descriptor.name
      #expect(typeName == name.prefix(1).uppercased() + name.dropFirst() + "Stage")
      let path = Self.stagesFolder.appendingPathComponent("\(typeName).swift").path
      let text = try String(contentsOfFile: path, encoding: .utf8)
      #expect(text.contains("public struct \(typeName): StageDefinition"), "\(path)")
      #expect(text.contains("name: \"\(name)\""), "\(path)")
    }
    // Every other stage file is an example custom stage, not part of the library.
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.stagesFolder.path).filter { $0.hasSuffix("Stage.swift") }
    let library = Set(StandardLibrary.stages.map { "\(type(of: $0)).swift" })
    for file in files where !library.contains(file) {
      let text = try String(contentsOfFile: Self.stagesFolder.appendingPathComponent(file).path, encoding: .utf8)
      #expect(text.contains(": CustomStage"), "\(file) is neither in the standard library nor a custom stage")
    }
    #expect(library.isSubset(of: files))
  }

  @Test func descriptorsDescribeThemselves() {
    for stage in StandardLibrary.stages {
      let descriptor = stage.descriptor
      #expect(!descriptor.abstract.isEmpty && descriptor.abstract.hasSuffix("."), "\(descriptor.name)")
      #expect(descriptor.usage.hasPrefix(descriptor.name), "\(descriptor.name)")
      #expect(!descriptor.signatures.isEmpty, "\(descriptor.name)")
      #expect(!descriptor.examples.isEmpty, "\(descriptor.name) has no examples")
      #expect(!descriptor.isCustom)
      #expect(StageRegistry.isValidName(descriptor.name))
    }
  }

  static let examples: [(String, String)] = StandardLibrary.stages.flatMap { stage in stage.descriptor.examples.map { (stage.descriptor.name, $0) } }

  @Test(arguments: examples)
  func everyExampleRunsOnTheSamples(stage: String, example: String) throws {
    let graph = try prepare(example)
    #expect(graph.statements.contains { $0.nodes.contains { $0.name == stage } }, "the example of \(stage) does not use it")
    let all = try replies(example, in: sampleIndex.index)
    #expect(!all.isEmpty)
    for reply in all {
      switch reply.content {
      case .items(let items), .scoredItems(let items): #expect(!items.isEmpty, "\(example) found nothing")
      case .table(let table): #expect(!table.rows.isEmpty, "\(example) gave an empty table")
      case .count(let n): #expect(n > 0, "\(example) counted nothing")
      case .groupedItems(let grouped): #expect(!grouped.groups.isEmpty, "\(example)")
      case .statistic(let statistic): #expect(statistic.value != .null, "\(example)")
      case .text(let text): #expect(!text.header.isEmpty, "\(example)")
      }
    }
  }

  @Test func registeringATakenOrInvalidNameFails() {
    var registry = StandardLibrary.registry()
    #expect(throws: StageRegistry.RegistrationError.self) { try registry.register(CountStage()) }
    #expect(registry.names == Self.names)
  }

  @Test func stagesAcceptingAType() {
    #expect(standardRegistry.stages(accepting: .count) == ["text"])
    #expect(standardRegistry.stages(accepting: .table) == ["limit", "select", "sort", "table", "text"])
    #expect(standardRegistry.stages(accepting: .groupedItems) == ["count", "extract", "limit", "select", "table", "text"])
    #expect(standardRegistry.stages(accepting: .items).contains("where"))
  }
}
