import Foundation
import Synchronization
import Testing
@testable import SearchIndex

@Suite struct ConcurrencyTests {
  static let batchSize = 25
  static let batchCount = 40

  /// What a background writer reports back.
  final class WriterState: Sendable {
    let finished = Mutex(false)
    let errors = Mutex<[String]>([])
    let done = DispatchSemaphore(value: 0)
  }

  /// Starts a thread that commits `batchCount` batches of `batchSize` items to `index`, each
  /// with the batch number as its client state.
  func startWriter(_ index: SearchIndex, prefix: String = "item", clientStates: Bool = true) -> WriterState {
    let state = WriterState()
    let thread = Thread {
      for number in 0..<Self.batchCount {
        let batch = index.beginBatch()
        batch.indexSearchableItems((0..<Self.batchSize).map { offset in
          item("\(prefix)-\(number)-\(offset)", domain: "domain\(offset % 3)", [
            ("title", .string("Item \(offset) of batch \(number)")), ("batch", .number(Double(number))),
          ])
        })
        do {
          try batch.endBatch(clientState: Data((clientStates ? "\(number + 1)" : prefix).utf8))
        } catch {
          state.errors.withLock { $0.append("\(error)") }
        }
      }
      state.finished.withLock { $0 = true }
      state.done.signal()
    }
    thread.start()
    return state
  }

  /// Checks one snapshot: whole batches only, and client state, domains and attribute counts
  /// that agree with the item count.
  func checkSnapshot(_ stats: IndexStatistics) {
    #expect(stats.items % Self.batchSize == 0, "saw \(stats.items) items, not a whole number of batches")
    #expect(stats.domains.reduce(0) { $0 + $1.count } == stats.items)
    for attribute in stats.attributes {
      #expect(attribute.count == stats.items, "attribute \(attribute.name) counted \(attribute.count) of \(stats.items) items")
    }
    let committedBatches = stats.clientState.flatMap { String(data: $0, encoding: .utf8) }.flatMap { Int($0) } ?? 0
    #expect(committedBatches * Self.batchSize == stats.items, "client state \(committedBatches) with \(stats.items) items")
  }

  @Test func aReaderOnAnotherInstanceNeverSeesHalfABatch() throws {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("concurrent.db").path
      let writer = try SearchIndex(path: path)
      let reader = try SearchIndex(path: path)
      let state = startWriter(writer)
      var snapshots = 0
      while true {
        let writerFinished = state.finished.withLock { $0 }
        do {
          checkSnapshot(try reader.statistics())
          let stored = try reader.read { db in
            try db.scalar("SELECT count(*) FROM items")?.int64Value ?? -1
          }
          #expect(stored % Int64(Self.batchSize) == 0)
        } catch {
          Issue.record("the reader failed: \(error)")
          break
        }
        snapshots += 1
        if writerFinished { break }
      }
      state.done.wait()
      #expect(state.errors.withLock { $0 } == [])
      #expect(snapshots > 0)
      let final = try reader.statistics()
      #expect(final.items == Self.batchSize * Self.batchCount)
      #expect(final.clientState == Data("\(Self.batchCount)".utf8))
    }
  }

  @Test func readersOfTheWritingInstanceNeverSeeHalfABatch() throws {
    try withTemporaryDirectory { dir in
      let index = try SearchIndex(path: dir.appendingPathComponent("same.db").path)
      let state = startWriter(index)
      while true {
        let writerFinished = state.finished.withLock { $0 }
        do {
          checkSnapshot(try index.statistics())
          #expect(try index.allItems().count % Self.batchSize == 0)
        } catch {
          Issue.record("the reader failed: \(error)")
          break
        }
        if writerFinished { break }
      }
      state.done.wait()
      #expect(state.errors.withLock { $0 } == [])
      #expect(try index.statistics().items == Self.batchSize * Self.batchCount)
    }
  }

  @Test func writersOnTwoInstancesBothCommitEveryBatch() throws {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("writers.db").path
      let first = try SearchIndex(path: path)
      let second = try SearchIndex(path: path)
      let one = startWriter(first, prefix: "one", clientStates: false)
      let two = startWriter(second, prefix: "two", clientStates: false)
      one.done.wait()
      two.done.wait()
      #expect(one.errors.withLock { $0 } == [])
      #expect(two.errors.withLock { $0 } == [])
      let stats = try first.statistics()
      #expect(stats.items == 2 * Self.batchSize * Self.batchCount)
      #expect(try first.generation() == Int64(2 * Self.batchCount))
    }
  }
}
