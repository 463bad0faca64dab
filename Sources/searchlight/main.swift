import Foundation
#if canImport(Glibc)
import CMalloc
#endif
import QueryEngine
import SearchIndex


func mainHelp() -> String {
  var text = """
    OVERVIEW: Searchlight: a private local index of your apps' items, a query language with
    pipeline stages, and grounded answers from a language model or none.

    USAGE: searchlight <subcommand> [options]

    SUBCOMMANDS:

    """
  for command in CommandList.all {
    text += "  " + command.name.padding(toLength: 14, withPad: " ", startingAt: 0) + command.abstract + "\n"
  }
  text += "  " + "version".padding(toLength: 14, withPad: " ", startingAt: 0) + "Print the version (also --version).\n"
  text += "\n  See 'searchlight <subcommand> --help' for detailed help.\n"
  return text
}

func runCommandLine(_ argv: [String]) -> ExitCode {
  guard let first = argv.first else {
    Terminal.err(mainHelp())
    return .usage
  }
  if first == "--help" || first == "-h" || first == "help" {
    if argv.count > 1, let command = CommandList.all.first(where: { $0.name == argv[1] }) {
      Terminal.out(command.helpText)
    } else {
      Terminal.out(mainHelp())
    }
    return .success
  }
  if first == "--version" || first == "version" {
    Terminal.out("searchlight \(CommandList.version)\n")
    return .success
  }
  guard let command = CommandList.all.first(where: { $0.name == first }) else {
    var message = "unknown subcommand '\(first)'"
    if let suggestion = closestMatch(to: first, in: CommandList.all.map { $0.name }) { message += "; did you mean '\(suggestion)'?" }
    Terminal.err("error: \(message)\n  See 'searchlight --help'.\n")
    return .usage
  }
  let rest = Array(argv.dropFirst())
  if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
    Terminal.out(command.helpText)
    return .success
  }
  let wantsJSON = rest.contains("--format=json") || zip(rest, rest.dropFirst()).contains { $0 == "--format" && $1 == "json" }
  do {
    var arguments = try ArgumentParser.parse(rest, options: command.options, command: command.name)
    let config = Config.load()
    for warning in config.warnings { Terminal.err("warning: \(warning)\n") }
    arguments = config.apply(to: arguments, command: command.name, options: command.options)
    return try command.run(arguments)
  } catch let error as UsageError {
    ErrorReporter.report(error)
    return .usage
  } catch let failure as CommandFailure {
    ErrorReporter.report(failure, json: wantsJSON)
    return failure.code
  } catch let error as IngestError {
    ErrorReporter.report(CommandFailure(error), json: wantsJSON)
    return error.kind == .missingInput ? .noInput : .dataError
  } catch let error as EmbeddingError {
    let failure = CommandFailure(error.isIOFailure ? .ioError : .dataError, error.message)
    ErrorReporter.report(failure, json: wantsJSON)
    return failure.code
  } catch let error as SearchIndexError {
    let failure = CommandFailure(error)
    ErrorReporter.report(failure, json: wantsJSON)
    return failure.code
  } catch let error as QueryError {
    let mapped = queryFailure(error)
    let failure = mapped as? CommandFailure ?? CommandFailure(.ioError, "\(mapped)")
    ErrorReporter.report(failure, json: wantsJSON)
    return failure.code
  } catch {
    ErrorReporter.report(CommandFailure(.ioError, "\(error)"), json: wantsJSON)
    return .ioError
  }
}

// The clock of `--timing` starts here, before the arguments are read.
_ = PhaseTiming.shared
#if canImport(Glibc)
// glibc raises its mmap threshold to the size of every large buffer freed (up to 32 MB), so
// later large buffers (a long document's copies, a flush's postings) come from the heap, which
// they fragment and which does not shrink: 50-65 MB of indexing /usr/share/doc's peak. A fixed
// threshold keeps them in mappings of their own, returned to the system when freed; the cost
// is fresh pages for every copy of a huge text (BENCHMARKS: 14% on 20 files of 1-8 MB).
_ = mallopt(M_MMAP_THRESHOLD, 128 << 10)
#endif
exit(runCommandLine(Array(CommandLine.arguments.dropFirst())).rawValue)
