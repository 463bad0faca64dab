/// The state of one `TextAnalyzer.tokenize` call: the input, the scratch memory tokens are
/// folded into, and the scanning logic. Kept apart from `TextAnalyzer` so that type stays a
/// plain Sendable value while this one holds raw pointers and lives for a single call.
struct TokenizerRun {
  /// Bytes per scratch region: a marker byte plus `maxTokenBytes`, with room to spare.
  static let regionBytes = 128
  /// Four regions: the word, its stem, a camelCase part or CJK gram, and the part's stem.
  static let scratchBytes = regionBytes * 4
  /// camelCase boundaries remembered per word; later ones are ignored, which only happens on
  /// pathological input such as long base64 runs.
  static let maxBoundaries = 32

  private let input: UnsafePointer<UInt8>
  private let count: Int
  private let mode: TokenizeMode
  private let stemming: Bool
  private let wordBuffer: UnsafeMutablePointer<UInt8>
  private let stemBuffer: UnsafeMutablePointer<UInt8>
  private let partBuffer: UnsafeMutablePointer<UInt8>
  private let partStemBuffer: UnsafeMutablePointer<UInt8>
  /// Source offsets where camelCase parts after the first one start.
  private let boundaries: UnsafeMutablePointer<Int>

  /// `scratch` must hold `scratchBytes` bytes and `boundaries` `maxBoundaries` offsets; both
  /// stay owned by the caller.
  init(
    input: UnsafePointer<UInt8>,
    count: Int,
    scratch: UnsafeMutablePointer<UInt8>,
    boundaries: UnsafeMutablePointer<Int>,
    mode: TokenizeMode,
    stemming: Bool
  ) {
    self.input = input
    self.count = count
    self.mode = mode
    self.stemming = stemming
    wordBuffer = scratch
    stemBuffer = scratch + Self.regionBytes
    partBuffer = scratch + Self.regionBytes * 2
    partStemBuffer = scratch + Self.regionBytes * 3
    self.boundaries = boundaries
  }

  // MARK: - Scanning

  /// Scans the whole input, emitting tokens in order.
  func run<E: Error>(_ emit: (TokenView) throws(E) -> Void) throws(E) {
    var index = 0
    // Set by a stem marker byte in query text; applies to the word right after it.
    var stemNextWord = false
    while index < count {
      let byte = input[index]
      if byte < 0x80 {
        if Self.isASCIIWordByte(byte) {
          index = try word(from: index, stemmed: stemNextWord || mode == .stemmedQuery, emit)
          stemNextWord = false
        } else {
          stemNextWord = mode == .query && byte == TextAnalyzer.stemMarker
          index &+= 1
        }
        continue
      }
      let (value, length) = decode(at: index)
      switch ScalarClass.of(value) {
      case .lower, .upper, .otherLetter, .digit:
        index = try word(from: index, stemmed: stemNextWord || mode == .stemmedQuery, emit)
      case .cjk, .hangulContinuation:
        index = try cjkRun(from: index, emit)
      default:
        index &+= length
      }
      stemNextWord = false
    }
  }

