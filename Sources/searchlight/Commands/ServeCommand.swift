import Assistant
import Dispatch
import Foundation
import QueryEngine
import SearchIndex
import Server

/// `searchlight serve`: the HTTP API and the web page (DESIGN §7) on libmicrohttpd.
enum ServeCommand: Command {
  static let name = "serve"
  static let abstract = "Serve the index over HTTP: a JSON API for apps in any language and a search page for browsers."
  static let usage = "serve --db FILE [--index NAME] [--host 127.0.0.1] [--port 8421] [--token-file FILE] [--protection C,...] [--stages DIR] [--model-url URL [--model NAME] [--api-key-file FILE] [--fallback WHEN]]"
  static let discussion = """
    Endpoints (JSON in, JSON out, in the shapes of --format json): GET /v1/health,
    POST /v1/query, POST /v1/tool-call, POST /v1/ask (server-sent events with
    'Accept: text/event-stream'), GET/DELETE /v1/items/{id}, POST /v1/items (JSON Lines, all or
    nothing), DELETE /v1/items?domain=D, GET /v1/schema?mode=focused|complete,
    GET /v1/openapi.json; the search page is at /. One line on stderr says where it serves;
    SIGINT or SIGTERM stops it after the requests in flight finish.

    With --token-file ({"tokens":[{"token":"...","protection":["classA"]}]}), every /v1
    request needs 'Authorization: Bearer TOKEN' and sees only the protection classes its token
    grants; without one, requests see the classes of --protection. Any address but loopback
    needs --token-file. The file is created when missing.

    EXAMPLES:
      searchlight serve --db items.db
      curl -s localhost:8421/v1/query -d '{"query":"keywords == \\"waterfall\\"c","limit":3}'
    """
  static let options: [OptionSpec] = QuerySetup.options + [
    OptionSpec(name: "host", kind: .value, valueName: "ADDRESS", help: "The address to listen on (default 127.0.0.1); any other than loopback needs --token-file."),
    OptionSpec(name: "port", kind: .value, valueName: "PORT", help: "The port (default 8421; 0 picks a free one)."),
    OptionSpec(name: "token-file", kind: .value, valueName: "FILE", help: "Bearer tokens and the protection classes each grants."),
    OptionSpec(name: "max-body", kind: .value, valueName: "BYTES", help: "The largest request body (default 16777216); larger ones get 413."),
    OptionSpec(name: "connection-timeout", kind: .value, valueName: "SECONDS", help: "Close a connection idle this long (default 30)."),
  ] + ModelAccess.options

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    guard arguments.positionals.isEmpty else {
      throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'", command: name)
    }
    var http = HTTPServer.Configuration()
    http.host = arguments.value("host") ?? "127.0.0.1"
    if let text = arguments.value("port") {
      guard let port = UInt16(text) else { throw UsageError(message: "--port needs a port number (0-65535), got '\(text)'", command: name) }
      http.port = port
    }
    if let text = arguments.value("max-body") {
      guard let bytes = Int(text), bytes > 0 else { throw UsageError(message: "--max-body needs a positive number of bytes, got '\(text)'", command: name) }
      http.maximumBodyBytes = bytes
    }
    if let text = arguments.value("connection-timeout") {
      guard let seconds = UInt32(text), seconds > 0 else {
        throw UsageError(message: "--connection-timeout needs a positive whole number of seconds, got '\(text)'", command: name)
      }
      http.connectionTimeout = seconds
    }
    guard HTTPServer.isAddress(http.host) else {
      throw UsageError(message: "--host needs an IP address (e.g. 127.0.0.1, ::1, 0.0.0.0), got '\(http.host)'", command: name)
    }
    var tokens: AccessTokens?
    if let path = arguments.value("token-file") {
      guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure(.noInput, "\(path): no such token file", location: path) }
      do { tokens = try AccessTokens.load(path: path) } catch { throw CommandFailure(.dataError, "\(error)") }
    } else if !HTTPServer.isLoopback(http.host) {
      throw UsageError(
        message: "serving on '\(http.host)' (not loopback) needs --token-file FILE, so only holders of a token can read the index",
        command: name)
    }
    let model = try AskCommand.languageModel(arguments)
    let bounds = try AskCommand.modelBounds(arguments)
    let index = try Common.openIndex(arguments, command: name, create: true)
    let setup = try QuerySetup(arguments, command: name, index: index)
    var configuration = SearchlightAPI.Configuration(index: index, registry: setup.registry)
    configuration.queryOptions = setup.options
    if arguments.value("now") != nil || ProcessInfo.processInfo.environment["SEARCHLIGHT_NOW"].map({ !$0.isEmpty }) == true {
      configuration.fixedNow = setup.options.clock.now
    }
    configuration.protection = setup.options.scope.protectionClasses
    configuration.tokens = tokens
    configuration.model = model
    if let model = model as? OpenAICompatibleModel {
      let server = model.server
      configuration.modelNamed = { OpenAICompatibleModel(server: server, model: $0) }
    }
    // The flags' bounds, as values (the closure `ask` uses is not Sendable).
    var bounded = AnswerSession.Configuration()
    bounds(&bounded)
    let (maximumTokens, grounding) = (bounded.generation.maxTokens, bounded.grounding)
    configuration.configureAnswer = {
      $0.generation.maxTokens = maximumTokens
      $0.grounding = grounding
    }
    configuration.answerResultLimit = AskCommand.resultLimit
    // New items get embeddings as with `index`, when the index has an embedding model.
    configuration.afterItemsWritten = { EmbeddingsCommand.embedNewItems(index) }
    let api = SearchlightAPI(configuration)

    // Signals are read by a dispatch source, so the default action (dying mid-request) is off.
    signal(SIGPIPE, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    let stopRequested = DispatchSemaphore(value: 0)
    let sources = [SIGINT, SIGTERM].map { number in
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { stopRequested.signal() }
      source.resume()
      return source
    }
    let server: HTTPServer
    do {
      server = try HTTPServer(configuration: http) { api.handle($0) }
    } catch {
      throw CommandFailure(.ioError, "\(error)")
    }
    let items = (try? index.statistics(scope: setup.options.scope).items) ?? 0
    let host = http.host.contains(":") ? "[\(http.host)]" : http.host
    Terminal.err("searchlight serve: http://\(host):\(server.port)/ (\(items) item\(items == 1 ? "" : "s") in \(index.path)\(tokens == nil ? "" : ", tokens required"); Ctrl-C stops)\n")
    stopRequested.wait()
    Terminal.err("searchlight serve: stopping after the requests in flight\n")
    server.stop()
    for source in sources { source.cancel() }
    return .success
  }
}
