import Foundation

/// An e-mail message (`.eml`, or a file whose first lines are RFC 5322 header fields with a
/// `From:` and a `Date:`, `Subject:`, `To:` or `Message-ID:`): Subject gives `title` and
/// `subject`; From `authorNames` and `authorEmailAddresses`; To and Cc `recipientNames` and
/// `recipientEmailAddresses`; Date `contentCreationDate`; Message-ID (without its angle
/// brackets) `identifier`. The text is the body: MIME parts walked, text/plain preferred over
/// text/html, quoted-printable and base64 undone, charsets decoded. Attachments are not text;
/// their file names go in `attachmentNames`.
package enum EmailImporter: DocumentImporter {
  package static let extensions: Set<String> = ["eml"]

  package static func claims(prefix: [UInt8]) -> Bool {
    let head = MIMEEntity(prefix[...])
    guard head.fields.first.map({ mailFields.contains($0.name) }) == true, head.field("from") != nil else { return false }
    return ["date", "subject", "to", "message-id"].contains(where: { head.field($0) != nil })
  }

  /// Header fields that start a message on disk.
  private static let mailFields: Set<String> = [
    "from", "to", "cc", "subject", "date", "message-id", "received", "return-path", "delivered-to", "mime-version",
    "x-mailer", "reply-to", "sender", "in-reply-to", "references", "dkim-signature", "authentication-results",
  ]

  package static func read(_ file: DocumentFile, with reader: inout ItemReader, _ body: ItemReader.Body) throws {
    let bytes = try NoteFields.bytes(of: file)
    guard TextDecoding.looksLikeText(bytes.prefix(TextDecoding.sniffLength)) else {
      throw IngestError(file: file.path, line: nil, message: DocumentImporters.Refusal.binary.message)
    }
    let message = MIMEEntity(bytes[...])
    guard !message.fields.isEmpty else {
      throw IngestError(file: file.path, line: 1, message: "no e-mail header fields (From:, Subject:, ...)")
    }
    let name = file.documentName
    try body(try item(message, file: file, identifier: file.identifier, fallbackTitle: name, with: &reader), 1, [])
  }

  /// The item for one message of `file`.
  static func item(
    _ message: MIMEEntity, file: DocumentFile, identifier: String, fallbackTitle: String, with reader: inout ItemReader
  ) throws -> SearchableItem {
    var item = try NoteFields.item(DocumentFile(path: file.path, identifier: identifier), frontMatter: [], with: &reader)
    item.contentType = "email"
    var attributes = item.attributeSet
    let subject = message.field("subject").map(MailHeader.decodeEncodedWords)?.trimming(" \t")
    if let subject, !subject.isEmpty { attributes["subject"] = .string(subject) }
    let authors = message.allFields("from").flatMap(MailHeader.mailboxes)
    let recipients = (message.allFields("to") + message.allFields("cc")).flatMap(MailHeader.mailboxes)
    func set(_ name: String, _ values: [String]) {
      var unique: [String] = []
      for value in values where !value.isEmpty && !unique.contains(value) { unique.append(value) }
      if !unique.isEmpty { attributes[name] = .list(unique.map(AttributeValue.string)) }
    }
    set("authorNames", authors.map(\.name))
    set("authorEmailAddresses", authors.map(\.address))
    set("recipientNames", recipients.map(\.name))
    set("recipientEmailAddresses", recipients.map(\.address))
    if let date = message.field("date").flatMap(MailHeader.date) { attributes["contentCreationDate"] = .date(date) }
    if let id = message.field("message-id").flatMap(MailHeader.messageIdentifier) { attributes["identifier"] = .string(id) }
    let (text, attachments) = message.readableText()
    set("attachmentNames", attachments)
    item.attributeSet = attributes
    NoteFields.finish(&item, file: file, title: subject.flatMap { $0.isEmpty ? nil : $0 } ?? fallbackTitle, text: Substring(text))
    return item
  }
}
