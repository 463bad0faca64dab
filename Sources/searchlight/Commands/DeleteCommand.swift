import SearchIndex

/// `searchlight delete`: removes items by id, by domain (with sub-domains), or all of them.
enum DeleteCommand: Command {
  static let name = "delete"
  static let abstract = "Delete items by identifier, by domain (and its sub-domains), or all."
  static let usage = "delete --db FILE [--index NAME] (--id ID... | --domain D... | --all)"
  static let discussion = """
    Deleting a domain deletes its sub-domains: --domain mail removes mail.inbox and mail.sent.

    EXAMPLES:
      searchlight delete --db items.db --id note-3 note-7
      searchlight delete --db items.db --domain mail
    """
  static let options: [OptionSpec] = [
    Common.db, Common.indexName,
    OptionSpec(name: "id", kind: .values, valueName: "ID", help: "Identifiers of items to delete."),
    OptionSpec(name: "domain", kind: .values, valueName: "D", help: "Domains to delete, with their sub-domains."),
    OptionSpec(name: "all", kind: .flag, help: "Delete every item of the index."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let modes = [arguments.has("id"), arguments.has("domain"), arguments.has("all")].filter { $0 }.count
    guard modes == 1 else {
      throw UsageError(message: "give exactly one of --id, --domain or --all", command: name)
    }
    guard arguments.positionals.isEmpty else {
      throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'", command: name)
    }
    let index = try Common.openIndex(arguments, command: name, create: false)
    let deleted: Int
    do {
      if arguments.has("all") {
        deleted = try index.deleteAllSearchableItems()
      } else if arguments.has("domain") {
        let domains = arguments.all("domain")
        for domain in domains {
          do { try ItemDecoder.validateDomain(domain) } catch { throw UsageError(message: error.message, command: name) }
        }
        deleted = try index.deleteSearchableItems(withDomainIdentifiers: domains)
      } else {
        deleted = try index.deleteSearchableItems(withIdentifiers: arguments.all("id"))
      }
    } catch let error as SearchIndexError {
      throw CommandFailure(error)
    }
    Terminal.out("deleted \(deleted) item\(deleted == 1 ? "" : "s")\n")
    // The file keeps its size; say so when what the delete freed is worth giving back.
    if deleted > 0, let space = try? index.spaceUsage(),
      let hint = Common.compactionHint(path: index.path, fileBytes: space.fileBytes, freeBytes: space.freeBytes)
    {
      Terminal.err("note: the file has \(hint) (later writes reuse it)\n")
    }
    return .success
  }
}
