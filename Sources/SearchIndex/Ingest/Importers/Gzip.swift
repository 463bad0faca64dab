import CZlib
import Foundation

/// gzip (RFC 1952) through zlib: documents compressed one file at a time, as Debian installs
/// its changelogs and READMEs (`changelog.Debian.gz`, `README.md.gz`).
package enum Gzip {
  package struct Failure: Error, Sendable, Equatable {
    package let message: String
  }

  /// The decompressed bytes of `data` (one gzip member, or several one after another as `cat
  /// a.gz b.gz` makes them), at most `limit` of them; `complete` is false when there were
  /// more. With `partialInput`, `data` may be the start of a file: its bytes are decompressed
  /// as far as they go (for sniffing a file's first bytes).
  package static func decompress(
    _ data: Data, limit: Int, partialInput: Bool = false
  ) throws(Failure) -> (bytes: [UInt8], complete: Bool) {
    var stream = z_stream()
    // 15 + 16: a 32 KiB window, gzip header and trailer (not zlib's).
    guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
      throw Failure(message: "zlib could not start decompressing")
    }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    output.reserveCapacity(min(limit, max(data.count * 4, 4096)))
    let chunkSize = 1 << 16
    var chunk = [UInt8](repeating: 0, count: chunkSize)
    var members = 0
    let outcome: Result<Bool, Failure> = data.withUnsafeBytes { input in
      stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
      stream.avail_in = uInt(input.count)
      return chunk.withUnsafeMutableBufferPointer { buffer in
        while true {
          stream.next_out = buffer.baseAddress
          stream.avail_out = uInt(chunkSize)
          let status = inflate(&stream, Z_NO_FLUSH)
          let produced = chunkSize - Int(stream.avail_out)
          let room = limit - output.count
          output.append(contentsOf: buffer.prefix(min(produced, room)))
          if produced > room { return .success(false) }
          switch status {
          case Z_STREAM_END:
            members += 1
            // Another member may follow; anything else after a whole member (zero padding) is
            // ignored, as gzip itself does.
            guard stream.avail_in > 0, input[input.count - Int(stream.avail_in)] == 0x1F else { return .success(true) }
            inflateReset(&stream)
          case Z_OK:
            continue
          case Z_BUF_ERROR where stream.avail_in == 0:
            if partialInput { return .success(false) }
            return .failure(Failure(message: "the compressed file is cut short"))
          default:
            let reason = stream.msg.map { String(cString: $0) } ?? "error \(status)"
            return .failure(Failure(message: "not gzip data, or corrupt (\(reason))"))
          }
        }
      }
    }
    switch outcome {
    case .success(let complete): return (output, complete)
    case .failure(let failure): throw failure
    }
  }
}
