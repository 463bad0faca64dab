import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

@testable import Assistant

/// Relations a question names by a verb whose stem is an attribute's: "which packages depend
/// on libssl3", "packages maintained by the Debian Python Team". The values are too many for
/// the vocabulary, so the index is asked: whole value, start, then anywhere in it.
@Suite struct PlannerRelationTests {
  /// A small package catalogue; a protected package is the only one that depends on
  /// "libsecret9", so that value must not be found.
  static func packages() throws -> SearchIndex {
    let index = try SearchIndex(path: TemporaryFiles.database("planner-relations"))
    func package(_ name: String, _ summary: String, depends: [String], maintainer: String, protected: Bool = false) -> SearchableItem {
      SearchableItem(
        uniqueIdentifier: name, domainIdentifier: "packages", contentType: "package", protectionClass: protected ? "private" : nil,
        attributeSet: AttributeSet([
          ("title", .string(name)), ("textContent", .string(summary)),
          ("depends", .list(depends.map { AttributeValue.string($0) })), ("maintainer", .string(maintainer)),
          ("version", .string("\(name.count).0-1")),
        ]))
    }
    try index.indexSearchableItems([
      package("curl", "command line tool for transferring data with URL syntax", depends: ["libc6", "libcurl4", "zlib1g"],
              maintainer: "Alessandro Ghedini <ghedo@debian.org>"),
      package("openssl", "Secure Sockets Layer toolkit", depends: ["libc6", "libssl3"], maintainer: "Debian OpenSSL Team <pkg-openssl@debian.org>"),
      package("python3-yaml", "YAML parser and emitter for Python3", depends: ["python3", "libyaml-0-2"],
              maintainer: "Debian Python Team <team+python@tracker.debian.org>"),
      package("python3-requests", "elegant and simple HTTP library for Python3", depends: ["python3", "python3-urllib3"],
              maintainer: "Debian Python Team <team+python@tracker.debian.org>"),
      package("wget", "retrieves files from the web, depending on nothing fancy", depends: ["libc6", "libssl3", "zlib1g"],
              maintainer: "Noël Köthe <noel@debian.org>"),
      package("keyring", "a secret store", depends: ["libsecret9"], maintainer: "Hidden Maintainer <h@example.org>", protected: true),
    ])
    return index
  }

  static func plan(_ question: String, on index: SearchIndex) throws -> PlannedQuery {
    try BuiltinPlanner(index: index, clock: SampleIndex.clock, scope: AccessScope(now: SampleIndex.now)).plan(question)
  }

  @Test func aVerbThatNamesAnAttributeFiltersByTheValueAfterIt() throws {
    let index = try Self.packages()
    let exact = try Self.plan("which packages depend on libssl3", on: index)
    #expect(exact.itemsDSL.hasPrefix(#"search depends == "libssl3"cd"#), "\(exact.itemsDSL)")
    #expect(exact.notes.first == "\u{201C}depend on libssl3\u{201D} -> depends is \u{201C}libssl3\u{201D}", "\(exact.notes)")
    #expect(Set(try PlannerSupport.ids(exact.dsl, on: index)) == ["openssl", "wget"])
    // The start of values: "libssl" is no package's dependency, but starts one.
    let prefix = try Self.plan("which packages depend on libssl", on: index)
    #expect(prefix.itemsDSL.hasPrefix(#"search depends == "libssl*"cd"#), "\(prefix.itemsDSL)")
    // Anywhere in the value, past an article: a maintainer's name before the address.
    let team = try Self.plan("how many packages are maintained by the Debian Python Team?", on: index)
    #expect(team.intent == .count)
    #expect(team.dsl == #"search maintainer == "Debian Python Team*"cd | count"#, "\(team.dsl)")
    #expect(try PlannerSupport.count(team.dsl, on: index) == 2)
    let person = try Self.plan("packages maintained by Noel Kothe", on: index)
    #expect(try PlannerSupport.ids(person.dsl, on: index) == ["wget"], "\(person.dsl)")
    let inside = try Self.plan("packages maintained by ghedo", on: index)
    #expect(inside.itemsDSL.hasPrefix(#"search maintainer == "*ghedo*"cd"#), "\(inside.itemsDSL)")
  }

