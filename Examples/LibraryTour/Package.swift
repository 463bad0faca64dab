// swift-tools-version: 6.0
import PackageDescription

// An app's-eye view of Searchlight: built against the library's public API only, from a
// path dependency on the repository (CI builds and runs it: `make example`).
let package = Package(
  name: "LibraryTour",
  platforms: [.macOS(.v15)],
  dependencies: [.package(name: "Searchlight", path: "../..")],
  targets: [
    .executableTarget(
      name: "LibraryTour",
      dependencies: [
        .product(name: "SearchIndex", package: "Searchlight"),
        .product(name: "QueryEngine", package: "Searchlight"),
        .product(name: "Stages", package: "Searchlight"),
        .product(name: "Assistant", package: "Searchlight"),
      ])
  ],
  swiftLanguageModes: [.v6]
)
