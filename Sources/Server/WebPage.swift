/// The web page at `/`: plain HTML, CSS and JavaScript shipped inside the binary (no build
/// step, no CDN), which calls the `/v1` API.
enum WebPage {
  static func response(for request: HTTPRequest) -> HTTPResponse {
    guard request.method == "GET" || request.method == "HEAD" else {
      var response = APIError.response(405, "method not allowed here; use GET")
      response.headers.append(("Allow", "GET"))
      return response
    }
    let security: [(name: String, value: String)] = [
      ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'"),
      ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"), ("Cache-Control", "no-cache"),
    ]
    switch request.path {
    case "/", "/index.html":
      var response = HTTPResponse.text(200, html, contentType: "text/html; charset=utf-8")
      response.headers += security
      return response
    case "/app.js":
      var response = HTTPResponse.text(200, script, contentType: "text/javascript; charset=utf-8")
      response.headers += security
      return response
    case "/app.css":
      var response = HTTPResponse.text(200, style, contentType: "text/css; charset=utf-8")
      response.headers += security
      return response
    default:
      return APIError.response(404, "no page '\(request.path)'")
    }
  }
}
