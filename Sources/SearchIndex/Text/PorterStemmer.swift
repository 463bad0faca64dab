/// Martin Porter's 1980 suffix-stripping stemmer, transcribed step by step from his reference
/// C implementation (https://tartarus.org/martin/PorterStemmer/c.txt), including its two
/// documented departures from the paper (`-bli` → `-ble` instead of `-abli` → `-able`, and
/// `-logi` → `-log`) and leaving words of one or two letters alone.
///
/// That reference, not the paper, defines the published vocabulary/output pairs the tests use,
/// so it is followed literally: the helper names (`cons`, `m`, `ends`, `setto`, `r`) and the
/// `k`/`j` cursors are Porter's, which makes a side-by-side review possible.
///
/// Only words made entirely of `a`…`z` are stemmed. Anything else (uppercase, digits,
/// non-ASCII letters) is returned unchanged, because the algorithm's consonant/vowel rules are
/// only defined for lowercase English letters.
package enum PorterStemmer {
  /// Returns the Porter stem of `word`, or `word` itself when it is not all `a`…`z`.
  package static func stem(_ word: String) -> String {
    var word = word
    return word.withUTF8 { input -> String in
      guard isStemmable(input) else { return String(decoding: input, as: UTF8.self) }
      var bytes = Array(input)
      let count = bytes.withUnsafeMutableBufferPointer { stem($0.baseAddress!, count: $0.count) }
      return String(decoding: bytes[..<count], as: UTF8.self)
    }
  }

  /// Whether `bytes` is a non-empty run of `a`…`z`, the only input `stem(_:count:)` accepts.
  @inline(__always)
  static func isStemmable(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard !bytes.isEmpty else { return false }
    for byte in bytes where byte &- 0x61 >= 26 { return false }
    return true
  }

  /// Stems the `count` lowercase ASCII letters at `buffer` in place and returns the stem's
  /// length. A stem is never longer than its word, so no extra room is needed.
  static func stem(_ buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
    // Reference: `if (k <= 1) return k;` with k the index of the last letter.
    guard count > 2 else { return count }
    var z = Porter(b: buffer, k: count - 1)
    z.step1ab()
    if z.k > 0 {
      z.step1c()
      z.step2()
      z.step3()
      z.step4()
      z.step5()
    }
    return z.k + 1
  }
}

/// The reference implementation's `struct stemmer`: the word buffer `b`, the offset `k` of its
/// current last letter and the general offset `j` that `ends` sets and `m`/`setto` read.
private struct Porter {
  let b: UnsafeMutablePointer<UInt8>
  var k: Int
  var j = 0

  init(b: UnsafeMutablePointer<UInt8>, k: Int) {
    self.b = b
    self.k = k
  }

  // ASCII codes, spelled out once so the steps below read like the C source.
  private static let a: UInt8 = 0x61, c: UInt8 = 0x63, e: UInt8 = 0x65, g: UInt8 = 0x67
  private static let i: UInt8 = 0x69, l: UInt8 = 0x6C, n: UInt8 = 0x6E, o: UInt8 = 0x6F
  private static let s: UInt8 = 0x73, t: UInt8 = 0x74, u: UInt8 = 0x75, v: UInt8 = 0x76
  private static let w: UInt8 = 0x77, x: UInt8 = 0x78, y: UInt8 = 0x79, z: UInt8 = 0x7A

  /// True when `b[index]` is a consonant: not a vowel, and `y` only after a vowel or first.
  ///
  /// The reference recurses for `y` (`!cons(i - 1)`); this walks back over a run of `y`s
  /// instead, flipping the answer once per `y`, which is the same thing without the calls.
  @inline(__always)
  func cons(_ index: Int) -> Bool {
    var position = index
    var flipped = false
    while true {
      let letter = b[position]
      if Self.isVowel(letter) { return flipped }
      if letter != Self.y || position == 0 { return !flipped }
      flipped.toggle()
      position -= 1
    }
  }

  /// a, e, i, o, u, as one bit test: bit `letter - "a"` of a mask with those five bits set.
  @inline(__always)
  static func isVowel(_ letter: UInt8) -> Bool {
    (0x0010_4111 as UInt32) >> UInt32((letter &- Self.a) & 31) & 1 == 1
  }

  /// The measure of `b[0...j]`: the number of vowel-consonant sequences, `m` in `[C](VC)^m[V]`.
  func m() -> Int {
    var count = 0
    var index = 0
    while true {
      if index > j { return count }
      if !cons(index) { break }
      index += 1
    }
    index += 1
    while true {
      while true {
        if index > j { return count }
        if cons(index) { break }
        index += 1
      }
      index += 1
      count += 1
      while true {
        if index > j { return count }
        if !cons(index) { break }
        index += 1
      }
      index += 1
    }
  }

  /// True when `b[0...j]` contains a vowel.
  func vowelInStem() -> Bool {
    var index = 0
    while index <= j {
      if !cons(index) { return true }
      index += 1
    }
    return false
  }

  /// True when `b[index - 1]` and `b[index]` are the same consonant.
  func doublec(_ index: Int) -> Bool {
    guard index >= 1, b[index] == b[index - 1] else { return false }
    return cons(index)
  }

  /// True when `b[index - 2...index]` is consonant-vowel-consonant and the last consonant is
  /// not `w`, `x` or `y` (so `-e` is restored in `hope`, not in `snow`, `box`, `tray`).
  func cvc(_ index: Int) -> Bool {
    guard index >= 2, cons(index), !cons(index - 1), cons(index - 2) else { return false }
    let last = b[index]
    return last != Self.w && last != Self.x && last != Self.y
  }

