import Foundation
import SearchIndex

/// Generates realistic items for `bench`: notes, emails and trails shaped like the bundled
/// samples (the same domains, content types, attributes and value distributions, text of
/// similar length), with words drawn from a Zipf-distributed vocabulary whose long tail grows
/// the index the way real text does.
///
/// Item `n` depends only on the seed and `n`, so any item can be regenerated on its own and
/// two runs with the same seed index the same data.
package struct ItemGenerator: Sendable {
  /// The clock of the generated data (the samples' fixed "now").
  package static let referenceDate = Date(timeIntervalSince1970: 1_795_953_600)  // 2026-11-29T12:00:00Z

  package let seed: UInt64

  package init(seed: UInt64 = 1) { self.seed = seed }

  /// The generator for item `n`.
  func random(_ n: Int) -> SplitMix64 {
    var mixer = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(n))
    return SplitMix64(seed: mixer.next())
  }

  /// Item `n` (0-based).
  package func item(_ n: Int) -> SearchableItem {
    var random = random(n)
    let kind = random.pick([(Kind.note, 0.35), (.email, 0.40), (.trail, 0.25)])
    switch kind {
    case .note: return note(n, &random)
    case .email: return email(n, &random)
    case .trail: return trail(n, &random)
    }
  }

  enum Kind { case note, email, trail }

  // MARK: Kinds

  private func note(_ n: Int, _ r: inout SplitMix64) -> SearchableItem {
    var attributes: [(String, AttributeValue)] = [
      ("title", .string(Self.title(&r, words: 2...6))),
      ("contentDescription", .string(Self.sentence(&r, words: 6...14))),
      ("textContent", .string(Self.text(&r, median: 60))),
      ("keywords", .list(Self.distinct(&r, Self.tags, 1...3).map(AttributeValue.string))),
      ("authorNames", .list([.string(r.chance(0.85) ? "Alex Morgan" : r.pick(Self.people))])),
    ]
    attributes += Self.dates(&r)
    if r.chance(0.72) { attributes.append(("projects", .list(Self.distinct(&r, Self.projects, 1...2).map(AttributeValue.string)))) }
    if r.chance(0.15) { attributes.append(("rating", .number(Double(r.int(1...5))))) }
    if r.chance(0.12) { attributes.append(("dueDate", .date(Self.referenceDate.addingTimeInterval(Double(r.int(-90...90)) * 86_400)))) }
    if r.chance(0.09) { attributes.append(("priority", .number(Double(r.pick([(1, 0.6), (2, 0.3), (3, 0.1)]))))) }
    if r.chance(0.05) { attributes.append(("pinned", .bool(true))) }
    return SearchableItem(
      uniqueIdentifier: "note-\(n)", domainIdentifier: r.pick([("notes", 19.0), ("notes.personal", 31), ("notes.work", 27)]),
      contentType: "note", protectionClass: r.chance(0.04) ? "private" : nil, attributeSet: AttributeSet(attributes))
  }

  private func email(_ n: Int, _ r: inout SplitMix64) -> SearchableItem {
    let subject = Self.title(&r, words: 3...8)
    let author = r.pick(Self.people)
    let recipients = Self.distinct(&r, Self.people, 1...3)
    var attributes: [(String, AttributeValue)] = [
      ("title", .string(subject)),
      ("subject", .string(subject)),
      ("contentDescription", .string(Self.sentence(&r, words: 8...16))),
      ("textContent", .string(Self.text(&r, median: 80))),
      ("keywords", .list(Self.distinct(&r, Self.tags, 1...3).map(AttributeValue.string))),
      ("authorNames", .list([.string(author)])),
      ("authorEmailAddresses", .list([.string(Self.email(author))])),
      ("recipientNames", .list(recipients.map(AttributeValue.string))),
      ("recipientEmailAddresses", .list(recipients.map { .string(Self.email($0)) })),
    ]
    attributes += Self.dates(&r)
    if r.chance(0.6) { attributes.append(("projects", .list(Self.distinct(&r, Self.projects, 1...2).map(AttributeValue.string)))) }
    return SearchableItem(
      uniqueIdentifier: "mail-\(n)", domainIdentifier: r.pick([("mail.archive", 41.0), ("mail.inbox", 21), ("mail.sent", 13)]),
      contentType: "email", protectionClass: r.chance(0.04) ? "private" : nil, attributeSet: AttributeSet(attributes))
  }

  private func trail(_ n: Int, _ r: inout SplitMix64) -> SearchableItem {
    let region = r.pick(Self.regions.map { ($0, $0.weight) })
    let distance = (r.logNormal(median: 8, sigma: 0.6, in: 1.2...36) * 10).rounded() / 10
    var attributes: [(String, AttributeValue)] = [
      ("title", .string(Self.capitalized(Self.word(&r, from: 40)) + " " + r.pick(Self.features))),
      ("contentDescription", .string(Self.text(&r, median: 28))),
      ("keywords", .list(Self.distinct(&r, Self.trailTags, 2...4).map(AttributeValue.string))),
      ("namedLocation", .string(r.pick(region.parks))),
      ("stateOrProvince", .string(region.name)),
      ("country", .string(region.country)),
      ("latitude", .number(((region.latitude + r.unit() * 2 - 1) * 10_000).rounded() / 10_000)),
      ("longitude", .number(((region.longitude + r.unit() * 2 - 1) * 10_000).rounded() / 10_000)),
      ("rating", .number(Double(r.pick([(50, 1.0), (49, 4), (48, 6), (47, 6), (46, 5), (45, 4), (44, 3), (43, 2), (42, 1), (40, 1)])) / 10)),
      ("duration", .number(Double(Int(distance * 1_200) / 300 * 300 + 1_800))),
      ("distance", .number(distance)),
      ("elevationGain", .number(Double(r.int(5...200) * 10))),
      ("difficulty", .string(r.pick([("easy", 24.0), ("moderate", 32), ("hard", 25)]))),
    ]
    attributes += Self.dates(&r)
    if r.chance(0.5) {
      attributes.append(("completionDate", .date(Self.referenceDate.addingTimeInterval(-Double(r.int(1...1_000)) * 86_400))))
    }
    return SearchableItem(uniqueIdentifier: "trail-\(n)", domainIdentifier: "trails", contentType: "trail", attributeSet: AttributeSet(attributes))
  }

  // MARK: Values

  /// Creation within the last three years; modification after creation, within a year of it.
  private static func dates(_ r: inout SplitMix64) -> [(String, AttributeValue)] {
    let age = Double(r.int(0...(3 * 365 * 24))) * 3_600
    let created = referenceDate.addingTimeInterval(-age)
    let modified = created.addingTimeInterval(r.unit() * min(age, 365 * 86_400))
    return [("contentCreationDate", .date(created)), ("contentModificationDate", .date(modified))]
  }

  private static func email(_ person: String) -> String {
    person.lowercased().replacingOccurrences(of: " ", with: ".") + "@example.com"
  }

  private static func distinct(_ r: inout SplitMix64, _ list: [String], _ count: ClosedRange<Int>) -> [String] {
    var chosen: [String] = []
    for _ in 0..<r.int(count) {
      let value = r.pick(list)
      if !chosen.contains(value) { chosen.append(value) }
    }
    return chosen
  }

  // MARK: Text

  /// Vocabulary size: common words first, then a long tail of invented words.
  package static let vocabularySize = 60_000

  /// Every word, most frequent first.
  package static let vocabulary: [String] = {
    var seen = Set<String>()
    var words = (functionWords + contentWords).filter { seen.insert($0).inserted }
    let syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "de", "pa", "gu", "be", "zo", "fi", "ha", "ju",
                     "qua", "tre", "sna", "plo", "dri", "stu", "kel", "mor", "ven", "tal", "bri", "sol", "nar", "gis"]
    var n = 0
    while words.count < vocabularySize {
      // A word per number: its base-30 digits as syllables (at least two), so each is unique.
      var value = n + syllables.count
      var word = ""
      while value > 0 {
        word += syllables[value % syllables.count]
        value /= syllables.count
      }
      if seen.insert(word).inserted { words.append(word) }
      n += 1
    }
    return words
  }()

  /// A word with Zipf frequencies (probability ~ 1/rank) among ranks from `minimumRank` on.
  package static func word(_ r: inout SplitMix64, from minimumRank: Int = 0) -> String {
    let span = Double(vocabularySize - minimumRank)
    let rank = minimumRank + min(Int(pow(span, r.unit())) - 1, vocabularySize - minimumRank - 1)
    return vocabulary[rank]
  }

  static func capitalized(_ word: String) -> String { word.prefix(1).uppercased() + word.dropFirst() }

  /// Title-case words, mostly content words.
  static func title(_ r: inout SplitMix64, words: ClosedRange<Int>) -> String {
    (0..<r.int(words)).map { _ in capitalized(word(&r, from: 40)) }.joined(separator: " ")
  }

  /// One sentence.
  static func sentence(_ r: inout SplitMix64, words: ClosedRange<Int>) -> String {
    var text = ""
    for position in 0..<r.int(words) {
      let next = word(&r)
      text += position == 0 ? capitalized(next) : " " + next
    }
    return text + "."
  }

  /// Sentences totalling about `median` words (log-normal lengths).
  static func text(_ r: inout SplitMix64, median: Double) -> String {
    var remaining = Int(r.logNormal(median: median, sigma: 0.55, in: 8...600))
    var text = ""
    text.reserveCapacity(remaining * 7)
    while remaining > 0 {
      let length = min(remaining, r.int(5...18))
      if !text.isEmpty { text += r.chance(0.2) ? "\n" : " " }
      text += sentence(&r, words: length...length)
      remaining -= length
    }
    return text
  }

  // MARK: Lists (from the samples)

  static let functionWords = [
    "the", "to", "and", "a", "of", "in", "for", "on", "is", "with", "at", "it", "we", "this", "that", "be", "from", "by",
    "i", "you", "are", "as", "our", "will", "have", "not", "or", "an", "your", "can", "all", "if", "so", "but", "about",
    "up", "out", "what", "when", "next",
  ]

  static let contentWords = [
    "week", "team", "launch", "trail", "plan", "budget", "review", "notes", "meeting", "time", "day", "draft", "list",
    "water", "morning", "project", "update", "design", "kitchen", "quote", "call", "date", "follow", "check", "home",
    "lake", "summit", "loop", "views", "forest", "dinner", "recipe", "trip", "flight", "hotel", "book", "club",
    "schedule", "change", "order", "invoice", "total", "contractor", "cabinet", "counter", "tile", "window", "garage",
    "repair", "estimate", "deposit", "payment", "account", "bank", "tax", "receipt", "forecast", "quarter", "revenue",
    "marketing", "campaign", "release", "version", "feature", "bug", "fix", "test", "build", "deploy", "server",
    "database", "index", "search", "query", "sync", "backup", "password", "security", "access", "policy", "audit",
    "evidence", "control", "hiring", "candidate", "interview", "offer", "salary", "band", "level", "manager",
    "engineer", "designer", "product", "roadmap", "milestone", "deadline", "retro", "standup", "sprint", "ticket",
    "customer", "support", "feedback", "survey", "metrics", "numbers", "growth", "churn", "pricing", "contract",
    "legal", "vendor", "proposal", "slides", "deck", "agenda", "minutes", "decision", "options", "tradeoffs", "risk",
    "hike", "waterfall", "canyon", "ridge", "peak", "pass", "meadow", "glacier", "snow", "rain", "wind", "sun",
    "weather", "forecasted", "gear", "boots", "jacket", "tent", "stove", "map", "permit", "parking", "trailhead",
    "carpool", "miles", "elevation", "gain", "steep", "switchbacks", "camp", "campsite", "river", "creek", "bridge",
    "wildflowers", "bear", "elk", "deer", "birds", "photos", "sunset", "sunrise", "picnic", "lunch", "breakfast",
    "coffee", "tea", "bread", "sourdough", "starter", "flour", "butter", "sugar", "eggs", "cheese", "tomatoes",
    "garlic", "onion", "pepper", "salt", "oil", "oven", "bake", "roast", "soup", "salad", "pasta", "rice", "beans",
    "cake", "lemon", "apple", "berries", "chocolate", "granola", "muesli", "yogurt", "holiday", "thanksgiving",
    "christmas", "birthday", "party", "gift", "family", "friends", "parents", "kids", "dog", "cat", "vet", "doctor",
    "dentist", "appointment", "insurance", "claim", "car", "oil", "tires", "train", "ticket", "station", "airport",
    "passport", "visa", "luggage", "packing", "zurich", "berlin", "paris", "tokyo", "seattle", "portland", "denver",
    "boston", "austin", "chicago", "office", "desk", "laptop", "monitor", "keyboard", "phone", "charger", "cable",
    "router", "wifi", "printer", "paper", "pen", "notebook", "reading", "novel", "author", "chapter", "library",
    "podcast", "music", "concert", "movie", "theater", "museum", "gallery", "garden", "plants", "seeds", "soil",
    "compost", "fence", "roof", "gutter", "paint", "floor", "door", "lock", "key", "light", "lamp", "heater",
    "furnace", "filter", "plumber", "electrician", "permit", "inspection", "warranty", "delivery", "package",
    "return", "refund", "discount", "price", "cost", "estimate", "savings", "retirement", "investment", "stocks",
    "expenses", "reimbursement", "travel", "conference", "talk", "workshop", "training", "course", "lesson",
    "homework", "school", "teacher", "swift", "linux", "sqlite", "compiler", "parser", "stage", "pipeline", "model",
    "answer", "question", "idea", "ideas", "goal", "goals", "habit", "journal", "reflection", "gratitude",
    "orion", "halyard", "pinecrest", "becker", "hearth", "cascade", "summit", "aurora", "northwind", "bluebird",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march",
    "april", "may", "june", "july", "august", "september", "october", "november", "december", "today", "tomorrow",
    "yesterday", "weekend", "month", "year", "early", "late", "final", "first", "second", "third", "new", "old",
    "big", "small", "quick", "long", "short", "good", "great", "better", "best", "important", "urgent", "done",
    "open", "closed", "pending", "approved", "rejected", "shipped", "signed", "sent", "received", "booked",
  ]

  static let tags = [
    "launch", "budget", "kitchen", "recipe", "travel", "hiking", "family", "holiday", "books", "interview", "hiring",
    "security", "newsletter", "design", "invitation", "contractor", "review", "permits", "dentist", "sync", "shopping",
    "quote", "quarterly", "planning", "passwords", "home", "health", "draft", "code", "appointment", "thanks",
    "schedule", "salary", "renovation", "pilot", "medical", "marketing", "fiction", "dinner", "dessert", "decision",
    "debrief", "booking", "bank", "taxes", "team", "ticket", "trip", "vote", "webinar", "welcome", "winter",
  ]

  static let trailTags = [
    "views", "lake", "summit", "loop", "forest", "waterfall", "desert", "canyon", "wildflowers", "historic", "meadow",
    "dog-friendly", "snow", "volcano", "glacier", "hot-springs", "coastal", "river", "ridge", "wildlife",
  ]

  static let features = ["Trail", "Loop", "Falls", "Lake", "Peak", "Canyon", "Ridge", "Pass", "Meadows", "Overlook"]

  static let people = [
    "Alex Morgan", "Sam Ortiz", "Lena Novak", "Tom Becker", "Mei Lin", "Rahul Mehta", "Jonas Weber", "Priya Shah",
    "Chris Park", "Dana Cole", "Elena Rossi", "Marcus Lee", "Nora Hill", "Omar Haddad", "Julia Brandt", "Ken Ito",
    "Sofia Alvarez", "Ben Carter", "Aisha Khan", "Leo Schmidt", "Grace Kim", "Ivan Petrov", "Hannah Fischer",
    "Mateo Silva", "Zoe Martin", "Yuki Tanaka", "Liam Walsh", "Emma Dubois", "Noah Meyer", "Ava Wright",
  ]

  static let projects = [
    "Trail club", "Orion launch", "Kitchen remodel", "Hiring", "Thanksgiving", "Zürich trip", "Orion 1.2", "Orion 1.1",
    "Budget 2026", "Book club", "Budget 2027", "SOC 2", "Garden", "Taxes 2026", "Wedding", "Move", "Conference talk",
    "Car", "Fitness", "Reading list",
  ]

  struct Region: Sendable {
    var name: String
    var country: String
    var weight: Double
    var latitude: Double
    var longitude: Double
    var parks: [String]
  }

  static let regions: [Region] = [
    Region(name: "California", country: "United States", weight: 12, latitude: 37.5, longitude: -119.5,
           parks: ["Yosemite National Park", "Lassen Volcanic National Park", "Point Lobos", "Big Sur", "Desolation Wilderness"]),
    Region(name: "Washington", country: "United States", weight: 8, latitude: 47.5, longitude: -121.5,
           parks: ["Mount Rainier National Park", "Olympic National Park", "North Cascades National Park"]),
    Region(name: "Utah", country: "United States", weight: 8, latitude: 37.5, longitude: -112.5,
           parks: ["Zion National Park", "Arches National Park", "Bryce Canyon National Park"]),
    Region(name: "Oregon", country: "United States", weight: 8, latitude: 44.5, longitude: -122.0,
           parks: ["Columbia River Gorge", "Crater Lake National Park", "Silver Falls State Park"]),
    Region(name: "Colorado", country: "United States", weight: 8, latitude: 39.5, longitude: -105.7,
           parks: ["Rocky Mountain National Park", "Maroon Bells", "Indian Peaks Wilderness"]),
    Region(name: "Arizona", country: "United States", weight: 8, latitude: 34.5, longitude: -111.8,
           parks: ["Grand Canyon National Park", "Sedona", "Saguaro National Park"]),
    Region(name: "New Mexico", country: "United States", weight: 6, latitude: 35.5, longitude: -106.0,
           parks: ["Bandelier National Monument", "White Sands National Park"]),
    Region(name: "Montana", country: "United States", weight: 6, latitude: 48.6, longitude: -113.8,
           parks: ["Glacier National Park", "Bob Marshall Wilderness"]),
    Region(name: "Alberta", country: "Canada", weight: 5, latitude: 51.2, longitude: -115.8,
           parks: ["Banff National Park", "Jasper National Park"]),
    Region(name: "Québec", country: "Canada", weight: 4, latitude: 47.0, longitude: -71.0,
           parks: ["Parc national de la Jacques-Cartier", "Mont-Tremblant"]),
    Region(name: "British Columbia", country: "Canada", weight: 4, latitude: 49.7, longitude: -123.1,
           parks: ["Garibaldi Provincial Park", "Stawamus Chief"]),
    Region(name: "Bern", country: "Switzerland", weight: 3, latitude: 46.6, longitude: 7.9,
           parks: ["Jungfrau Region", "Lauterbrunnen Valley"]),
    Region(name: "Zürich", country: "Switzerland", weight: 1, latitude: 47.35, longitude: 8.5, parks: ["Uetliberg"]),
  ]
}