  /// A group named in other words ("the Debian OpenSSL group" for "Debian OpenSSL Team"):
  /// its own words anywhere in the value, the word for a group left out.
  @Test func aGroupNamedInOtherWordsIsFoundByItsOwnWords() throws {
    let index = try Self.packages()
    let plan = try Self.plan("packages maintained by the Debian OpenSSL group", on: index)
    #expect(plan.itemsDSL.hasPrefix(#"search maintainer == "*Debian*"cd && maintainer == "*OpenSSL*"cd"#), "\(plan.itemsDSL)")
    #expect(plan.notes.first == "\u{201C}maintained by Debian OpenSSL group\u{201D} -> maintainer contains \u{201C}Debian\u{201D} and \u{201C}OpenSSL\u{201D}", "\(plan.notes)")
    #expect(try PlannerSupport.ids(plan.dsl, on: index) == ["openssl"])
    // Words no value holds together are no relation.
    let none = try Self.plan("packages maintained by the Debian Haskell group", on: index)
    #expect(!none.itemsDSL.contains("maintainer =="), "\(none.itemsDSL)")
  }

  /// The rest of the question is planned as any question, and its search also tests the value;
  /// a question that is only the relation lists the items that hold it.
  @Test func theRestOfTheQuestionIsPlannedBesideTheRelation() throws {
    let index = try Self.packages()
    let python = try Self.plan("which python packages depend on python3-urllib3", on: index)
    #expect(python.itemsDSL.contains(#" && depends == "python3-urllib3"cd"#), "\(python.itemsDSL)")
    #expect(try PlannerSupport.ids(python.dsl, on: index) == ["python3-requests"])
    let alone = try Self.plan("what depends on zlib1g?", on: index)
    #expect(alone.dsl == #"search depends == "zlib1g"cd | limit 10"#, "\(alone.dsl)")
    #expect(Set(try PlannerSupport.ids(alone.dsl, on: index)) == ["curl", "wget"])
  }

  /// No visible item holds the value: no relation, the question's words are searched (a
  /// protected package's dependency leaves no trace in the plan).
  @Test func aValueNoVisibleItemHoldsIsNoRelation() throws {
    let index = try Self.packages()
    for question in ["which packages depend on libsecret9", "packages maintained by Hidden Maintainer", "which packages depend on nothing"] {
      let plan = try Self.plan(question, on: index)
      #expect(!plan.dsl.contains("depends ==") && !plan.dsl.contains("maintainer =="), "\(question): \(plan.dsl)")
    }
    // A word that only shares letters with an attribute's name is no verb of it.
    #expect(PlanBuilder.sharesStem("depend", "depends") && PlanBuilder.sharesStem("maintained", "maintainer"))
    #expect(!PlanBuilder.sharesStem("main", "maintainer") && !PlanBuilder.sharesStem("depth", "depends"))
  }

  /// The rows of the table a plan shows.
  static func rows(_ plan: PlannedQuery, on index: SearchIndex) throws -> [[Value]] {
    try PlannerSupport.replies(plan.dsl, on: index).compactMap { reply -> [[Value]]? in
      if case .table(let table) = reply.content { return table.rows }
      return nil
    }.first ?? []
  }

