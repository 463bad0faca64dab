extension WebPage {
  /// The page: a search box, results with facets, an Ask panel, item pages (`/?item=ID`).
  static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <title>Searchlight</title>
    <link rel="stylesheet" href="/app.css">
    <script src="/app.js" defer></script>
    </head>
    <body>
    <header>
      <a class="brand" href="/">Searchlight</a>
      <form id="search" role="search" autocomplete="off">
        <label class="visually-hidden" for="q">Query or question</label>
        <input id="q" name="q" type="search" placeholder='A query (keywords == "waterfall"c) or a question (hikes in California)' spellcheck="false" accesskey="s">
        <select id="mode" aria-label="How to read the text" title="How to read the text">
          <option value="auto">Auto</option>
          <option value="query">Query language</option>
          <option value="question">Plain question</option>
        </select>
        <button type="submit" id="go">Search</button>
        <button type="button" id="ask-button" title="Ask (Ctrl+Enter)">Ask</button>
      </form>
      <div id="token-box" hidden>
        <label for="token">Bearer token</label>
        <input id="token" type="password" autocomplete="off">
        <button type="button" id="token-save">Use token</button>
      </div>
    </header>
    <div id="error" role="alert" hidden></div>
    <details id="plan" hidden><summary>Planned query</summary><pre id="plan-text"></pre></details>
    <main>
      <aside id="facets" aria-label="Facets"></aside>
      <section id="results" aria-live="polite" data-state="idle">
        <div class="toolbar" id="toolbar" hidden>
          <span id="summary"></span>
          <span class="views" role="group" aria-label="View">
            <button type="button" id="view-cards" aria-pressed="true">Cards</button>
            <button type="button" id="view-table" aria-pressed="false">Table</button>
          </span>
        </div>
        <div id="replies"></div>
      </section>
      <section id="ask" aria-live="polite" data-state="idle" hidden>
        <h2>Answer</h2>
        <div id="answer"></div>
        <div id="notices"></div>
        <h3 id="sources-title" hidden>Sources</h3>
        <ol id="sources"></ol>
      </section>
      <article id="item" hidden></article>
    </main>
    <footer>Keys: <kbd>/</kbd> search, <kbd>Enter</kbd> run, <kbd>Ctrl</kbd>+<kbd>Enter</kbd> ask, <kbd>Esc</kbd> clear. API: <a href="/v1/openapi.json">/v1/openapi.json</a></footer>
    </body>
    </html>
    """#

  static let style = #"""
    :root { --bg: #fafafa; --fg: #1d1d1f; --muted: #6e6e73; --card: #fff; --line: #d2d2d7; --accent: #0066cc; --bad: #c9190b; --chip: #eef2f7; }
    @media (prefers-color-scheme: dark) {
      :root { --bg: #161617; --fg: #f5f5f7; --muted: #a1a1a6; --card: #1f1f21; --line: #3a3a3c; --accent: #4da3ff; --bad: #ff6b5e; --chip: #2a2d33; }
    }
    * { box-sizing: border-box; }
    body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--fg); }
    a { color: var(--accent); }
    header { position: sticky; top: 0; z-index: 1; display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .75rem 1rem; background: var(--bg); border-bottom: 1px solid var(--line); }
    .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
    form#search { display: flex; flex: 1 1 30rem; gap: .4rem; flex-wrap: wrap; }
    #q { flex: 1 1 18rem; min-width: 0; font: 15px ui-monospace, SFMono-Regular, Menlo, monospace; padding: .5rem .6rem; border: 1px solid var(--line); border-radius: 8px; background: var(--card); color: var(--fg); }
    button, select, input { font: inherit; }
    button, select { padding: .45rem .8rem; border: 1px solid var(--line); border-radius: 8px; background: var(--card); color: var(--fg); cursor: pointer; }
    button[type=submit], #ask-button { background: var(--accent); color: #fff; border-color: var(--accent); }
    button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
    #token-box { display: flex; gap: .4rem; align-items: center; }
    #token-box[hidden] { display: none; }
    .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
    #error { margin: .75rem 1rem 0; padding: .6rem .8rem; border: 1px solid var(--bad); border-radius: 8px; color: var(--fg); }
    #error .message { color: var(--bad); font-weight: 600; }
    #error pre { margin: .4rem 0; font: 14px/1.3 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre; overflow-x: auto; }
    #error .caret { color: var(--bad); }
    #error .hint { color: var(--muted); }
    #plan { margin: .5rem 1rem 0; color: var(--muted); }
    #plan pre { white-space: pre-wrap; color: var(--fg); }
    main { display: grid; grid-template-columns: 14rem minmax(0, 1fr) minmax(0, 24rem); gap: 1rem; padding: 1rem; align-items: start; }
    main.no-ask { grid-template-columns: 14rem minmax(0, 1fr); }
    @media (max-width: 900px) { main, main.no-ask { grid-template-columns: minmax(0, 1fr); } #facets { order: 2; } #ask { order: 0; } }
    #facets h3 { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: .8rem 0 .3rem; }
    #facets ul { list-style: none; margin: 0; padding: 0; }
    #facets li button { display: flex; width: 100%; justify-content: space-between; gap: .5rem; border: 0; border-radius: 6px; padding: .2rem .4rem; background: transparent; text-align: left; color: var(--fg); }
    #facets li button:hover { background: var(--chip); }
    #facets .count { color: var(--muted); font-variant-numeric: tabular-nums; }
    .toolbar { display: flex; justify-content: space-between; align-items: center; gap: 1rem; margin-bottom: .5rem; color: var(--muted); }
    .views button[aria-pressed=true] { background: var(--chip); font-weight: 600; }
    .reply { margin-bottom: 1.2rem; }
    .reply > h2 { font-size: 1rem; margin: 0 0 .5rem; }
    .reply > h2 .type { color: var(--muted); font-weight: 400; font-size: .85rem; }
    .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: .75rem; }
    .card, .source-card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: .75rem .9rem; overflow-wrap: anywhere; }
    .card h3, .source-card h4 { margin: 0 0 .25rem; font-size: 1rem; }
    .card p, .source-card p { margin: .25rem 0; color: var(--muted); font-size: .9rem; }
    .chips { display: flex; flex-wrap: wrap; gap: .25rem; margin-top: .4rem; }
    .chip { background: var(--chip); border-radius: 999px; padding: .05rem .5rem; font-size: .8rem; }
    .score { float: right; color: var(--muted); font-size: .8rem; font-variant-numeric: tabular-nums; }
    table { border-collapse: collapse; width: 100%; background: var(--card); border: 1px solid var(--line); border-radius: 8px; overflow: hidden; display: block; overflow-x: auto; }
    th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
    th { font-size: .8rem; color: var(--muted); }
    .big { font-size: 2.4rem; font-weight: 700; }
    .empty { color: var(--muted); }
    #ask { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: .9rem; }
    #ask h2 { margin: 0 0 .5rem; font-size: 1rem; }
    #ask[data-state=streaming] h2::after { content: " …"; color: var(--muted); }
    #answer { white-space: pre-wrap; }
    #notices { color: var(--muted); font-size: .85rem; }
    #sources { padding-left: 1.4rem; display: grid; gap: .5rem; }
    #item { grid-column: 1 / -1; background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 1rem 1.2rem; }
    #item dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
    #item dt { color: var(--muted); }
    #item dd { margin: 0; overflow-wrap: anywhere; white-space: pre-wrap; }
    footer { padding: 1rem; color: var(--muted); font-size: .85rem; }
    kbd { border: 1px solid var(--line); border-radius: 4px; padding: 0 .3rem; font-size: .8rem; }
    [hidden] { display: none !important; }
    """#
}
