import CFuzzer
import Assistant
import Foundation
import QueryEngine

/// The arguments a model sends to the search tool (Apple's FullArguments): decoded into a
/// request or rejected with a JSON path; nothing may crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzToolCall(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  let decoder = ToolCallDecoder(clock: QueryClock(now: Date(timeIntervalSince1970: 1_795_000_000)), hasEmbeddings: size % 2 == 0)
  _ = try? decoder.decode(text)
  return 0
}

/// The entry point SwiftPM links `main` to: libFuzzer's driver with `fuzzToolCall`.
@_cdecl("FuzzToolCall_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  var argc = argc
  var argv = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzToolCall(data, size) }
}
