extension WebPage {
  static let html = "<!doctype html><title>Searchlight</title><p>Searchlight</p>"
  static let script = ""
  static let style = ""
}
