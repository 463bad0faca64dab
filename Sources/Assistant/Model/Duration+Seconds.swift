extension Duration {
  /// The duration as fractional seconds, for Foundation and Dispatch APIs and messages.
  var inSeconds: Double {
    let parts = components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
  }
}
