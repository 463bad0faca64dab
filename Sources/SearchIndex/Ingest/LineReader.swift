import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a file (or standard input) line by line in large chunks, so million-line JSON Lines
/// files stream through ingest without being loaded whole.
package struct LineReader {
  private let handle: FileHandle
  private var buffer: [UInt8] = []
  private var start = 0
  private var atEnd = false
  private let chunkSize = 1 << 20

  package init(handle: FileHandle) { self.handle = handle }

  /// The next line without its terminator (`\n` or `\r\n`), nil at the end.
  package mutating func nextLine() throws -> [UInt8]? {
    while true {
      if let newline = buffer[start...].firstIndex(of: 0x0A) {
        var end = newline
        if end > start && buffer[end - 1] == 0x0D { end -= 1 }
        let line = Array(buffer[start..<end])
        start = newline + 1
        return line
      }
      if atEnd {
        guard start < buffer.count else { return nil }
        let line = Array(buffer[start...])
        start = buffer.count
        return line
      }
      // Compact, then read more.
      if start > 0 {
        buffer.removeFirst(start)
        start = 0
      }
      // read(2) returns what is available, so a pipe's lines (an MCP client, a REPL script)
      // arrive as soon as they are written; FileHandle.read(upToCount:) would wait for a
      // whole chunk.
      let previous = buffer.count
      buffer.append(contentsOf: repeatElement(0, count: chunkSize))
      let count = buffer.withUnsafeMutableBytes { raw in
        var result: Int
        repeat {
          result = read(handle.fileDescriptor, raw.baseAddress! + previous, chunkSize)
        } while result < 0 && errno == EINTR
        return result
      }
      buffer.removeLast(chunkSize - max(0, count))
      if count < 0 { throw CocoaError(.fileReadUnknown) }
      if count == 0 { atEnd = true }
    }
  }
}
