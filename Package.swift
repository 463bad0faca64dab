// swift-tools-version: 6.0
import PackageDescription

// Dependencies point one way (DESIGN §1):
// searchlight -> Assistant -> Stages -> QueryEngine -> SearchIndex -> CSQLite (and CLibXML2, for HTML);
// Evaluation (eval and bench) sits beside Assistant: searchlight -> Evaluation -> Stages;
// Server (`serve`: HTTP on libmicrohttpd) sits above Assistant: searchlight -> Server -> Assistant,
// and Server -> CMicroHTTPD.
let package = Package(
  name: "Searchlight",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "SearchIndex", targets: ["SearchIndex"]),
    .library(name: "QueryEngine", targets: ["QueryEngine"]),
    .library(name: "Stages", targets: ["Stages"]),
    .library(name: "Assistant", targets: ["Assistant"]),
    .library(name: "Evaluation", targets: ["Evaluation"]),
    .library(name: "Server", targets: ["Server"]),
    .executable(name: "searchlight", targets: ["searchlight"]),
  ],
  targets: [
    .systemLibrary(
      name: "CSQLite", path: "Sources/CSQLite",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite3"])]),
    .systemLibrary(
      name: "CPCRE2", path: "Sources/CPCRE2",
      providers: [.apt(["libpcre2-dev"]), .brew(["pcre2"])]),
    .systemLibrary(
      name: "CEditLine", path: "Sources/CEditLine",
      providers: [.apt(["libedit-dev"]), .brew(["libedit"])]),
    .systemLibrary(
      name: "CMicroHTTPD", path: "Sources/CMicroHTTPD",
      providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
    .systemLibrary(
      name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
      providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]),
    .systemLibrary(
      name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
    .systemLibrary(
      name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd",
      providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
    .systemLibrary(name: "CMalloc", path: "Sources/CMalloc", providers: [.apt(["libc6-dev"])]),
    .target(name: "SearchIndex", dependencies: ["CSQLite", "CLibXML2", "CZlib", "CZstd"]),
    .target(name: "QueryEngine", dependencies: ["SearchIndex", "CPCRE2"]),
    .target(name: "Stages", dependencies: ["QueryEngine", "SearchIndex"], path: "Stages", exclude: ["Examples"]),
    .target(name: "Assistant", dependencies: ["Stages", "QueryEngine", "SearchIndex"]),
    .target(name: "Evaluation", dependencies: ["Assistant", "QueryEngine", "SearchIndex", "Stages"]),
    .target(name: "Server", dependencies: ["Assistant", "Stages", "QueryEngine", "SearchIndex", "CMicroHTTPD"]),
    .executableTarget(
      name: "searchlight",
      dependencies: [
        "Assistant", "Evaluation", "Server", "Stages", "QueryEngine", "SearchIndex", "CEditLine",
        .target(name: "CMalloc", condition: .when(platforms: [.linux])),
      ],
      resources: [.copy("Samples")]),
    .testTarget(name: "SearchIndexTests", dependencies: ["SearchIndex", "SearchlightTestSupport"]),
    .target(name: "SearchlightTestSupport", dependencies: ["QueryEngine", "SearchIndex", "CZlib"], path: "Tests/TestSupport"),
    .testTarget(name: "GrammarTests", dependencies: ["Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport"]),
    .testTarget(name: "CustomStageTests", dependencies: ["Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport"]),
    .testTarget(name: "SyncTests", dependencies: ["Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport"]),
    .testTarget(name: "MCPTests", dependencies: ["Assistant", "Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport"]),
    .testTarget(name: "QueryEngineTests", dependencies: ["QueryEngine", "SearchIndex", "SearchlightTestSupport"]),
    .testTarget(name: "StagesTests", dependencies: ["Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport"]),
    .testTarget(name: "ToolTests", dependencies: ["Assistant", "Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport"]),
    .testTarget(name: "AssistantTests", dependencies: ["Assistant", "Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport", "searchlight"]),
    .testTarget(name: "EvaluationTests", dependencies: ["Evaluation", "Stages", "QueryEngine", "SearchIndex"]),
    .testTarget(name: "AnswerTests", dependencies: ["Assistant", "Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport"]),
    .testTarget(name: "EmbeddingTests", dependencies: ["Assistant", "Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport"]),
    .testTarget(name: "CommandLineTests", dependencies: ["searchlight", "SearchIndex", "SearchlightTestSupport"]),
    .testTarget(name: "ServerTests", dependencies: ["Server", "Assistant", "Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport"]),
    .testTarget(name: "RankedTests", dependencies: ["Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport"]),
    // A real llama.cpp server and model, when the environment names them (.ci/run does).
    .testTarget(name: "LocalModelTests", dependencies: ["Assistant", "Stages", "QueryEngine", "SearchIndex", "SearchlightTestSupport", "searchlight"]),
  ],
  swiftLanguageModes: [.v6]
)
