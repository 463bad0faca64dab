import Foundation
import Testing
@testable import SearchIndex

@Suite struct ItemDecoderTests {
  func decode(_ text: String, catalog: AttributeCatalog = AttributeCatalog()) throws -> SearchableItem {
    var decoder = ItemDecoder(catalog: catalog)
    return try decoder.decode(try json(text))
  }

  /// The error message decoding `text` produces, nil when it decodes.
  func failure(_ text: String, catalog: AttributeCatalog = AttributeCatalog()) throws -> String? {
    var decoder = ItemDecoder(catalog: catalog)
    do {
      _ = try decoder.decode(try json(text))
      return nil
    } catch {
      return error.message
    }
  }

  @Test func decodesTheCanonicalExampleOfTheDesign() throws {
    let item = try decode("""
      {"id":"trail-17","domain":"trails","attributes":{"title":"Mist Trail","keywords":["waterfall"],
       "stateOrProvince":"California","rating":4.5,"contentCreationDate":"2026-05-01T08:00:00Z","distance":5.4}}
      """)
    #expect(item.uniqueIdentifier == "trail-17")
    #expect(item.domainIdentifier == "trails")
    #expect(item.attributeSet.names == ["title", "keywords", "stateOrProvince", "rating", "contentCreationDate", "distance"])
    #expect(item.attributeSet["title"] == .string("Mist Trail"))
    #expect(item.attributeSet["keywords"] == .list([.string("waterfall")]))
    #expect(item.attributeSet["rating"] == .number(4.5))
    #expect(item.attributeSet["contentCreationDate"] == .date(utc(2026, 5, 1, 8)))
    #expect(item.attributeSet["distance"] == .number(5.4))
  }

