import CFuzzer
import Foundation
import QueryEngine
import SearchIndex
import Stages

/// A `.stage` file: the stage-file parser, then binding each declaration against the standard
/// library (parameters, ranges, bodies that call other stages). Bad files give diagnostics;
/// nothing may crash.
/// Made once: each input registers into a copy.
let standard = StandardLibrary.registry()
let clock = QueryClock(now: Date(timeIntervalSince1970: 1_795_000_000), timeZone: TimeZone(identifier: "UTC")!)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStageFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  var registry = standard
  if let diagnostics = StageFileLoader.load(source: SourceText(text, name: "fuzz.stage"), into: &registry, catalog: AttributeCatalog(), clock: clock) {
    _ = diagnostics.description
  }
  return 0
}

/// The entry point SwiftPM links `main` to: libFuzzer's driver with `fuzzStageFile`.
@_cdecl("FuzzStageFile_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  var argc = argc
  var argv = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzStageFile(data, size) }
}
