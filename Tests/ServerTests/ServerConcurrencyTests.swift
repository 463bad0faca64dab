import Foundation
import SearchlightTestSupport
import SearchIndex
import Synchronization
import Testing

/// Many readers and one writer at once: 16 clients query while another ingests, for about
/// two seconds; no request fails and nothing written is lost.
@Suite struct ServerConcurrencyTests {
  @Test func sixteenReadersAndOneWriterLoseNothing() async throws {
    let fixture = try ServerFixture()
    let client = fixture.client
    let stop = Atomic<Bool>(false)
    let failures = Mutex<[String]>([])
    let reads = Atomic<Int>(0)
    let batchSize = 10
    let group = DispatchGroup()
    for reader in 0..<16 {
      group.enter()
      Thread.detachNewThread {
        defer { group.leave() }
        var lastCount = 0
        var ran = 0
        // At least a few requests each, then until the writer is done.
        while ran < 3 || !stop.load(ordering: .acquiring) {
          ran += 1
          do {
            let query = reader % 2 == 0 ? "search domainIdentifier == \"load\" | count" : "keywords == \"waterfall\"c"
            let response = try client.sendBlocking("POST", "/v1/query", body: jsonBody([("query", .string(query))]))
            guard response.status == 200 else {
              failures.withLock { $0.append("reader \(reader): \(response.status) \(response.text)") }
              continue
            }
            reads.add(1, ordering: .relaxed)
            if reader % 2 == 0, let count = response.jsonLines.first?["content"]?["count"]?.intValue {
              // Writes are transactions: a reader sees whole batches, never fewer than before.
              if count % batchSize != 0 || count < lastCount {
                failures.withLock { $0.append("reader \(reader): saw \(count) after \(lastCount)") }
              }
              lastCount = count
            }
          } catch {
            failures.withLock { $0.append("reader \(reader): \(error)") }
          }
        }
      }
    }
    var written = 0
    let start = ContinuousClock.now
    var batch = 0
    while ContinuousClock.now - start < .seconds(2) || batch < 5 {
      var lines = ""
      for number in 0..<batchSize {
        lines += #"{"id":"load-\#(batch)-\#(number)","domain":"load","attributes":{"title":"Load \#(batch) \#(number)"}}"# + "\n"
      }
      let response = try await client.send("POST", "/v1/items", body: lines)
      if response.status == 200, response.json?["indexed"]?.intValue == batchSize {
        written += batchSize
      } else {
        failures.withLock { $0.append("writer: \(response.status) \(response.text)") }
      }
      batch += 1
    }
    stop.store(true, ordering: .releasing)
    #expect(group.wait(timeout: .now() + 120) == .success)
    #expect(failures.withLock { $0 } == [])
    #expect(reads.load(ordering: .relaxed) >= 48)
    let final = try await client.send("POST", "/v1/query", body: jsonBody([("query", "search domainIdentifier == \"load\" | count")]))
    #expect(final.jsonLines.first?["content"]?["count"]?.intValue == written)
    #expect(written == batch * batchSize)
  }
}
