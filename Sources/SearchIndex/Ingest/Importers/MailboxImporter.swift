import Foundation

/// An mbox mailbox (`.mbox`, or a file whose first line starts with `From `): one e-mail item
/// per message (see `EmailImporter`), identified by the file's identifier and the message's
/// number (`inbox.mbox#2`). Messages start at a `From ` line at the start of the file or after
/// an empty line; `>From ` lines in bodies lose one `>` (mboxrd).
package enum MailboxImporter: DocumentImporter {
  package static let extensions: Set<String> = ["mbox"]

  package static func claims(prefix: [UInt8]) -> Bool {
    guard prefix.starts(with: Array("From ".utf8)), let lineEnd = prefix.firstIndex(of: 0x0A) else { return false }
    // The separator line is followed by a message's header fields.
    return EmailImporter.claims(prefix: Array(prefix[(lineEnd + 1)...]))
  }

  package static func read(_ file: DocumentFile, with reader: inout ItemReader, _ body: ItemReader.Body) throws {
    let bytes = [UInt8](try file.contents(atMost: ItemReader.maximumMailboxBytes, what: "mailbox"))
    guard TextDecoding.looksLikeText(bytes.prefix(TextDecoding.sniffLength)) else {
      throw IngestError(file: file.path, line: nil, message: DocumentImporters.Refusal.binary.message)
    }
    let messages = self.messages(bytes)
    guard !messages.isEmpty else {
      throw IngestError(file: file.path, line: 1, message: "not an mbox mailbox: no line starts with 'From '")
    }
    for (number, (line, message)) in messages.enumerated() {
      let identifier = "\(file.identifier)#\(number + 1)"
      let entity = MIMEEntity(message[...])
      let name = file.documentName
      var item = try EmailImporter.item(entity, file: file, identifier: identifier, fallbackTitle: "\(name)#\(number + 1)", with: &reader)
      // A message's size is its own, not the mailbox's.
      item.attributeSet["fileSize"] = .number(Double(message.count))
      try body(item, line, [])
    }
  }

  /// Each message's first line number (its `From ` line) and bytes (without that line, with
  /// `>From ` quoting undone).
  static func messages(_ bytes: [UInt8]) -> [(Int, [UInt8])] {
    var messages: [(Int, [UInt8])] = []
    var current: (Int, [UInt8])?
    var previousBlank = true
    var lineNumber = 0
    var index = 0
    let from = Array("From ".utf8)
    while index < bytes.count {
      lineNumber += 1
      let lineEnd = bytes[index...].firstIndex(of: 0x0A) ?? bytes.count
      let next = min(lineEnd + 1, bytes.count)
      let line = bytes[index..<lineEnd]
      if previousBlank, line.starts(with: from) {
        if let done = current { messages.append(done) }
        current = (lineNumber, [])
      } else if current != nil {
        var content = bytes[index..<next]
        let quotes = content.prefix(while: { $0 == UInt8(ascii: ">") }).count
        if quotes > 0, content.dropFirst(quotes).starts(with: from) { content = content.dropFirst() }
        current!.1.append(contentsOf: content)
      }
      previousBlank = line.isEmpty || line == [0x0D]
      index = next
    }
    if let done = current { messages.append(done) }
    return messages
  }
}