  /// True when `b[0...k]` ends with `suffix`; then `j` is set to the offset before it.
  /// Inlined so each call site compares against constant bytes.
  @inline(__always)
  mutating func ends(_ suffix: StaticString) -> Bool {
    let length = suffix.utf8CodeUnitCount
    let p = suffix.utf8Start
    if p[length - 1] != b[k] { return false }  // The reference's "tiny speed-up".
    if length > k + 1 { return false }
    let start = k - length + 1
    for offset in 0..<length where b[start + offset] != p[offset] { return false }
    j = k - length
    return true
  }

  /// Replaces `b[j+1...k]` with `replacement`, moving `k`.
  @inline(__always)
  mutating func setto(_ replacement: StaticString) {
    let length = replacement.utf8CodeUnitCount
    let p = replacement.utf8Start
    for offset in 0..<length { b[j + 1 + offset] = p[offset] }
    k = j + length
  }

  /// `setto` when the stem before the suffix has a measure above zero.
  mutating func r(_ replacement: StaticString) {
    if m() > 0 { setto(replacement) }
  }

  /// Removes plurals and `-ed`/`-ing`: caresses → caress, ponies → poni, hopping → hop.
  mutating func step1ab() {
    if b[k] == Self.s {
      if ends("sses") {
        k -= 2
      } else if ends("ies") {
        setto("i")
      } else if b[k - 1] != Self.s {
        k -= 1
      }
    }
    if ends("eed") {
      if m() > 0 { k -= 1 }
    } else if (ends("ed") || ends("ing")) && vowelInStem() {
      k = j
      if ends("at") {
        setto("ate")
      } else if ends("bl") {
        setto("ble")
      } else if ends("iz") {
        setto("ize")
      } else if doublec(k) {
        k -= 1
        let last = b[k]
        if last == Self.l || last == Self.s || last == Self.z { k += 1 }
      } else if m() == 1 && cvc(k) {
        setto("e")
      }
    }
  }

  /// Turns a final `y` into `i` when the stem has another vowel: happy → happi.
  mutating func step1c() {
    if ends("y") && vowelInStem() { b[k] = Self.i }
  }

  /// Maps double suffixes to single ones: relational → relate, generalization → generalize.
  mutating func step2() {
    switch b[k - 1] {
    case Self.a:
      if ends("ational") { r("ate"); break }
      if ends("tional") { r("tion"); break }
    case Self.c:
      if ends("enci") { r("ence"); break }
      if ends("anci") { r("ance"); break }
    case Self.e:
      if ends("izer") { r("ize"); break }
    case Self.l:
      if ends("bli") { r("ble"); break }  // Departure from the paper, as in the reference.
      if ends("alli") { r("al"); break }
      if ends("entli") { r("ent"); break }
      if ends("eli") { r("e"); break }
      if ends("ousli") { r("ous"); break }
    case Self.o:
      if ends("ization") { r("ize"); break }
      if ends("ation") { r("ate"); break }
      if ends("ator") { r("ate"); break }
    case Self.s:
      if ends("alism") { r("al"); break }
      if ends("iveness") { r("ive"); break }
      if ends("fulness") { r("ful"); break }
      if ends("ousness") { r("ous"); break }
    case Self.t:
      if ends("aliti") { r("al"); break }
      if ends("iviti") { r("ive"); break }
      if ends("biliti") { r("ble"); break }
    case Self.g:
      if ends("logi") { r("log"); break }  // Departure from the paper, as in the reference.
    default:
      break
    }
  }

  /// Handles `-ic-`, `-full`, `-ness` and similar: electrical → electric, goodness → good.
  mutating func step3() {
    switch b[k] {
    case Self.e:
      if ends("icate") { r("ic"); break }
      if ends("ative") { r(""); break }
      if ends("alize") { r("al"); break }
    case Self.i:
      if ends("iciti") { r("ic"); break }
    case Self.l:
      if ends("ical") { r("ic"); break }
      if ends("ful") { r(""); break }
    case Self.s:
      if ends("ness") { r(""); break }
    default:
      break
    }
  }

  /// Removes `-ant`, `-ence` and the like when the measure before them is above one.
  mutating func step4() {
    let found: Bool
    switch b[k - 1] {
    case Self.a: found = ends("al")
    case Self.c: found = ends("ance") || ends("ence")
    case Self.e: found = ends("er")
    case Self.i: found = ends("ic")
    case Self.l: found = ends("able") || ends("ible")
    case Self.n: found = ends("ant") || ends("ement") || ends("ment") || ends("ent")
    case Self.o:
      // `-ion` only after `s` or `t`; then `-ou` (which takes care of `-ous`). The
      // reference reads `b[j]` even when `j` is -1 (the word "ion"); that can never
      // change the result, so the guard only avoids the out-of-bounds read.
      found = (ends("ion") && j >= 0 && (b[j] == Self.s || b[j] == Self.t)) || ends("ou")
    case Self.s: found = ends("ism")
    case Self.t: found = ends("ate") || ends("iti")
    case Self.u: found = ends("ous")
    case Self.v: found = ends("ive")
    case Self.z: found = ends("ize")
    default: found = false
    }
    if found && m() > 1 { k = j }
  }

  /// Removes a final `-e` and turns `-ll` into `-l` when the measure allows it.
  mutating func step5() {
    j = k
    if b[k] == Self.e {
      let measure = m()
      if measure > 1 || (measure == 1 && !cvc(k - 1)) { k -= 1 }
    }
    if b[k] == Self.l && doublec(k) && m() > 1 { k -= 1 }
  }
}