  /// A verb asks for an attribute of the item the question names: "who maintains openssl"
  /// (an agent's attribute, after "who"), "what does curl depend on" (the verb last). The
  /// item of that name comes first, with the attribute beside its title.
  @Test func aVerbAsksForTheAttributeOfTheItemItNames() throws {
    let index = try Self.packages()
    let who = try Self.plan("who maintains openssl?", on: index)
    #expect(who.dsl.hasSuffix(#"| limit 3 | where maintainer == "*" | table title, maintainer"#), "\(who.dsl)")
    #expect(try Self.rows(who, on: index).first == [.string("openssl"), .string("Debian OpenSSL Team <pkg-openssl@debian.org>")])
    #expect(who.notes.first == "\u{201C}who maintains\u{201D} -> table title, maintainer of the items \u{201C}openssl\u{201D} names", "\(who.notes)")
    let depends = try Self.plan("what does curl depend on", on: index)
    #expect(depends.dsl.hasSuffix(#"| limit 3 | where depends == "*" | table title, depends"#), "\(depends.dsl)")
    let first = try Self.rows(depends, on: index).first
    #expect(first?.first == .string("curl") && first?.count == 2, "\(String(describing: first))")
    #expect(first.map { "\($0[1])" }?.contains("libcurl4") == true, "\(String(describing: first))")
    // "Who is the maintainer of": the attribute by its name, after "who" too.
    let named = try Self.plan("who is the maintainer of wget", on: index)
    #expect(try Self.rows(named, on: index).first == [.string("wget"), .string("Noël Köthe <noel@debian.org>")], "\(named.dsl)")
    // A protected package is no item a question can name: its maintainer is shown nowhere.
    let hidden = try Self.plan("who maintains keyring", on: index)
    #expect(try Self.rows(hidden, on: index).allSatisfy { !$0.contains(.string("Hidden Maintainer <h@example.org>")) }, "\(hidden.dsl)")
  }

  /// "What does the Debian Python Team maintain": an agent's attribute with its value before
  /// the verb names the items that hold it.
  @Test func anAgentBeforeItsVerbNamesItemsByValue() throws {
    let index = try Self.packages()
    let team = try Self.plan("what does the Debian Python Team maintain?", on: index)
    #expect(team.itemsDSL.hasPrefix(#"search maintainer == "Debian Python Team*"cd"#), "\(team.itemsDSL)")
    #expect(Set(try PlannerSupport.ids(team.dsl, on: index)) == ["python3-yaml", "python3-requests"])
    // What comes before the auxiliary is planned as any question: here a count.
    let count = try Self.plan("how many packages does the Debian Python Team maintain", on: index)
    #expect(count.dsl == #"search maintainer == "Debian Python Team*"cd | count"#, "\(count.dsl)")
    #expect(try PlannerSupport.count(count.dsl, on: index) == 2)
  }

  /// "Who maintains the most packages" asks which maintainer has the most: the ranked groups
  /// of the attribute the verb names, not the maintainer of an item called "most packages".
  @Test func whoDoesTheMostRanksTheAttributesGroups() throws {
    let index = try Self.packages()
    let most = try Self.plan("who maintains the most packages?", on: index)
    #expect(most.dsl == "search * | group by maintainer | count | sort count desc | limit 1", "\(most.dsl)")
    #expect(most.notes.first == "\u{201C}who maintains the most packages?\u{201D} read as \u{201C}which maintainer has the most packages\u{201D}", "\(most.notes)")
    #expect(try Self.rows(most, on: index) == [[.string("Debian Python Team <team+python@tracker.debian.org>"), .number(2)]])
  }

  /// "The latest version of openssl" asks for the version openssl has, not for the newest item.
  @Test func theLatestValueOfAnAttributeIsTheAttribute() throws {
    let index = try Self.packages()
    let latest = try Self.plan("what is the latest version of openssl", on: index)
    #expect(!latest.dsl.contains("sort"), "\(latest.dsl)")
    #expect(try Self.rows(latest, on: index).first == [.string("openssl"), .string("7.0-1")], "\(latest.dsl)")
    #expect(try Self.rows(try Self.plan("the current maintainer of curl", on: index), on: index).first?.first == .string("curl"))
  }
}
