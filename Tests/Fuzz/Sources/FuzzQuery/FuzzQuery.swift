import CFuzzer
import Foundation
import QueryEngine
import SearchIndex
import Stages

/// Query text through the whole engine: lexer and parser, binder and type checker, planner,
/// SQL compiler and executor, over a small index of items with every kind of value. Any
/// input may fail with diagnostics; none may crash, hang or trip a sanitizer.
private let executor: QueryExecutor = {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-fuzz-\(getpid()).db").path
  let index = try! SearchIndex(path: path)
  var decoder = ItemDecoder(catalog: try! index.catalog())
  let lines = [
    #"{"id":"a","domain":"notes","attributes":{"title":"Mist Trail budget","keywords":["waterfall","loop"],"rating":4.5,"contentCreationDate":"2026-05-01T10:00:00Z","textContent":"A long body of text about budgets and trails, long enough to be stored as long text outside the value table for sure."}}"#,
    #"{"id":"b","domain":"mail.work","contentType":"email","attributes":{"title":"Re: budget","authorNames":["Tom Becker"],"authorEmailAddresses":["tom@example.com"],"rating":2,"distance":11.3}}"#,
    #"{"id":"c","domain":"trails","attributes":{"title":"Cathedral Lakes","stateOrProvince":"California","completionDate":"2026-07-06T23:00:00Z","difficulty":"hard"}}"#,
  ]
  let items = lines.map { try! decoder.decode(try! JSONParser.parse($0)) }
  try! index.indexSearchableItems(items)
  atexit { unlink(FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-fuzz-\(getpid()).db").path) }
  return QueryExecutor(index: index, registry: StandardLibrary.registry())
}()

private let options = QueryOptions(clock: QueryClock(now: Date(timeIntervalSince1970: 1_795_000_000)))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQuery(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  guard let graph = try? executor.prepare(text, options: options) else { return 0 }
  _ = try? executor.execute(graph, options: options) { _ in }
  return 0
}

/// The entry point SwiftPM links `main` to: libFuzzer's driver with `fuzzQuery`.
@_cdecl("FuzzQuery_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  var argc = argc
  var argv = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzQuery(data, size) }
}
