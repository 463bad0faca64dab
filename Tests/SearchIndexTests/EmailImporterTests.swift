import Foundation
import Testing
@testable import SearchIndex

@Suite struct EmailImporterTests {
  @Test func aMultipartMessageGivesHeadersAndThePlainTextBody() throws {
    let (items, warnings) = try DocumentFixtures.read("meeting.eml")
    #expect(warnings.isEmpty)
    let item = try #require(items.first)
    #expect(items.count == 1)
    #expect(item.uniqueIdentifier == "meeting.eml")
    #expect(item.contentType == "email")
    let attributes = item.attributeSet
    #expect(attributes["title"] == .string("Réunion café ☕ à jeudi"))
    #expect(attributes["subject"] == .string("Réunion café ☕ à jeudi"))
    #expect(attributes["authorNames"] == .list([.string("François Dupont")]))
    #expect(attributes["authorEmailAddresses"] == .list([.string("francois@example.org")]))
    #expect(attributes["recipientNames"] == .list([.string("Ann Example"), .string("Bob Builder"), .string("Doe, Jane")]))
    #expect(attributes["recipientEmailAddresses"] == .list([.string("ann@example.com"), .string("bob@example.com"), .string("jane@example.net")]))
    #expect(attributes["contentCreationDate"] == .date(utc(2026, 12, 1, 8, 30)))
    #expect(attributes["identifier"] == .string("20261201.0930@example.org"))
    #expect(attributes["textContent"] == .string("""
      Café meeting moved to Thursday. This line is long and has a soft line break in it.
      Bring the quarterly report = important.
      """))
    #expect(attributes["attachmentNames"] == .list([.string("agenda.bin")]))
    #expect(attributes["fileSize"] == .number(Double(try #require(DocumentFixtures.file("meeting.eml").size))))
  }

  func message(_ text: String) -> MIMEEntity { MIMEEntity(Array(text.utf8)[...]) }

  @Test func htmlIsTheTextWhenThereIsNoPlainPart() {
    let html = "<p>Only <b>HTML</b> here</p><script>x()</script>"
    let body = Data(html.utf8).base64EncodedString()
    let entity = message("""
      Content-Type: multipart/alternative; boundary=b

      --b
      Content-Type: text/html; charset=utf-8
      Content-Transfer-Encoding: base64

      \(body)
      --b--
      """)
    #expect(entity.readableText().text == "Only HTML here")
  }

  @Test(arguments: [
    ("=?UTF-8?B?Y2Fmw6k=?=", "café"),
    ("=?ISO-8859-1?Q?Fran=E7ois_Dupont?=", "François Dupont"),
    ("=?utf-8?q?a?= =?utf-8?q?b?= c", "ab c"),
    ("plain =?bogus", "plain =?bogus"),
    ("=?windows-1252?Q?=93quoted=94?=", "“quoted”"),
    ("=?UTF-8*en?B?w6k=?=", "é"),
  ])
  func encodedWordsAreDecoded(_ raw: String, _ decoded: String) {
    #expect(MailHeader.decodeEncodedWords(raw) == decoded)
  }

  @Test(arguments: [
    ("Tue, 1 Dec 2026 09:30:00 +0100 (CET)", utc(2026, 12, 1, 8, 30)),
    ("1 Dec 2026 09:30 -0500", utc(2026, 12, 1, 14, 30)),
    ("Mon, 30 Nov 26 16:05:07 GMT", utc(2026, 11, 30, 16, 5, 7)),
    ("Mon, 30 Nov 2026 16:05:07 PST", utc(2026, 12, 1, 0, 5, 7)),
  ])
  func rfc2822DatesWithZonesAreRead(_ text: String, _ date: Date) {
    #expect(MailHeader.date(text) == date)
  }

  @Test(arguments: ["", "yesterday", "31 Feb 2026 10:00 +0000", "1 Foo 2026 10:00 +0000", "1 Dec 2026 25:00 +0000"])
  func whatIsNotADateIsNil(_ text: String) {
    #expect(MailHeader.date(text) == nil)
  }

  @Test func addressListsKeepQuotedCommasAndGroups() {
    let boxes = MailHeader.mailboxes("\"Doe, Jane\" <jane@x.org>, team: a@x.org, B <b@x.org>;, c@x.org (Cee)")
    #expect(boxes.map(\.name) == ["Doe, Jane", "", "B", "Cee"])
    #expect(boxes.map(\.address) == ["jane@x.org", "a@x.org", "b@x.org", "c@x.org"])
    #expect(MailHeader.mailboxes("undisclosed-recipients:;").isEmpty)
  }

  @Test func quotedPrintableAndBase64AreUndone() {
    #expect(MIMEEntity.decodeQuotedPrintable(Array("a=3Db=\r\nc =XY=".utf8)) == Array("a=bc =XY".utf8))
    #expect(MIMEEntity.decodeBase64(Array("aGVs\r\nbG8=".utf8)) == Array("hello".utf8))
    #expect(MIMEEntity.decodeBase64(Array("!!!".utf8)).isEmpty)
  }

  @Test func charsetsAreDecoded() {
    #expect(TextDecoding.decode([0x63, 0x61, 0x66, 0xE9], charset: "ISO-8859-1") == "café")
    #expect(TextDecoding.decode([0x93, 0x61, 0x94], charset: "windows-1252") == "“a”")
    #expect(TextDecoding.decode([0xA4], charset: "iso-8859-15") == "€")
    #expect(TextDecoding.decode(Array("café".utf8), charset: "utf-8") == "café")
    // Declared UTF-8 but not: read as Windows-1252 instead of failing.
    #expect(TextDecoding.decode([0x63, 0xE9], charset: "utf-8") == "cé")
    #expect(TextDecoding.decode(Array("x".utf8), charset: "x-unknown") == "x")
  }

  @Test func foldedHeadersAreUnfolded() {
    let entity = message("Subject: one\n  two\n\tthree\nX: y\n\nbody")
    #expect(entity.field("subject") == "one two three")
    #expect(entity.field("x") == "y")
    #expect(entity.readableText().text == "body")
  }

  @Test func headerLinesAreSniffedButProseIsNot() {
    #expect(EmailImporter.claims(prefix: Array("Received: from x\nFrom: a@b\nSubject: s\n\nbody".utf8)))
    #expect(!EmailImporter.claims(prefix: Array("Format: https://www.debian.org/doc/\nUpstream-Name: x\n".utf8)))
    #expect(!EmailImporter.claims(prefix: Array("From: a@b\nno colon here\n".utf8)))
  }

  @Test func deeplyNestedMultipartsStopAtTheDepthLimit() {
    var text = "Content-Type: text/plain\n\ninnermost\n"
    for level in 0..<40 {
      text = "Content-Type: multipart/mixed; boundary=b\(level)\n\n--b\(level)\n\(text)--b\(level)--\n"
    }
    #expect(message(text).readableText().text == "")
  }
}