  /// Scans the Latin word starting at `start`, emits its tokens and returns its end offset.
  private func word<E: Error>(from start: Int, stemmed: Bool, _ emit: (TokenView) throws(E) -> Void) throws(E) -> Int {
    var index = start
    var isPlainASCII = true  // Only ASCII letters and digits: fold is a byte-wise lowercase.
    var previousWasLower = false
    var boundaryCount = 0
    scan: while index < count {
      let byte = input[index]
      if byte < 0x80 {
        if byte &- 0x61 < 26 {
          previousWasLower = true
        } else if byte &- 0x41 < 26 {
          if previousWasLower, boundaryCount < Self.maxBoundaries {
            boundaries[boundaryCount] = index
            boundaryCount &+= 1
          }
          previousWasLower = false
        } else if byte &- 0x30 < 10 {
          previousWasLower = false
        } else if byte == 0x27, startsWord(at: index &+ 1) {
          isPlainASCII = false  // A joining apostrophe: dropped when folding.
        } else {
          break scan
        }
        index &+= 1
        continue
      }
      let (value, length) = decode(at: index)
      switch ScalarClass.of(value) {
      case .lower:
        previousWasLower = true
      case .upper:
        if previousWasLower, boundaryCount < Self.maxBoundaries {
          boundaries[boundaryCount] = index
          boundaryCount &+= 1
        }
        previousWasLower = false
      case .otherLetter, .digit:
        previousWasLower = false
      case .mark, .ignorable:
        break  // Part of the letter before it: `previousWasLower` stands.
      case .separator where value == 0x2019 && startsWord(at: index &+ length):
        break  // Typographic apostrophe between letters joins, like `'`.
      default:
        break scan
      }
      isPlainASCII = false
      index &+= length
    }
    let end = index

    let word = isPlainASCII
      ? Self.lowercaseASCII(input + start, count: end &- start, into: wordBuffer)
      : fold(start..<end, into: wordBuffer)
    guard word.count > 0 else { return end }

    switch mode {
    case .document:
      try emitToken(wordBuffer, word.count, start..<end, colocated: false, stemmable: word.stemmable, emit)
      if stemming && word.stemmable {
        try emitStemIfDifferent(of: wordBuffer, word.count, into: stemBuffer, start..<end, emit)
      }
      if boundaryCount > 0 {
        var partStart = start
        for boundary in 0...boundaryCount {
          let partEnd = boundary < boundaryCount ? boundaries[boundary] : end
          let part = isPlainASCII
            ? Self.lowercaseASCII(input + partStart, count: partEnd &- partStart, into: partBuffer)
            : fold(partStart..<partEnd, into: partBuffer)
          if part.count > 0 {
            try emitToken(partBuffer, part.count, partStart..<partEnd, colocated: true, stemmable: part.stemmable, emit)
            if stemming && part.stemmable {
              try emitStemIfDifferent(of: partBuffer, part.count, into: partStemBuffer, partStart..<partEnd, emit)
            }
          }
          partStart = partEnd
        }
      }
    case .query, .stemmedQuery:
      if stemmed && stemming && word.stemmable {
        try emitStemAlternatives(of: wordBuffer, word.count, start..<end, emit)
      } else {
        try emitToken(wordBuffer, word.count, start..<end, colocated: false, emit)
      }
    }
    return end
  }

  /// Scans a run of CJK characters starting at `start`, emits its grams and returns its end.
  private func cjkRun<E: Error>(from start: Int, _ emit: (TokenView) throws(E) -> Void) throws(E) -> Int {
    var unitStart = start
    var unitEnd = cjkUnitEnd(from: start)
    var isFirst = true
    while true {
      let nextEnd: Int? = startsCJK(at: unitEnd) ? cjkUnitEnd(from: unitEnd) : nil
      switch mode {
      case .document:
        try emitFolded(unitStart..<unitEnd, colocated: false, emit)
        if let nextEnd { try emitFolded(unitStart..<nextEnd, colocated: true, emit) }
      case .query, .stemmedQuery:
        if let nextEnd {
          try emitFolded(unitStart..<nextEnd, colocated: false, emit)
        } else if isFirst {
          try emitFolded(unitStart..<unitEnd, colocated: false, emit)
        }
      }
      guard let nextEnd else { return unitEnd }
      unitStart = unitEnd
      unitEnd = nextEnd
      isFirst = false
    }
  }

  /// The end of the CJK character at `start`: the scalar plus any marks, ignorables and (for
  /// Hangul) conjoining jamo after it.
  private func cjkUnitEnd(from start: Int) -> Int {
    let (first, firstLength) = decode(at: start)
    let isHangul = (0x1100...0x11FF).contains(first) || (0xA960...0xA97F).contains(first)
      || (0xAC00...0xD7FF).contains(first)
    var index = start &+ firstLength
    while index < count, input[index] >= 0x80 {
      let (value, length) = decode(at: index)
      switch ScalarClass.of(value) {
      case .mark, .ignorable:
        break
      case .hangulContinuation where isHangul:
        break
      default:
        return index
      }
      index &+= length
    }
    return index
  }

