import Dispatch
import Foundation
import QueryEngine
import SearchIndex

/// Replaces items with the current records from the app's store (Apple's `hydration`): text
/// that was indexed but not stored comes back, changed attributes are current, and an item
/// the source no longer has or no longer authorises is dropped.
public struct HydrateStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "hydrate",
    abstract: "Fetch the current, authorised records of the items from the app's store (dropping those it no longer has).",
    usage: "hydrate [timeout SECONDS]",
    signatures: [.init(.items, .items), .init(.scoredItems, .scoredItems)],
    parameters: [StageParameter("timeout", .number, "Seconds to wait for the store", default: .number(5), range: 0.1...300)],
    examples: [#"search "sourdough" | top 3 | hydrate timeout 2"#])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call) else { return nil }
    var timeout = 5.0
    if let clause = clauses.first {
      guard clauses.count == 1, clause.count == 2, clause[0].identifierName == "timeout", case .number(let seconds) = clause[1].kind,
        (0.1...300).contains(seconds)
      else {
        context.report(Diagnostic("stage.usage", "expected timeout SECONDS (0.1 to 300)", at: clause[0].span, help: "write \(descriptor.usage)"))
        return nil
      }
      timeout = seconds
    }
    return Bound(timeout: timeout, outputType: input)
  }

  struct Bound: BoundStage {
    let timeout: Double
    let outputType: PipelineType
    var explanation: String { "hydrate from the app's store (timeout \(timeout) s)" }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      guard let delegate = context.delegate else {
        throw QueryRuntimeError("hydrate needs the app's store, and none is registered for this index (sync a source first)")
      }
      let items = input.resultItems
      guard !items.isEmpty else { return input }
      // Ask the store once per protection class the scope grants (and for unprotected items).
      let identifiers = items.map(\.id)
      let classes: [String?] = [nil] + context.scope.protectionClasses.sorted().map { Optional($0) }
      let box = ResultBox()
      let done = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        do {
          var records: [String: SearchableItem] = [:]
          for protection in classes {
            for item in try delegate.searchableItems(forIdentifiers: identifiers, protectionClass: protection) {
              records[item.uniqueIdentifier] = item
            }
          }
          box.set(.success(records))
        } catch {
          box.set(.failure(error))
        }
        done.signal()
      }
      guard done.wait(timeout: .now() + timeout) == .success else {
        throw QueryRuntimeError("hydration timed out after \(StageBindingContext.format(timeout)) s")
      }
      let records = try box.get()
      var hydrated: [ResultItem] = []
      for var item in items {
        try context.cancellation.check()
        guard let record = records[item.id] else { continue }  // no longer there, or not authorised
        if let protection = record.protectionClass, !context.scope.protectionClasses.contains(protection) { continue }
        item.item = record
        hydrated.append(item)
      }
      return input.replacingItems(hydrated)
    }
  }

  /// Carries the store's answer from its thread.
  final class ResultBox: @unchecked Sendable {
    // @unchecked: written once before the semaphore is signalled, read after it.
    private var result: Result<[String: SearchableItem], any Error> = .success([:])
    private let lock = NSLock()
    func set(_ value: Result<[String: SearchableItem], any Error>) { lock.lock(); result = value; lock.unlock() }
    func get() throws -> [String: SearchableItem] { lock.lock(); defer { lock.unlock() }; return try result.get() }
  }
}
