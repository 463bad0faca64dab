import Foundation

/// The optional configuration file, `$XDG_CONFIG_HOME/searchlight/config` (default
/// `~/.config/searchlight/config`): `key = value` lines that stand for options left out.
///
/// ```
/// # searchlight defaults
/// db = ~/notes.db
/// index = default
/// protection = private,work
/// format = json
/// ```
/// Precedence: a flag on the command line, then the environment (`SEARCHLIGHT_DB`), then
/// this file. A key applies to the commands that have that option (`format` only to `query`,
/// whose format is an output format). Blank lines and lines starting with `#` are ignored; an
/// unknown key or a line without `=` is one warning, never fatal. `~/` starts a path in the
/// home folder.
struct Config {
  /// Keys the file may set, in the order the README lists them.
  static let keys = ["db", "index", "protection", "format", "now", "stages"]
  /// Commands whose `--format` is an output format the file may choose.
  static let formatCommands: Set<String> = ["query"]

  private(set) var values: [String: String] = [:]
  /// Problems found reading the file (`FILE:LINE: why`).
  private(set) var warnings: [String] = []

  /// `$HOME`, else the account's home folder.
  static var homeDirectory: String {
    if let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty { return home }
    return FileManager.default.homeDirectoryForCurrentUser.path
  }

  /// The file's path: `$XDG_CONFIG_HOME/searchlight/config`, else `$HOME/.config/searchlight/config`.
  static var path: String {
    let environment = ProcessInfo.processInfo.environment
    let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (homeDirectory as NSString).appendingPathComponent(".config")
    return ((base as NSString).appendingPathComponent("searchlight") as NSString).appendingPathComponent("config")
  }

  /// The file at `path`; empty when there is none.
  static func load(from path: String = Config.path) -> Config {
    var config = Config()
    guard let data = FileManager.default.contents(atPath: path) else { return config }
    let text = String(decoding: data, as: UTF8.self)
    for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = rawLine.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") { continue }
      guard let equals = line.firstIndex(of: "=") else {
        config.warnings.append("\(path):\(offset + 1): expected 'key = value'")
        continue
      }
      let key = line[..<equals].trimmingCharacters(in: .whitespaces)
      var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      guard keys.contains(key) else {
        config.warnings.append("\(path):\(offset + 1): unknown key '\(key)' (keys: \(keys.joined(separator: ", ")))")
        continue
      }
      if value.count >= 2, value.first == "\"", value.last == "\"" { value = String(value.dropFirst().dropLast()) }
      if value.hasPrefix("~/") { value = (homeDirectory as NSString).appendingPathComponent(String(value.dropFirst(2))) }
      config.values[key] = value
    }
    return config
  }

  /// `arguments` with the file's values for the value options `options` has and the command
  /// line left out; `db` only when `SEARCHLIGHT_DB` does not set it either.
  func apply(to arguments: ParsedArguments, command: String, options: [OptionSpec]) -> ParsedArguments {
    var arguments = arguments
    for (key, value) in values where arguments.values[key] == nil && !arguments.flags.contains(key) {
      guard let spec = options.first(where: { $0.name == key }), spec.kind != .flag else { continue }
      if key == "format" && !Self.formatCommands.contains(command) { continue }
      if key == "db", let fromEnvironment = ProcessInfo.processInfo.environment["SEARCHLIGHT_DB"], !fromEnvironment.isEmpty {
        continue
      }
      arguments.values[key] = [value]
    }
    return arguments
  }
}