  // MARK: - Emitting

  @inline(__always)
  private func emitToken<E: Error>(
    _ bytes: UnsafeMutablePointer<UInt8>, _ length: Int, _ range: Range<Int>, colocated: Bool, stemmable: Bool = false,
    _ emit: (TokenView) throws(E) -> Void
  ) throws(E) {
    try emit(
      TokenView(
        bytes: UnsafeBufferPointer(start: bytes, count: length), byteRange: range, colocated: colocated,
        stemmable: stemmable))
  }

  private func emitFolded<E: Error>(_ range: Range<Int>, colocated: Bool, _ emit: (TokenView) throws(E) -> Void) throws(E) {
    let folded = fold(range, into: partBuffer)
    if folded.count > 0 { try emitToken(partBuffer, folded.count, range, colocated: colocated, emit) }
  }

  /// Document side: emits `marker + stem` colocated when the stem differs from the word.
  private func emitStemIfDifferent<E: Error>(
    of word: UnsafeMutablePointer<UInt8>, _ length: Int, into buffer: UnsafeMutablePointer<UInt8>,
    _ range: Range<Int>, _ emit: (TokenView) throws(E) -> Void
  ) throws(E) {
    let stemLength = Self.stem(word, length, into: buffer)
    guard !Self.equal(word, length, buffer + 1, stemLength) else { return }
    try emitToken(buffer, stemLength &+ 1, range, colocated: true, emit)
  }

  /// Query side: emits `marker + stem`, and the bare stem colocated when it is its own stem,
  /// so the position matches every document word with this stem (see `TextAnalyzer`).
  private func emitStemAlternatives<E: Error>(
    of word: UnsafeMutablePointer<UInt8>, _ length: Int, _ range: Range<Int>,
    _ emit: (TokenView) throws(E) -> Void
  ) throws(E) {
    let stemLength = Self.stem(word, length, into: stemBuffer)
    try emitToken(stemBuffer, stemLength &+ 1, range, colocated: false, emit)
    // Stem the stem in another region to learn whether it is a fixed point.
    let again = Self.stem(stemBuffer + 1, stemLength, into: partStemBuffer)
    if Self.equal(stemBuffer + 1, stemLength, partStemBuffer + 1, again) {
      try emitToken(stemBuffer + 1, stemLength, range, colocated: true, emit)
    }
  }

  // MARK: - Helpers

  /// Writes `marker + stem(word)` into `buffer` and returns the stem's length.
  @inline(__always)
  private static func stem(_ word: UnsafeMutablePointer<UInt8>, _ length: Int, into buffer: UnsafeMutablePointer<UInt8>) -> Int {
    buffer[0] = TextAnalyzer.stemMarker
    (buffer + 1).update(from: word, count: length)
    return PorterStemmer.stem(buffer + 1, count: length)
  }

  @inline(__always)
  private static func equal(_ a: UnsafeMutablePointer<UInt8>, _ aCount: Int, _ b: UnsafeMutablePointer<UInt8>, _ bCount: Int) -> Bool {
    guard aCount == bCount else { return false }
    for offset in 0..<aCount where a[offset] != b[offset] { return false }
    return true
  }

  @inline(__always)
  private static func isASCIIWordByte(_ byte: UInt8) -> Bool {
    (byte | 0x20) &- 0x61 < 26 || byte &- 0x30 < 10
  }

