import CFuzzer
import Foundation
import SearchIndex

/// A Markdown note's bytes through `ItemDecoder.decodeMarkdown`, the path `searchlight index`
/// takes for a `.md` file: text decoding (UTF-8, UTF-16 with a byte order mark, Latin-1), the
/// front-matter reader (keys, quoted and bare values, flow lists), each value converted by its
/// attribute's type (standard, or inferred for a new custom attribute), the item fields
/// (`id`, `domain`, `expirationDate`, ...), the title from a leading heading; then the item
/// is serialised as the index stores it. Bad notes are errors; nothing may crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrontMatter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  var decoder = ItemDecoder(catalog: AttributeCatalog())
  var warnings: [IngestError] = []
  guard let item = try? decoder.decodeMarkdown(Data(bytes: data, count: size), identifier: "fuzz/note.md", warnings: &warnings)
  else { return 0 }
  _ = JSONValue.object(item.jsonObject).compactText
  _ = warnings.map(\.description)
  return 0
}

/// The entry point SwiftPM links `main` to: libFuzzer's driver with `fuzzFrontMatter`.
@_cdecl("FuzzFrontMatter_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  var argc = argc
  var argv = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzFrontMatter(data, size) }
}
