/// Every subcommand, in the order `searchlight --help` lists them.
enum CommandList {
  static let all: [any Command.Type] = [
    IndexCommand.self, DeleteCommand.self, EngageCommand.self, StatsCommand.self, ParseCommand.self, QueryCommand.self,
    ExplainCommand.self, StagesCommand.self, ReplCommand.self, ToolCallCommand.self, ToolSchemaCommand.self, MCPCommand.self, PlanCommand.self, SyncCommand.self,
    CheckCommand.self, RebuildCommand.self, AskCommand.self, EmbeddingsCommand.self, DemoCommand.self, EvalCommand.self, BenchCommand.self, ServeCommand.self,
    CompletionsCommand.self, ManCommand.self,
  ]

  static let version = "0.1.0"
}
