// swift-tools-version: 6.0
// libFuzzer harnesses for Searchlight (issue 23). A package of its own because a harness has
// no `main` (libFuzzer's is linked in by `-sanitize=fuzzer`), so it cannot be an ordinary
// executable of the main package. Built (one product at a time, so the main package's own
// executable is not built as a library) and run by `make fuzz` from the package root:
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --product FuzzQuery
import PackageDescription

let package = Package(
  name: "SearchlightFuzz",
  dependencies: [.package(name: "Searchlight", path: "../..")],
  targets: [
    .target(name: "CFuzzer"),
    .executableTarget(
      name: "FuzzQuery",
      dependencies: [
        .product(name: "QueryEngine", package: "Searchlight"), .product(name: "Stages", package: "Searchlight"),
        .product(name: "SearchIndex", package: "Searchlight"), "CFuzzer",
      ]),
    .executableTarget(name: "FuzzItems", dependencies: [.product(name: "SearchIndex", package: "Searchlight"), "CFuzzer"]),
    .executableTarget(
      name: "FuzzToolCall",
      dependencies: [
        .product(name: "Assistant", package: "Searchlight"), .product(name: "QueryEngine", package: "Searchlight"), "CFuzzer",
      ]),
    .executableTarget(
      name: "FuzzStageFile",
      dependencies: [
        .product(name: "QueryEngine", package: "Searchlight"), .product(name: "Stages", package: "Searchlight"),
        .product(name: "SearchIndex", package: "Searchlight"), "CFuzzer",
      ]),
    .executableTarget(name: "FuzzFrontMatter", dependencies: [.product(name: "SearchIndex", package: "Searchlight"), "CFuzzer"]),
    .executableTarget(
      name: "FuzzMCP",
      dependencies: [
        .product(name: "Assistant", package: "Searchlight"), .product(name: "QueryEngine", package: "Searchlight"),
        .product(name: "Stages", package: "Searchlight"), .product(name: "SearchIndex", package: "Searchlight"), "CFuzzer",
      ]),
  ])
