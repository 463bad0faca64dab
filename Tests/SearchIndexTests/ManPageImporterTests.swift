import Foundation
import Testing
@testable import SearchIndex

/// Manual pages (`Tests/Fixtures/manpages/`, written for these tests): troff read as `man`
/// shows it, the NAME section giving the title, the description and the other names.
@Suite struct ManPageImporterTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/manpages")

  static func read(_ name: String) throws -> [SearchableItem] {
    var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
    var items: [SearchableItem] = []
    try reader.read(DocumentFile(path: folder.appendingPathComponent(name).path, identifier: name)) { item, _, _ in items.append(item) }
    #expect(reader.warnings.isEmpty)
    return items
  }

  @Test func aManPageGivesItsNameSummaryAndText() throws {
    let items = try Self.read("frob.1")
    let item = try #require(items.first)
    #expect(items.count == 1)
    #expect(item.contentType == "document")
    let attributes = item.attributeSet
    #expect(attributes["title"] == .string("frob"))
    #expect(attributes["contentDescription"] == .string("adjust the frobnication of files"))
    #expect(attributes["alternateNames"] == .list([.string("unfrob")]))
    #expect(attributes["displayName"] == .string("frob.1"))
    // Definitions, ignored blocks, comments and settings are not text; fonts and escapes are
    // their letters; headings, paragraphs, a tag and a bullet are blocks apart by a blank
    // line, a display's lines and a table's rows lines of their own.
    #expect(attributes["textContent"] == .string("""
      NAME

      frob, unfrob - adjust the frobnication of files

      SYNOPSIS

      frob [-v] [file...]

      DESCRIPTION

      frob reads each file and adjusts its frobnication \u{2014} quickly, and in place. It never follows symbolic links.

      Settings come from frobrc(5) and the environment.

      OPTIONS

      -v, --verbose

      Print each file's name.

      \u{2022} A bullet item.

      EXAMPLES

      frob notes.txt
      frob -v *.md
      Level Meaning
      0 none

      SEE ALSO

      The frob home page.
      """))
  }

  @Test func anMdocPageGivesTheSame() throws {
    let item = try #require(try Self.read("grab.1").first)
    #expect(item.attributeSet["title"] == .string("grab"))
    #expect(item.attributeSet["contentDescription"] == .string("fetch files from a remote host"))
    #expect(item.attributeSet["alternateNames"] == nil)
    #expect(item.attributeSet["textContent"] == .string("""
      NAME

      grab - fetch files from a remote host

      SYNOPSIS

      grab [-qv] [-o output] host

      DESCRIPTION

      grab copies files over ssh(1).

      -o output

      Write to output instead of the current folder.
      """))
  }

  /// `.so man1/frob.1` only includes another page (Debian ships `gunzip.1.gz` so): no item.
  @Test func aPageThatIncludesAnotherIsAnAlias() throws {
    #expect(try Self.read("unfrob.1").isEmpty)
  }

  /// Pages are named by their section, so their content decides: `.TH`, `.Dd`, `.SH` or `.so` before
  /// any text, past comments, definitions (whatever their lines) and continued settings.
  @Test func troffIsRecognisedByItsFirstRequest() {
    func claims(_ text: String) -> Bool { ManPageImporter.claims(prefix: Array(text.utf8)) }
    #expect(claims(".TH LS 1\n.SH NAME\n"))
    #expect(claims(".\\\" comment\n'\\\" t\n\n.Dd May 1 2026\n"))
    #expect(claims(".de Vb\nverbatim text\n..\n.ds S long \\\nstring\n\\# groff comment\n.ig\ntext\n. .\n.TH X 1\n"))
    #expect(claims(".so man1/gzip.1\n"))
    // A line of escapes that prints nothing; a page that starts at its first section.
    #expect(claims("'\\\" t\n\\t\n.TH A64L 3\n"))
    #expect(claims(".SH NAME\npcre2demo \\- a demonstration\n"))
    #expect(!claims("This README explains .TH requests.\n.TH X 1\n"))
    #expect(!claims(".gitignore\n.DS_Store\n*.o\n"))
    #expect(!claims(""))
  }

  @Test func aPageWrittenWithCRLFReadsAsTheSamePage() throws {
    // "\r\n" is one `Character`: a page split by characters was one long line, and gave
    // neither its text nor its summary.
    let page = ".TH FOO 1\n.SH NAME\nfoo \\- frobnicate the bar\n.SH DESCRIPTION\n.B foo\nfrobnicates\tthings.\n"
    let crlf = ManPage.parse(page.replacingOccurrences(of: "\n", with: "\r\n"))
    #expect(crlf == ManPage.parse(page))
    #expect(crlf.summary == "frobnicate the bar")
    #expect(crlf.text == "NAME\n\nfoo - frobnicate the bar\n\nDESCRIPTION\n\nfoo frobnicates things.")
  }

  @Test func mdocMacrosBecomeTheirText() {
    let render = ManPage.Mdoc.render
    #expect(render(["Op", "Fl", "Fl", "apple"]) == "[--apple]")
    #expect(render(["Op", "Fl", "o", "Ar", "output"]) == "[-o output]")
    #expect(render(["Xr", "ssh", "1", "."]) == "ssh(1).")
    #expect(render(["Fl", "v", "Ns", "Ar", "level"]) == "-vlevel")
    #expect(render(["Dq", "quoted", "words"]) == "\u{201C}quoted words\u{201D}")
  }

  @Test func escapesBecomeTheirCharacters() {
    let render = ManPage.Escapes.render
    #expect(render("\\fBbold\\fR and \\f(CWcode\\fP \\f[I]it\\f[]") == "bold and code it")
    #expect(render("a \\(em b \\[en] c \\(bu \\-x \\e \\(aq\\(dq") == "a \u{2014} b \u{2013} c \u{2022} -x \\ '\"")
    #expect(render("\\*(lqquoted\\*(rq \\*[R] \\s-1small\\s0 \\s+2big\\s0") == "\u{201C}quoted\u{201D} \u{00AE} small big")
    #expect(render("caf\\[u00E9] a\\&.b x\\h'2m'y \\n(.gz \\kxmark") == "café a.b xy z mark")
    #expect(render("kept \\\" a comment") == "kept ")
    // Text around escapes and an escaped character are copied whole, whatever their length
    // in bytes.
    #expect(render("größe \\fBü\\fP \\é \\[em] \\h'ü'日本\\(co") == "größe ü é \u{2014} 日本\u{00A9}")
  }
}
