import Foundation
import SearchIndex

/// `searchlight delete`: removes items by id, by domain (with sub-domains), all of them, or
/// the expired ones.
enum DeleteCommand: Command {
  static let name = "delete"
  static let abstract = "Delete items by identifier, by domain (and its sub-domains), all, or the expired ones."
  static let usage = "delete --db FILE [--index NAME] [--progress] (--id ID... | --domain D... | --all | --expired)"
  static let discussion = """
    Deleting a domain deletes its sub-domains: --domain mail removes mail.inbox and mail.sent.

    An item whose expiration date has passed is hidden at once but stays in the file (`stats`
    counts it as "not shown: N expired"); --expired removes every such item, as Core
    Spotlight's own maintenance does.

    LONG DELETES: on a terminal a progress bar shows each step (deleting the items, then,
    when a quarter or more of the index goes, compacting the ranked index, then committing);
    --progress prints the same as lines, at most one a second, for scripts and logs. The
    delete is one transaction: interrupted, it deletes nothing.

    EXAMPLES:
      searchlight delete --db items.db --id note-3 note-7
      searchlight delete --db items.db --domain mail
      searchlight delete --db items.db --expired
    """
  static let options: [OptionSpec] = [
    Common.db, Common.indexName,
    OptionSpec(name: "id", kind: .values, valueName: "ID", help: "Identifiers of items to delete."),
    OptionSpec(name: "domain", kind: .values, valueName: "D", help: "Domains to delete, with their sub-domains."),
    OptionSpec(name: "all", kind: .flag, help: "Delete every item of the index."),
    OptionSpec(name: "expired", kind: .flag, help: "Delete the items whose expiration date has passed (already hidden)."),
    OptionSpec(name: "progress", kind: .flag, help: "Print progress lines (done/total, percent, rate, ETA) at most once a second."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let modes = [arguments.has("id"), arguments.has("domain"), arguments.has("all"), arguments.has("expired")].filter { $0 }.count
    guard modes == 1 else {
      throw UsageError(message: "give exactly one of --id, --domain, --all or --expired", command: name)
    }
    guard arguments.positionals.isEmpty else {
      throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'", command: name)
    }
    let index = try Common.openIndex(arguments, command: name, create: false)
    let display = MaintenanceDisplay(arguments)
    defer { display.finish() }
    let deleted: Int
    do {
      if arguments.has("all") {
        deleted = try index.deleteAllSearchableItems(progress: display.report)
      } else if arguments.has("expired") {
        deleted = try index.purgeExpiredItems(progress: display.report)
      } else if arguments.has("domain") {
        let domains = arguments.all("domain")
        for domain in domains {
          do { try ItemDecoder.validateDomain(domain) } catch { throw UsageError(message: error.message, command: name) }
        }
        deleted = try index.deleteSearchableItems(withDomainIdentifiers: domains, progress: display.report)
      } else {
        deleted = try index.deleteSearchableItems(withIdentifiers: arguments.all("id"), progress: display.report)
      }
    } catch let error as SearchIndexError {
      throw CommandFailure(error)
    }
    display.finish()
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