  @Test(arguments: [
    ("title", #""Mist Trail""#, AttributeValue.string("Mist Trail")),
    ("rating", "4.5", .number(4.5)),
    ("pageCount", "12", .number(12)),
    ("dueDate", #""2026-05-01T08:00:00Z""#, .date(utc(2026, 5, 1, 8))),
    ("allDay", "true", .bool(true)),
    ("likelyJunk", "false", .bool(false)),
    ("contentURL", #""https://example.com/a?b=c""#, .url("https://example.com/a?b=c")),
    ("keywords", #"["a","b"]"#, .list([.string("a"), .string("b")])),
    ("importantDates", #"["2026-05-01","2026-06-01T12:00:00Z"]"#, .list([.date(utc(2026, 5, 1)), .date(utc(2026, 6, 1, 12))])),
  ])
  func decodesEveryStandardAttributeType(_ name: String, _ raw: String, _ expected: AttributeValue) throws {
    let item = try decode(#"{"id":"x","attributes":{"\#(name)":\#(raw)}}"#)
    #expect(item.attributeSet[name] == expected)
  }

  @Test(arguments: [
    ("keywords", #""coffee""#, AttributeValue.list([.string("coffee")])),
    ("importantDates", #""2026-05-01""#, .list([.date(utc(2026, 5, 1))])),
    ("authorNames", #""Ada""#, .list([.string("Ada")])),
  ])
  func coercesASingleValueIntoAOneElementList(_ name: String, _ raw: String, _ expected: AttributeValue) throws {
    let item = try decode(#"{"id":"x","attributes":{"\#(name)":\#(raw)}}"#)
    #expect(item.attributeSet[name] == expected)
  }

  @Test func skipsNullsInsideLists() throws {
    let item = try decode(#"{"id":"x","attributes":{"keywords":["a",null,"b"]}}"#)
    #expect(item.attributeSet["keywords"] == .list([.string("a"), .string("b")]))
  }

  @Test func decodesDeclaredCustomListTypes() throws {
    let catalog = AttributeCatalog(customTypes: [
      "links": AttributeType(.url, isList: true), "scores": .numberList, "flags": AttributeType(.bool, isList: true),
    ])
    let item = try decode(
      #"{"id":"x","attributes":{"links":["https://a.example","https://b.example"],"scores":7,"flags":[true,false]}}"#,
      catalog: catalog)
    #expect(item.attributeSet["links"] == .list([.url("https://a.example"), .url("https://b.example")]))
    #expect(item.attributeSet["scores"] == .list([.number(7)]))
    #expect(item.attributeSet["flags"] == .list([.bool(true), .bool(false)]))
  }

  @Test(arguments: [
    ("42", AttributeType.number),
    ("true", .bool),
    (#""plain text""#, .string),
    (#""2026-05-01""#, .date),
    (#""2026-05-01T08:00:00+02:00""#, .date),
    (#""2026-02-30""#, .string),
    (#""1234567890""#, .string),
    (#"[1,2]"#, .numberList),
    (#"[null,"2026-05-01"]"#, .dateList),
    (#"["a"]"#, .stringList),
    (#"[true]"#, AttributeType(.bool, isList: true)),
    (#"[]"#, .stringList),
  ])
  func infersTheTypeOfANewCustomAttributeFromItsFirstValue(_ raw: String, _ expected: AttributeType) throws {
    var decoder = ItemDecoder(catalog: AttributeCatalog())
    _ = try decoder.decode(try json(#"{"id":"x","attributes":{"custom_value":\#(raw)}}"#))
    #expect(decoder.catalog.type(of: "custom_value") == expected)
  }

  @Test func inferredTypesApplyToLaterItemsOfTheSameInvocation() throws {
    var decoder = ItemDecoder(catalog: AttributeCatalog())
    _ = try decoder.decode(try json(#"{"id":"a","attributes":{"distance":5.4}}"#))
    #expect(throws: ItemDecodingError("attribute 'distance' is a number, got a string")) {
      _ = try decoder.decode(try json(#"{"id":"b","attributes":{"distance":"far"}}"#))
    }
  }

  @Test(arguments: [
    (#"[[1]]"#, "attribute 'nested' is a list of lists; only flat lists are allowed"),
    (#"[{"a":1}]"#, "attribute 'nested' holds objects; only strings, numbers, dates and booleans are allowed"),
    (#"{"a":1}"#, "attribute 'nested' is an object; only strings, numbers, dates, booleans and lists are allowed"),
  ])
  func rejectsCustomValuesThatAreNotScalarsOrFlatLists(_ raw: String, _ message: String) throws {
    #expect(try failure(#"{"id":"x","attributes":{"nested":\#(raw)}}"#) == message)
  }

  @Test(arguments: [
    ("kMDItemTitle", "title", #""T""#, AttributeValue.string("T")),
    ("kMDItemAuthors", "authorNames", #"["Ada"]"#, .list([.string("Ada")])),
    ("kMDItemStarRating", "rating", "3", .number(3)),
    ("kMDItemKeywords", "keywords", #""k""#, .list([.string("k")])),
    ("kMDItemURL", "url", #""https://x.example""#, .url("https://x.example")),
    ("kMDItemDueDate", "dueDate", #""2026-05-01""#, .date(utc(2026, 5, 1))),
    ("kMDItemTextContent", "textContent", #""body""#, .string("body")),
  ])
  func resolvesKMDItemAliasesToStandardNames(_ alias: String, _ name: String, _ raw: String, _ expected: AttributeValue) throws {
    let item = try decode(#"{"id":"x","attributes":{"\#(alias)":\#(raw)}}"#)
    #expect(item.attributeSet.names == [name])
    #expect(item.attributeSet[name] == expected)
  }

  @Test(arguments: [
    ("my-attr", "only ASCII letters, digits and '_' are allowed"),
    ("has space", "only ASCII letters, digits and '_' are allowed"),
    ("café", "only ASCII letters, digits and '_' are allowed"),
    ("1st", "the name must start with a letter or '_'"),
    ("kMDCustom", "the 'kMD' prefix is reserved for system attributes"),
    ("kMDItemNotAStandardName", "the 'kMD' prefix is reserved for system attributes"),
    ("", "the name is empty"),
    (String(repeating: "a", count: 129), "the name is longer than 128 characters"),
  ])
  func rejectsCustomNamesThatBreakApplesRules(_ name: String, _ reason: String) throws {
    let message = try failure(#"{"id":"x","attributes":{"\#(name)":1}}"#)
    #expect(message == "invalid attribute name '\(name)': \(reason)")
  }

  @Test(arguments: ["snake_case", "_leading", "camelCase2", "A", String(repeating: "a", count: 128)])
  func acceptsCustomNamesThatFollowApplesRules(_ name: String) throws {
    let item = try decode(#"{"id":"x","attributes":{"\#(name)":1}}"#)
    #expect(item.attributeSet[name] == .number(1))
  }

  @Test(arguments: [
    ("domian", "unknown item field 'domian'; did you mean 'domain'?"),
    ("attribute", "unknown item field 'attribute'; did you mean 'attributes'?"),
    ("protectionclass", "unknown item field 'protectionclass'; did you mean 'protectionClass'?"),
    ("title", "unknown item field 'title'; attributes go inside \"attributes\""),
  ])
  func rejectsUnknownItemFieldsWithASuggestion(_ field: String, _ message: String) throws {
    #expect(try failure(#"{"id":"x","\#(field)":"v"}"#) == message)
  }

  @Test(arguments: [
    (#"{"title":5}"#, "attribute 'title' is a string, got a number"),
    (#"{"rating":"five"}"#, "attribute 'rating' is a number, got a string"),
    (#"{"allDay":"yes"}"#, "attribute 'allDay' is a bool, got a string"),
    (#"{"dueDate":5}"#, "attribute 'dueDate' is a date, got a number"),
    (#"{"title":["a"]}"#, "attribute 'title' is string, got a list"),
    (#"{"keywords":["a",1]}"#, "attribute 'keywords' is a string, got a number (element 2 of the list)"),
    (#"{"contentURL":"not a url"}"#, "attribute 'contentURL' is a url, got \"not a url\""),
    (#"{"contentURL":""}"#, "attribute 'contentURL' is a url, got \"\""),
    (#"{"dueDate":"2026-02-30"}"#,
     "attribute 'dueDate' is a date, but \"2026-02-30\" does not parse as ISO-8601 (e.g. 2026-05-01T08:00:00Z)"),
    (#"{"title":null}"#, "attribute 'title' is null; leave it out instead"),
    (#"{"contentType":"email"}"#, "'contentType' is an item field; write it next to 'id', not among the attributes"),
    (#"{"domainIdentifier":"mail"}"#, "'domainIdentifier' is an item field; write it next to 'id', not among the attributes"),
  ])
  func rejectsValuesThatConflictWithTheAttributeType(_ attributes: String, _ message: String) throws {
    #expect(try failure(#"{"id":"x","attributes":\#(attributes)}"#) == message)
  }

  @Test func rejectsAValueThatConflictsWithACustomTypeAlreadyInTheCatalog() throws {
    let catalog = AttributeCatalog(customTypes: ["distance": .number])
    #expect(try failure(#"{"id":"x","attributes":{"distance":"far"}}"#, catalog: catalog)
      == "attribute 'distance' is a number, got a string")
  }

  @Test func decodesItemFieldsAndTheirAliases() throws {
    let item = try decode("""
      {"uniqueIdentifier":"m1","domainIdentifier":"mail.inbox","contentType":"email",
       "expirationDate":"2027-01-01T00:00:00Z","protectionClass":"private","attributeSet":{"subject":"Hi"}}
      """)
    #expect(item == SearchableItem(
      uniqueIdentifier: "m1", domainIdentifier: "mail.inbox", contentType: "email", expirationDate: utc(2027, 1, 1),
      protectionClass: "private", attributeSet: AttributeSet([("subject", .string("Hi"))])))
  }

  @Test func writesANumericIdentifierAsText() throws {
    #expect(try decode(#"{"id":42}"#).uniqueIdentifier == "42")
  }

  @Test func givesTheDefaultDomainToItemsThatNameNone() throws {
    var decoder = ItemDecoder(catalog: AttributeCatalog(), defaultDomain: "notes")
    #expect(try decoder.decode(try json(#"{"id":"a"}"#)).domainIdentifier == "notes")
    #expect(try decoder.decode(try json(#"{"id":"b","domain":"mail"}"#)).domainIdentifier == "mail")
  }

  @Test func readsDatesWithoutAZoneInTheDecodersZone() throws {
    var decoder = ItemDecoder(catalog: AttributeCatalog(), defaultZone: TimeZone(secondsFromGMT: 7200)!)
    let item = try decoder.decode(try json(#"{"id":"a","attributes":{"dueDate":"2026-05-01T10:00"}}"#))
    #expect(item.attributeSet["dueDate"] == .date(utc(2026, 5, 1, 8)))
  }

  @Test(arguments: [
    (#"[1]"#, "expected an item object, got an array"),
    (#"{"attributes":{}}"#, "missing 'id'"),
    (#"{"id":""}"#, "'id' is empty"),
    (#"{"id":true}"#, "'id' must be a string, got a boolean"),
    (#"{"id":"x","domain":5}"#, "'domain' must be a string, got a number"),
    (#"{"id":"x","domain":"mail..inbox"}"#, "invalid domain \"mail..inbox\": use dot-separated names such as mail.inbox"),
    (#"{"id":"x","domain":".mail"}"#, "invalid domain \".mail\": use dot-separated names such as mail.inbox"),
    (#"{"id":"x","domain":"mail inbox"}"#, "invalid domain \"mail inbox\": use dot-separated names such as mail.inbox"),
    (#"{"id":"x","expirationDate":"soon"}"#, "'expirationDate' is not an ISO-8601 date: \"soon\""),
    (#"{"id":"x","attributes":[]}"#, "'attributes' must be an object, got an array"),
  ])
  func rejectsMalformedItems(_ text: String, _ message: String) throws {
    #expect(try failure(text) == message)
  }

  /// A domain is checked byte by byte when it is ASCII: the same verdict as by characters
  /// (dot-separated names, none empty, no white space) on random strings over dots, white
  /// space, letters and non-ASCII letters and spaces.
  @Test func domainsAreCheckedAsByCharacters() {
    func byCharacters(_ domain: String) -> Bool {
      !domain.isEmpty && !domain.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
        && !domain.contains(where: \.isWhitespace)
    }
    let pieces = [".", ".", "a", "b", "mail", "inbox", "7", "-", " ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}", "é", "\u{A0}", "\u{2003}", "日本"]
    var random = SplitMix64(seed: 41)
    var invalid = 0
    for _ in 0..<20_000 {
      let domain = (0..<Int(random.next() % 7)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
      #expect(ItemDecoder.isValidDomain(domain) == byCharacters(domain), "\(domain.debugDescription)")
      if !byCharacters(domain) { invalid += 1 }
    }
    #expect(invalid > 1_000 && invalid < 19_000)
    for valid in ["mail", "mail.inbox", "a.b.c", "notes.work", "日本.メール"] { #expect(ItemDecoder.isValidDomain(valid)) }
    for bad in ["", ".", "mail.", ".mail", "mail..inbox", "mail inbox", "mail\tinbox", "mail\u{A0}inbox"] { #expect(!ItemDecoder.isValidDomain(bad)) }
  }

  @Test func updateDecodingReportsNullAttributesAsRemoved() throws {
    var decoder = ItemDecoder(catalog: AttributeCatalog())
    let (item, removed) = try decoder.decodeUpdate(try json(#"{"id":"x","attributes":{"rating":5,"title":null,"kMDItemKeywords":null}}"#))
    #expect(item.attributeSet == AttributeSet([("rating", .number(5))]))
    #expect(removed == ["title", "keywords"])
  }

  /// Every standard name is recognised from its bytes, with its own position in the table
  /// and the table's string; a name one byte off (shorter, longer, another case, another
  /// letter) is not.
  @Test func standardNamesAreRecognisedFromTheirBytes() {
    for (position, entry) in StandardAttributes.all.enumerated() {
      let known = Array(entry.name.utf8).withUnsafeBytes { StandardAttributes.recognise($0) }
      #expect(known?.tag == position && known?.name == entry.name, "\(entry.name)")
      let near = [String(entry.name.dropLast()), entry.name + "s", entry.name.uppercased(), "x" + entry.name.dropFirst()]
      for other in near where StandardAttributes.types[other] == nil {
        #expect(Array(other.utf8).withUnsafeBytes { StandardAttributes.recognise($0) } == nil, "\(other)")
      }
    }
    #expect(Array("".utf8).withUnsafeBytes { StandardAttributes.recognise($0) } == nil)
  }

  /// A stored record decodes to the attributes a whole parse and the catalog give, standard
  /// and custom names, escapes and all; a repeated name (however spelt) is an error.
  @Test func aStoredRecordDecodesMemberByMember() throws {
    var catalog = AttributeCatalog()
    try catalog.declare("difficulty", as: .string)
    let record = #"{"title":"T \"q\"","rating":4.5,"keywords":["a","b"],"difficulty":"hard","contentModificationDate":"2025-09-09T09:57:50.707Z","t\u0069meline":"x"}"#
    let attributes = try StoredItem.decodeAttributes(record, catalog: catalog)
    #expect(attributes.names == ["title", "rating", "keywords", "difficulty", "contentModificationDate", "timeline"])
    #expect(attributes["title"] == .string(#"T "q""#))
    #expect(attributes["keywords"] == .list([.string("a"), .string("b")]))
    #expect(attributes["difficulty"] == .string("hard"))
    // Chosen members, standard (by tag), custom and escaped (by name), and none.
    #expect(try StoredItem.decodeAttributes(record, catalog: catalog, only: ["rating"]).names == ["rating"])
    #expect(try StoredItem.decodeAttributes(record, catalog: catalog, only: ["keywords", "difficulty", "timeline", "absent"]).names == ["keywords", "difficulty", "timeline"])
    #expect(try StoredItem.decodeAttributes(record, catalog: catalog, only: []).names == [])
    for repeated in [#"{"title":"a","title":"b"}"#, #"{"title":"a","t\u0069tle":"b"}"#, #"{"difficulty":"a","difficulty":"b"}"#] {
      #expect(throws: JSONParser.SyntaxError.self, "\(repeated)") { try StoredItem.decodeAttributes(repeated, catalog: catalog) }
    }
  }

  /// A set that holds its record undecoded reads as the eagerly decoded set does, equal and
  /// with the same hash; a change to one copy decodes it and leaves the other copies alone.
  @Test func anUndecodedRecordReadsAsItsDecodedAttributes() throws {
    var catalog = AttributeCatalog()
    try catalog.declare("difficulty", as: .string)
    let record = #"{"title":"Mist Trail","rating":4.5,"keywords":["a","b"],"difficulty":"hard","contentModificationDate":"2025-09-09T09:57:50.707Z"}"#
    let eager = try StoredItem.decodeAttributes(record, catalog: catalog)
    let lazy = AttributeSet(undecoded: StoredRecord(bytes: Array(record.utf8), catalog: catalog))
    #expect(lazy == eager)
    #expect(lazy.hashValue == eager.hashValue)
    #expect(lazy.names == eager.names)
    #expect(lazy.count == 5)
    #expect(lazy["difficulty"] == .string("hard"))
    #expect(lazy.jsonObject == eager.jsonObject)
    #expect(Array(lazy.map(\.name)) == eager.names)

    var changed = lazy
    changed["rating"] = .number(3)
    changed["extra"] = .bool(true)
    #expect(changed["rating"] == .number(3))
    #expect(changed.names == ["title", "rating", "keywords", "difficulty", "contentModificationDate", "extra"])
    #expect(lazy["rating"] == .number(4.5))
    #expect(lazy.count == 5)

    var removed = lazy
    removed["title"] = nil
    #expect(removed.names == ["rating", "keywords", "difficulty", "contentModificationDate"])
    #expect(lazy.title == "Mist Trail")

    let partial = AttributeSet(undecoded: StoredRecord(bytes: Array(record.utf8), catalog: catalog, only: ["rating", "absent"]))
    #expect(partial.names == ["rating"])
  }

  /// Copies of one undecoded set read on many threads at once all see the same attributes
  /// (the first read decodes, under a lock).
  @Test func anUndecodedRecordReadsTheSameOnEveryThread() async throws {
    let record = #"{"title":"Shared","keywords":["x","y","z"],"rating":2}"#
    let lazy = AttributeSet(undecoded: StoredRecord(bytes: Array(record.utf8), catalog: AttributeCatalog()))
    let expected = try StoredItem.decodeAttributes(record, catalog: AttributeCatalog())
    let results = await withTaskGroup(of: AttributeSet.self) { group in
      for _ in 0..<16 { group.addTask { let copy = lazy; _ = copy.count; return copy } }
      var all: [AttributeSet] = []
      for await set in group { all.append(set) }
      return all
    }
    #expect(results.count == 16)
    #expect(results.allSatisfy { $0 == expected && $0.title == "Shared" })
  }

  /// A record that does not decode (a damaged file) reads as no attributes rather than
  /// stopping the query; `check` is what reports it.
  @Test func aDamagedUndecodedRecordReadsAsEmpty() {
    let lazy = AttributeSet(undecoded: StoredRecord(bytes: Array(#"{"title":"cut off"#.utf8), catalog: AttributeCatalog()))
    #expect(lazy.isEmpty)
    #expect(lazy.title == nil)
  }

}
