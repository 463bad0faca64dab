import CFuzzer
import SearchIndex

/// One line of an items file: the JSON parser, then the item decoder (types, dates, lists,
/// domains, custom attributes). Bad input throws; nothing may crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzItems(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  guard let json = try? JSONParser.parse(text) else { return 0 }
  var decoder = ItemDecoder(catalog: AttributeCatalog())
  _ = try? decoder.decode(json)
  _ = json.compactText
  return 0
}

/// The entry point SwiftPM links `main` to: libFuzzer's driver with `fuzzItems`.
@_cdecl("FuzzItems_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  var argc = argc
  var argv = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzItems(data, size) }
}