  /// The fast path for plain ASCII words: lowercase byte by byte, cut at `maxTokenBytes`.
  /// Stemmable means all letters (no digits) and not truncated.
  @inline(__always)
  private static func lowercaseASCII(
    _ source: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt8>
  ) -> (count: Int, stemmable: Bool) {
    let length = min(count, TextAnalyzer.maxTokenBytes)
    var allLetters = true
    for offset in 0..<length {
      let byte = source[offset] | 0x20  // Digits already have 0x20 set; letters lowercase.
      output[offset] = byte
      allLetters = allLetters && byte &- 0x61 < 26
    }
    return (length, allLetters && length == count)
  }

  /// Folds the scalars in `range` into `output` (at most `maxTokenBytes`), dropping joining
  /// apostrophes and ignorables. Stemmable means the result is all `a`…`z` and complete.
  private func fold(_ range: Range<Int>, into output: UnsafeMutablePointer<UInt8>) -> (count: Int, stemmable: Bool) {
    var writer = FoldedTextWriter(base: output, limit: TextAnalyzer.maxTokenBytes)
    var index = range.lowerBound
    while index < range.upperBound {
      let (value, length) = decode(at: index)
      index &+= length
      // Inside a word, these only occur where they join (the scanner ended the word at
      // any other apostrophe), so they are dropped.
      if value == 0x27 || value == 0x2019 { continue }
      if ScalarClass.isIgnorable(value) { continue }
      guard let scalar = Unicode.Scalar(value) else { continue }
      TextFolding.append(scalar, lowercase: true, strip: true, to: &writer)
    }
    var allLetters = true
    for offset in 0..<writer.count where output[offset] &- 0x61 >= 26 {
      allLetters = false
      break
    }
    return (writer.count, allLetters && !writer.truncated)
  }

  /// Whether a word character (not CJK) starts at `index`.
  private func startsWord(at index: Int) -> Bool {
    guard index < count else { return false }
    let byte = input[index]
    if byte < 0x80 { return Self.isASCIIWordByte(byte) }
    return ScalarClass.of(decode(at: index).value).isWordCharacter
  }

  /// Whether a CJK character starts at `index`.
  private func startsCJK(at index: Int) -> Bool {
    guard index < count, input[index] >= 0x80 else { return false }
    switch ScalarClass.of(decode(at: index).value) {
    case .cjk, .hangulContinuation: return true
    default: return false
    }
  }

  /// Decodes the UTF-8 scalar at `index`. Invalid or truncated sequences (overlong forms,
  /// surrogates, values past U+10FFFF) decode as 0xFFFF_FFFF with length 1, so a bad byte is
  /// skipped as a separator and can never cause a read past `count`.
  @inline(__always)
  private func decode(at index: Int) -> (value: UInt32, length: Int) {
    let invalid: (UInt32, Int) = (0xFFFF_FFFF, 1)
    let b0 = input[index]
    if b0 < 0x80 { return (UInt32(b0), 1) }
    @inline(__always) func continuation(_ offset: Int) -> UInt32? {
      let position = index &+ offset
      guard position < count else { return nil }
      let byte = input[position]
      return byte & 0xC0 == 0x80 ? UInt32(byte & 0x3F) : nil
    }
    switch b0 {
    case 0xC2...0xDF:
      guard let c1 = continuation(1) else { return invalid }
      return (UInt32(b0 & 0x1F) << 6 | c1, 2)
    case 0xE0...0xEF:
      guard let c1 = continuation(1), let c2 = continuation(2) else { return invalid }
      let value = UInt32(b0 & 0x0F) << 12 | c1 << 6 | c2
      guard value >= 0x800, !(0xD800...0xDFFF).contains(value) else { return invalid }
      return (value, 3)
    case 0xF0...0xF4:
      guard let c1 = continuation(1), let c2 = continuation(2), let c3 = continuation(3) else { return invalid }
      let value = UInt32(b0 & 0x07) << 18 | c1 << 12 | c2 << 6 | c3
      guard (0x1_0000...0x10_FFFF).contains(value) else { return invalid }
      return (value, 4)
    default:
      return invalid
    }
  }
}
