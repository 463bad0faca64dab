import Foundation
import SearchIndex

/// `searchlight stats`: what an index holds.
enum StatsCommand: Command {
  static let name = "stats"
  static let abstract = "Show items per domain, the attribute catalogue, client state and file size."
  static let usage = "stats --db FILE [--index NAME] [--protection CLASS,...] [--format table|json]"
  static let options: [OptionSpec] = [Common.db, Common.indexName, Common.protection, Common.now, Common.format]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let format = try Common.format(arguments, allowed: ["table", "json"], default: "table", command: name)
    let scope = try Common.scope(arguments, command: name)
    let index = try Common.openIndex(arguments, command: name, create: false, readOnly: true)
    let stats: IndexStatistics
    do { stats = try index.statistics(scope: scope) } catch { throw CommandFailure(error) }
    if format == "json" {
      Terminal.out(stats.jsonValue.compactText + "\n")
      return .success
    }
    var text = "index:       \(index.path) (\(index.name))\n"
    text += "items:       \(stats.items)"
    var hidden: [String] = []
    if stats.expiredItems > 0 { hidden.append("\(stats.expiredItems) expired") }
    if stats.protectedItems > 0 { hidden.append("\(stats.protectedItems) protected") }
    if !hidden.isEmpty { text += " (not shown: \(hidden.joined(separator: ", ")))" }
    text += "\nfile size:   \(Common.formatBytes(stats.fileSize))"
    if let hint = Common.compactionHint(path: index.path, fileBytes: stats.fileSize, freeBytes: stats.freeBytes) {
      text += " (\(hint))"
    }
    text += "\n"
    text += "generation:  \(stats.generation)\n"
    let state = stats.clientState.map { String(data: $0, encoding: .utf8) ?? "\($0.count) bytes" } ?? "none"
    text += "clientState: \(state)\n"
    if let configuration = try? index.embeddingConfiguration(), let counts = try? index.embeddingCounts() {
      text += "embeddings:  \(configuration.model), \(configuration.dimensions) dimensions, \(configuration.url); "
        + "\(counts.embedded) items embedded (\(counts.vectors) vectors), \(counts.pending) pending, \(counts.failed) failed\n"
    }
    text += "\ndomains:\n"
    let domainWidth = max(8, stats.domains.map(\.name.count).max() ?? 0)
    for domain in stats.domains {
      text += "  " + (domain.name.isEmpty ? "(none)" : domain.name).padding(toLength: domainWidth + 2, withPad: " ", startingAt: 0)
        + String(domain.count) + "\n"
    }
    text += "\nattributes:\n"
    let nameWidth = max(10, stats.attributes.map(\.name.count).max() ?? 0)
    text += "  " + "name".padding(toLength: nameWidth + 2, withPad: " ", startingAt: 0) + "type      items\n"
    for attribute in stats.attributes {
      text += "  " + attribute.name.padding(toLength: nameWidth + 2, withPad: " ", startingAt: 0)
        + attribute.type.description.padding(toLength: 10, withPad: " ", startingAt: 0)
        + String(attribute.count) + (attribute.isCustom ? "  (custom)" : "") + "\n"
    }
    Terminal.out(text)
    return .success
  }
}
