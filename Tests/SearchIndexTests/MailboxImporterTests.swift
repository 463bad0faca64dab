import Foundation
import Testing
@testable import SearchIndex

@Suite struct MailboxImporterTests {
  @Test func eachMessageOfAMailboxIsAnItem() throws {
    let (items, warnings) = try DocumentFixtures.read("list.mbox")
    #expect(warnings.isEmpty)
    #expect(items.map(\.uniqueIdentifier) == ["list.mbox#1", "list.mbox#2", "list.mbox#3"])
    #expect(items.allSatisfy { $0.contentType == "email" })
    let titles = items.map { $0.attributeSet["title"]?.stringValue }
    #expect(titles == ["First message", "Re: First message ✓", "Latin-1 body"])
    #expect(items[0].attributeSet["textContent"] == .string("Hello Bob, the first message body mentions rabbits.\nFrom the garden, with love."))
    #expect(items[0].attributeSet["identifier"] == .string("first@example.com"))
    #expect(items[0].attributeSet["contentCreationDate"] == .date(utc(2026, 11, 30, 15)))
    #expect(items[1].attributeSet["textContent"] == .string("Reply with HTML only & no plain text."))
    #expect(items[1].attributeSet["authorNames"] == .list([.string("Bob")]))
    #expect(items[1].attributeSet["contentCreationDate"] == .date(utc(2026, 11, 30, 16, 5)))
    #expect(items[2].attributeSet["textContent"] == .string("Windows quotes “like this” and café"))
    #expect(items[2].attributeSet["authorNames"] == nil)
    #expect(items[2].attributeSet["authorEmailAddresses"] == .list([.string("carol@example.com")]))
    #expect(items[2].attributeSet["recipientEmailAddresses"] == nil)
    // Each message's size is its own: together they are the mailbox less its `From ` lines.
    let mailbox = try #require(DocumentFixtures.file("list.mbox").size)
    let sizes = items.compactMap { $0.attributeSet["fileSize"]?.numericValue }
    #expect(sizes.count == 3)
    #expect(sizes.allSatisfy { $0 > 0 } && sizes.reduce(0, +) < Double(mailbox))
  }

  @Test func messagesAreReportedAtTheLineOfTheirFromLine() throws {
    var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
    var lines: [Int?] = []
    try reader.read(DocumentFixtures.file("list.mbox")) { _, line, _ in lines.append(line) }
    #expect(lines == [1, 11, 20])
  }

  @Test func aFromLineInsideAParagraphDoesNotStartAMessage() {
    let messages = MailboxImporter.messages(Array("From a\nSubject: x\n\nline\nFrom here on\n\nFrom b\nSubject: y\n\nz\n".utf8))
    #expect(messages.map(\.0) == [1, 7])
    #expect(String(decoding: messages[0].1, as: UTF8.self) == "Subject: x\n\nline\nFrom here on\n\n")
  }

  @Test func aMailboxIsSniffedByItsFirstLine() {
    #expect(MailboxImporter.claims(prefix: Array("From a@b Mon Nov 30 10:00:00 2026\nFrom: a@b\nSubject: s\n".utf8)))
    #expect(!MailboxImporter.claims(prefix: Array("From the author of tmux\ncomes a new tool\n".utf8)))
  }
}
