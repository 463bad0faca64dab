import Evaluation
import SearchIndex
import Foundation

/// `bench --generate`: the generated collection of issue 12's measurements: documents with 8-word titles and
/// 40-120-word bodies drawn from a Zipf vocabulary (s = 1) whose first ranks are the
/// Cranfield words in Cranfield frequency order, and the 225 Cranfield questions as the
/// content words they map to, minus the 100 most frequent vocabulary terms.
///
/// A question word missing from the vocabulary maps deterministically (FNV-1a) to a rank
/// in [100, vocabulary size), so every query keeps its length.
struct ZipfCorpus {
  static let vocabularySize = 50_000
  static let droppedTopTerms = 100

  let words: [String]
  private let rankOf: [String: Int]
  let questions: [[String]]

  /// Lower-cases and splits on anything that is not a letter or digit.
  static func tokenize(_ text: String) -> [String] {
    text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
  }

  init(cranfield directory: String) throws {
    var frequencies: [String: Int] = [:]
    for record in try Self.records(directory + "/corpus.jsonl") {
      for token in Self.tokenize((record["title"] ?? "") + " " + (record["text"] ?? "")) { frequencies[token, default: 0] += 1 }
    }
    var words = frequencies.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
      .prefix(Self.vocabularySize).map(\.key)
    var n = 0
    while words.count < Self.vocabularySize {
      words.append("syn\(n)")
      n += 1
    }
    self.words = words
    var rankOf: [String: Int] = [:]
    for (rank, word) in words.enumerated() { rankOf[word] = rank }
    self.rankOf = rankOf
    questions = try Self.records(directory + "/queries.jsonl").map { Self.tokenize($0["text"] ?? "") }
  }

  private static func records(_ path: String) throws -> [[String: String]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
      try JSONDecoder().decode([String: String].self, from: Data($0.utf8))
    }
  }

  /// The vocabulary rank standing for a question word.
  func rank(of word: String) -> Int {
    if let rank = rankOf[word] { return rank }
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in word.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01B3
    }
    return Self.droppedTopTerms + Int(hash % UInt64(words.count - Self.droppedTopTerms))
  }

  /// Writes `count` documents as corpus lines and the questions as query lines.
  func write(documents count: Int, seed: UInt64, corpus: String, queries: String) throws {
    let zipf = ZipfSampler(count: words.count, exponent: 1)
    var random = SplitMix64(seed: seed)
    guard FileManager.default.createFile(atPath: corpus, contents: nil), let output = FileHandle(forWritingAtPath: corpus) else {
      throw CommandFailure(.ioError, "\(corpus): cannot write")
    }
    defer { try? output.close() }
    var buffer = ""
    for id in 1...count {
      let title = (0..<8).map { _ in words[zipf.sample(using: &random)] }.joined(separator: " ")
      let bodyLength = 40 + Int(random.next() % 81)
      let body = (0..<bodyLength).map { _ in words[zipf.sample(using: &random)] }.joined(separator: " ")
      // Words are letters and digits only: no JSON escaping needed.
      buffer += "{\"id\":\"\(id)\",\"title\":\"\(title)\",\"text\":\"\(body)\"}\n"
      if buffer.utf8.count > 1 << 20 {
        try output.write(contentsOf: Data(buffer.utf8))
        buffer = ""
      }
    }
    try output.write(contentsOf: Data(buffer.utf8))
    var lines = ""
    for (number, question) in questions.enumerated() {
      var seen = Set<Int>()
      let mapped = question.map(rank(of:)).filter { $0 >= Self.droppedTopTerms && seen.insert($0).inserted }.map { words[$0] }
      lines += "{\"id\":\"\(number + 1)\",\"text\":\"\(mapped.joined(separator: " "))\"}\n"
    }
    try lines.write(toFile: queries, atomically: true, encoding: .utf8)
  }
}

/// Samples ranks 0..<n with P(r) ∝ 1 / (r + 1)^s by binary search over the CDF.
struct ZipfSampler {
  private let cumulative: [Double]

  init(count: Int, exponent: Double) {
    var running = 0.0
    var cumulative: [Double] = []
    cumulative.reserveCapacity(count)
    for rank in 0..<count {
      running += 1 / pow(Double(rank + 1), exponent)
      cumulative.append(running)
    }
    self.cumulative = cumulative.map { $0 / running }
  }

  func sample(using random: inout SplitMix64) -> Int {
    let u = Double(random.next() >> 11) * 0x1p-53
    var low = 0
    var high = cumulative.count - 1
    while low < high {
      let middle = (low + high) >> 1
      if cumulative[middle] < u { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
