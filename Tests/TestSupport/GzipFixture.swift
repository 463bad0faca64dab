import CZlib

/// gzip data for tests, made by zlib's own deflate (so Searchlight's reader is checked
/// against the library's writer, not against itself).
public enum GzipFixture {
  public static func compress(_ bytes: [UInt8]) -> [UInt8] {
    var stream = z_stream()
    // 15 + 16: a 32 KiB window, gzip header and trailer.
    let started = deflateInit2_(
      &stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
    precondition(started == Z_OK)
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
    var input = bytes
    let written = input.withUnsafeMutableBufferPointer { input in
      output.withUnsafeMutableBufferPointer { out in
        stream.next_in = input.baseAddress
        stream.avail_in = uInt(input.count)
        stream.next_out = out.baseAddress
        stream.avail_out = uInt(out.count)
        precondition(deflate(&stream, Z_FINISH) == Z_STREAM_END)
        return out.count - Int(stream.avail_out)
      }
    }
    return Array(output.prefix(written))
  }
}
