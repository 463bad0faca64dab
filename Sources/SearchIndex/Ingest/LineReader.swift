import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a file (or standard input) line by line in large chunks, so million-line JSON Lines
/// files stream through ingest without being loaded whole.
///
/// A line longer than `maximumLineLength` is an error as soon as that many bytes arrive
/// without a line break, so an endless line (`/dev/zero`) or a huge one costs bounded time and
/// memory. After the error, the next call skips the rest of that line and goes on.
package struct LineReader {
  /// A line was longer than the limit.
  package struct LineTooLong: Error, Sendable, CustomStringConvertible {
    package var limit: Int
    package var description: String { "line longer than \(limit) bytes" }
  }

  /// The default longest line: 32 MiB, room for any one item's JSON.
  package static let defaultMaximumLineLength = 32 << 20

  private let handle: FileHandle
  private let maximumLineLength: Int
  private var buffer: [UInt8] = []
  private var start = 0
  /// Bytes after `start` already searched for a line break, so a long line is scanned once.
  private var scanned = 0
  private var atEnd = false
  /// True while the rest of an overlong line is being thrown away.
  private var skipping = false
  private let chunkSize = 1 << 20
  /// Where read(2) puts each chunk before it joins the buffer.
  private var chunk: [UInt8] = []

  /// The index of the first `\n` in `buffer` at or after `offset` (memchr: long lines are
  /// scanned at memory speed).
  private static func lineBreak(in buffer: [UInt8], from offset: Int) -> Int? {
    guard offset < buffer.count else { return nil }
    return buffer.withUnsafeBufferPointer { bytes in
      guard let found = memchr(bytes.baseAddress! + offset, 0x0A, bytes.count - offset) else { return nil }
      return bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
  }

  /// `prefix` holds the bytes already read from `handle` (a probe of its first bytes).
  package init(handle: FileHandle, maximumLineLength: Int = LineReader.defaultMaximumLineLength, prefix: [UInt8] = []) {
    self.handle = handle
    self.maximumLineLength = maximumLineLength
    self.buffer = prefix
  }

  /// The next line without its terminator (`\n` or `\r\n`), nil at the end; `LineTooLong`
  /// for a line over the limit.
  package mutating func nextLine() throws -> [UInt8]? {
    while true {
      if let newline = Self.lineBreak(in: buffer, from: start + scanned) {
        let lineStart = start
        start = newline + 1
        scanned = 0
        if skipping {
          skipping = false
          continue
        }
        var end = newline
        if end > lineStart && buffer[end - 1] == 0x0D { end -= 1 }
        guard end - lineStart <= maximumLineLength else { throw LineTooLong(limit: maximumLineLength) }
        return Array(buffer[lineStart..<end])
      }
      scanned = buffer.count - start
      if skipping {
        // Keep nothing of the line being skipped.
        start = buffer.count
        scanned = 0
      } else if scanned > maximumLineLength + 1 {
        skipping = true
        start = buffer.count
        scanned = 0
        throw LineTooLong(limit: maximumLineLength)
      }
      if atEnd {
        skipping = false
        guard start < buffer.count else { return nil }
        let line = Array(buffer[start...])
        start = buffer.count
        scanned = 0
        guard line.count <= maximumLineLength else { throw LineTooLong(limit: maximumLineLength) }
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
      if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: chunkSize) }
      let descriptor = handle.fileDescriptor
      let count = chunk.withUnsafeMutableBytes { raw in
        var result: Int
        repeat {
          result = read(descriptor, raw.baseAddress!, raw.count)
        } while result < 0 && errno == EINTR
        return result
      }
      if count < 0 { throw CocoaError(.fileReadUnknown) }
      buffer.append(contentsOf: chunk[0..<count])
      if count == 0 { atEnd = true }
    }
  }
}
