import QueryEngine

/// Help texts for `help` tool calls, generated from the stage registry where they describe
/// stages, so custom stages appear too.
enum ToolHelp {
  static let topics = ["", "search", "nodes", "predicate", "temporal", "pipeline", "stages", "ranking", "schema", "dsl", "display"]

  static func text(topic: String, registry: StageRegistry) -> String {
    switch topic.lowercased() {
    case "", "general", "help", "high_level_api":
      return """
        Search the user's items. Call with {"query":{"type":"search","value":{"root":NODE,"pageSize":10}}}.
        NODE is one of: operation (logic all|any|none over children), predicate (attribute, operator, value), allText (terms, all required),
        temporal (on|after|before|between|recurring), person, personMe, contentType, semanticSimilar.
        For counts, groups and statistics add "pipeline":{"stages":[...]} starting with a query stage.
        Other query types: schema (what attributes exist: {"type":"schema","value":{"queryType":"schema"}}), help (topics: \(topics.dropFirst().joined(separator: ", "))),
        dsl (a query in Searchlight's language: {"type":"dsl","value":{"query":"search \\"budget\\" | top 5"}}).
        Answer only from the results; if nothing relevant comes back, say that nothing was found.
        """
    case "predicate", "nodes", "search":
      return """
        predicate: {"attribute":"title","operator":OP,"value":{"type":"string"|"int"|"double"|"bool"|"date"|"array"|"variable","value":...},"caseSensitive":false}
        OP: equals, prefix, slowInfix (substring), containsWord, in (array), containsAny (array of words), greaterThan, lessThan,
        greaterThanOrEqual, lessThanOrEqual, range (array [low, high]). Text matching ignores case and diacritics unless caseSensitive.
        allText: {"terms":["kitchen","remodel"]} finds items containing every word, ranked by relevance.
        person: {"type":\(AppleVocabulary.names(AppleVocabulary.PersonRole.self).map { "\"\($0)\"" }.joined(separator: "|")),"value":"Sam Ortiz"}; personMe: {"type":"fromMe"|"toMe","value":true}.
        contentType: {"contentTypes":["email","note"]}.
        """
    case "temporal":
      return """
        temporal: {"type":"on","reference":REF,"offset":{"value":-1,"unit":"weeks"},"tense":"past"|"current"|"future"},
        {"type":"after"|"before","reference":REF}, {"type":"between","startReference":REF,"endReference":REF},
        {"type":"recurring","value":{"month":{"type":"concrete","value":12}}}.
        REF: {"type":"relative","value":\(AppleVocabulary.names(AppleVocabulary.RelativeReference.self).map { "\"\($0)\"" }.joined(separator: "|"))}
        or {"type":"absolute","value":{"year":{"type":"concrete","value":2026},"month":{"type":"concrete","value":6}}}.
        An item matches when its modification or creation date falls in the period; weeks start on Monday.
        """
    case "pipeline", "stages":
      var text = """
        pipeline: {"stages":[{"id":"q","kind":{"type":"query","value":{"query":NODE}}},{"id":"g","kind":{"type":"groupBy","value":{"from":"q","attribute":"stateOrProvince"}}},{"id":"c","kind":{"type":"valueCount","value":{"from":"g"}}}]}
        Stage kinds: \(AppleVocabulary.StageKind.allCases.filter { !$0.needsModel }.map(\.rawValue).joined(separator: ", ")).
        Each reads "from" an earlier stage id (merge reads inputStageIds; compute the stage before it).
        forEach: {"from":"g","operation":"stats avg(rating)"} runs stages of the query language for each group (count, stats, select) or item (table, where).
        A stage's "header" or "output" names its reply; a query stage's "fetchAttributes" choose the attributes of its items.
        extractValue / bindVariable bind a value (e.g. the largest group's key) usable later as {"type":"variable","value":"name"}.
        Custom stages (kind custom, stageType NAME, parameters [{"key","value"}]):
        """
      for definition in registry.all where definition.descriptor.isCustom {
        let d = definition.descriptor
        text += "\n- \(d.name)(\(d.parameters.map { "\($0.name): \($0.kind.rawValue)" }.joined(separator: ", "))): \(d.abstract)"
      }
      return text
    case "ranking":
      return """
        modelComposition ranks results: {"type":"none"} for counts; {"type":"purelyTemporal","value":{"type":"recency","value":{"multiplier":1}}} newest first;
        {"type":"nonTemporal","value":{"models":[{"type":"topic","value":{"terms":"budget","weight":1}}]}} relevance plus weighted signals
        (\(AppleVocabulary.names(AppleVocabulary.RankingModel.self).joined(separator: ", ")); a person also as {"type":"participant","value":"Lena Novak"});
        {"type":"combined","value":{"temporal":...,"models":[...]}} both.
        rankingMetadata orders the results: {"rankingType":"alphabetical"|"recency"|"temporal-adjacency"|"relevance","wasExplicit":true,"sortAttribute":"title","sortDirection":"ascending"}.
        postFilters: Spotlight query strings applied after ranking, e.g. ["rating > 3"]. scopes: domains with their sub-domains ("mail" covers mail.inbox).
        source: all, coreSpotlight or managed (items apps donated), files (items indexed from files).
        """
    case "schema":
      return #"schema: {"queryType":"schema"} lists attributes and types; {"queryType":"attribute","attribute":"stateOrProvince"} lists values; {"queryType":"content_type"} lists content types."#
    case "display":
      return """
        display: results are shown to the user when a search sets "autoDisplay": true; the tool then returns only how many items were shown.
        Without it, results come back to you to read. {"type":"display","value":{"display":true}} shows nothing by itself.
        """
    case "dsl":
      return """
        dsl: a query in Searchlight's language, e.g. search keywords == "waterfall"c && rating >= 4.5 | sort rating desc | limit 5
        Stages: \(registry.names.joined(separator: ", ")).
        """
    default:
      if let definition = registry.definition(named: topic) {
        let d = definition.descriptor
        return "\(d.name): \(d.abstract)\nusage: \(d.usage)\n" + d.parameters.map { "- \($0.name) (\($0.kind.rawValue)): \($0.description)" }.joined(separator: "\n")
      }
      return "unknown help topic '\(topic)'; topics: \(topics.dropFirst().joined(separator: ", ")), or a stage name"
    }
  }
}
