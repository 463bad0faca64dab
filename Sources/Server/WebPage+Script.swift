extension WebPage {
  /// The page's script: plain JavaScript, no framework, talking to `/v1`.
  static let script = #"""
    "use strict";
    const $ = (id) => document.getElementById(id);
    const state = { view: localStorage.getItem("searchlight.view") || "cards", last: null, askController: null };

    function el(tag, attributes, ...children) {
      const node = document.createElement(tag);
      for (const [key, value] of Object.entries(attributes || {})) {
        if (value === undefined || value === null || value === false) continue;
        if (key === "class") node.className = value;
        else if (key === "text") node.textContent = value;
        else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
        else node.setAttribute(key, value === true ? "" : value);
      }
      for (const child of children.flat(Infinity)) {
        if (child === null || child === undefined) continue;
        node.append(child instanceof Node ? child : document.createTextNode(String(child)));
      }
      return node;
    }

    function headers(extra) {
      const result = Object.assign({ "Content-Type": "application/json" }, extra || {});
      const token = sessionStorage.getItem("searchlight.token");
      if (token) result["Authorization"] = "Bearer " + token;
      return result;
    }

    async function api(path, options) {
      const response = await fetch(path, Object.assign({}, options, { headers: headers(options && options.headers) }));
      if (response.status === 401) {
        $("token-box").hidden = false;
        $("token").focus();
      }
      return response;
    }

    async function postJSON(path, body) {
      const response = await api(path, { method: "POST", body: JSON.stringify(body) });
      const text = await response.text();
      let json = null;
      try { json = text.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)); } catch (e) { json = null; }
      return { status: response.status, lines: json || [], text };
    }

    // MARK: Query or question

    /// True when the text reads as a plain question rather than the query language.
    function looksLikeQuestion(text) {
      if (/[=<>|&!()$"';]/.test(text) || /\b(search|let|group by|sort by)\b/.test(text)) return false;
      return /\s/.test(text.trim()) || /\?$/.test(text.trim());
    }

    function clearError() { $("error").hidden = true; $("error").replaceChildren(); }

    /// A query error with the source line, a caret under the span, and the hint.
    function showQueryError(text, error) {
      const box = $("error");
      box.replaceChildren();
      box.append(el("div", { class: "message", text: "error: " + error.message }));
      if (error.line) {
        const line = text.split("\n")[error.line - 1] || "";
        const column = Math.max(1, error.column || 1);
        const width = Math.max(1, (error.endColumn || column + 1) - column);
        box.append(el("pre", { class: "excerpt" }, el("span", { class: "source", text: line }), "\n",
          el("span", { class: "caret", text: " ".repeat(column - 1) + "^" + "~".repeat(width - 1) })));
        box.append(el("div", { class: "location", text: "--> query:" + error.line + ":" + column }));
      }
      if (error.hint) box.append(el("div", { class: "hint", text: "help: " + error.hint }));
      box.hidden = false;
    }

    function showMessage(message) {
      $("error").replaceChildren(el("div", { class: "message", text: message }));
      $("error").hidden = false;
    }

    async function run(text, mode) {
      text = text.trim();
      if (!text) return;
      clearError();
      $("item").hidden = true;
      $("results").hidden = false;
      $("facets").hidden = false;
      $("results").dataset.state = "running";
      let query = text;
      $("plan").hidden = true;
      if (mode === "question" || (mode === "auto" && looksLikeQuestion(text))) {
        const plan = await postJSON("/v1/plan", { question: text });
        if (plan.status !== 200) { return failed(text, plan); }
        const planned = plan.lines[0];
        query = planned.dsl;
        $("plan-text").textContent = planned.dsl + "\n\n" + (planned.notes || []).map((n) => "• " + n).join("\n");
        $("plan").hidden = false;
      }
      const result = await postJSON("/v1/query", { query, limit: 100 });
      if (result.status !== 200) { return failed(query, result); }
      state.last = { text, query, replies: result.lines };
      render();
      $("results").dataset.state = "done";
      loadFacets(query);
    }

    function failed(text, result) {
      $("results").dataset.state = "error";
      $("replies").replaceChildren();
      $("facets").replaceChildren();
      $("toolbar").hidden = true;
      const error = result.lines[0] && result.lines[0].error;
      if (error) showQueryError(text, error); else showMessage("error: HTTP " + result.status + " " + result.text);
    }

    // MARK: Results

    function attribute(item, name) { return item.attributes ? item.attributes[name] : undefined; }

    function display(value) {
      if (value === null || value === undefined) return "";
      if (Array.isArray(value)) return value.map(display).join(", ");
      if (typeof value === "object") return JSON.stringify(value);
      return String(value);
    }

    function title(item) { return display(attribute(item, "title") || attribute(item, "displayName") || item.id); }

    function itemLink(item) {
      return el("a", { href: "/?item=" + encodeURIComponent(item.id), "data-id": item.id, onclick: (event) => {
        event.preventDefault(); history.pushState(null, "", "/?item=" + encodeURIComponent(item.id)); showItem(item.id);
      } }, title(item));
    }

    function card(entry) {
      const item = entry.item || entry;
      const description = attribute(item, "contentDescription") || attribute(item, "textContent");
      const keywords = attribute(item, "keywords");
      const chips = [item.domain, item.contentType, attribute(item, "stateOrProvince")].filter(Boolean);
      return el("div", { class: "card result" },
        entry.score !== undefined ? el("span", { class: "score", text: entry.score.toFixed(3) }) : null,
        el("h3", {}, itemLink(item)),
        description ? el("p", { text: display(description).slice(0, 240) }) : null,
        el("div", { class: "chips" }, chips.map((c) => el("span", { class: "chip", text: c })),
          (Array.isArray(keywords) ? keywords : []).slice(0, 5).map((k) => el("span", { class: "chip", text: "#" + k }))));
    }

    function itemTable(entries) {
      const items = entries.map((e) => e.item || e);
      const names = [];
      for (const item of items) for (const name of Object.keys(item.attributes || {})) {
        if (!names.includes(name) && name !== "title" && name !== "textContent" && names.length < 6) names.push(name);
      }
      const scored = entries.some((e) => e.score !== undefined);
      return el("table", {},
        el("thead", {}, el("tr", {}, scored ? el("th", { text: "score" }) : null, el("th", { text: "title" }), el("th", { text: "domain" }),
          names.map((n) => el("th", { text: n })))),
        el("tbody", {}, entries.map((entry) => {
          const item = entry.item || entry;
          return el("tr", { class: "result" }, scored ? el("td", { text: entry.score.toFixed(3) }) : null, el("td", {}, itemLink(item)),
            el("td", { text: item.domain || "" }), names.map((n) => el("td", { text: display(attribute(item, n)).slice(0, 120) })));
        })));
    }

    function renderReply(reply) {
      const content = reply.content || {};
      const body = [];
      switch (content.type) {
        case "items":
        case "scoredItems":
          if (!content.items.length) body.push(el("p", { class: "empty", text: "No items." }));
          else if (state.view === "table") body.push(itemTable(content.items));
          else body.push(el("div", { class: "cards" }, content.items.map(card)));
          break;
        case "groupedItems":
          body.push(el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: content.attribute }), el("th", { text: "items" }))),
            el("tbody", {}, content.groups.map((g) => el("tr", {}, el("td", { text: display(g.key) }),
              el("td", {}, g.items.slice(0, 5).map((i) => [itemLink(i), " "]), g.items.length > 5 ? "… " + g.items.length : ""))))));
          break;
        case "count":
          body.push(el("div", { class: "big", text: String(content.count) }));
          break;
        case "table":
          body.push(el("table", {}, el("thead", {}, el("tr", {}, content.columns.map((c) => el("th", { text: c })))),
            el("tbody", {}, content.rows.map((row) => el("tr", {}, row.map((cell) => el("td", { text: display(cell) })))))));
          break;
        case "statistic":
          body.push(el("div", { class: "big", text: display(content.value) }), el("p", { class: "empty", text: content.function + " of " + content.attribute }));
          break;
        case "text":
          body.push(el("h3", { text: content.header || "" }), el("pre", { text: content.body || "" }));
          break;
        default:
          body.push(el("pre", { text: JSON.stringify(content, null, 2) }));
      }
      return el("div", { class: "reply", "data-type": content.type }, el("h2", {}, reply.label + " ", el("span", { class: "type", text: content.type })), body);
    }

    /// Item replies arrive in batches of one query token and label: shown as one list.
    function mergedReplies(replies) {
      const merged = [];
      for (const reply of replies) {
        const last = merged[merged.length - 1];
        const type = reply.content && reply.content.type;
        if (last && last.queryToken === reply.queryToken && last.label === reply.label && (type === "items" || type === "scoredItems") && last.content.type === type) {
          last.content = Object.assign({}, last.content, { items: last.content.items.concat(reply.content.items) });
        } else {
          merged.push(JSON.parse(JSON.stringify(reply)));
        }
      }
      return merged;
    }

    function render() {
      if (!state.last) return;
      const replies = mergedReplies(state.last.replies);
      const count = replies.reduce((n, r) => n + ((r.content.items && r.content.items.length) || 0), 0);
      $("summary").textContent = count + " item" + (count === 1 ? "" : "s");
      $("toolbar").hidden = false;
      $("view-cards").setAttribute("aria-pressed", String(state.view === "cards"));
      $("view-table").setAttribute("aria-pressed", String(state.view === "table"));
      $("replies").replaceChildren(...replies.map(renderReply));
    }

    // MARK: Facets

    async function loadFacets(query) {
      $("facets").replaceChildren();
      const result = await postJSON("/v1/facets", { query });
      if (result.status !== 200 || !result.lines[0]) return;
      for (const facet of result.lines[0].facets) {
        $("facets").append(el("h3", { text: facet.attribute === "domainIdentifier" ? "domain" : facet.attribute }),
          // Each group carries the query narrowed to it, made by the server from the query's syntax.
          el("ul", {}, facet.groups.slice(0, 12).map((group) => el("li", {}, el("button", { type: "button", class: "facet",
            disabled: !group.query, onclick: () => search(group.query, "query") },
            el("span", { text: display(group.key) || "(none)" }), el("span", { class: "count", text: String(group.count) }))))));
      }
    }

    // MARK: Ask

    async function ask(question) {
      question = question.trim();
      if (!question) return;
      if (state.askController) state.askController.abort();
      const controller = new AbortController();
      state.askController = controller;
      $("ask").hidden = false;
      document.querySelector("main").classList.remove("no-ask");
      $("ask").dataset.state = "streaming";
      $("answer").textContent = "";
      $("notices").replaceChildren();
      $("sources").replaceChildren();
      $("sources-title").hidden = true;
      try {
        const response = await api("/v1/ask", { method: "POST", body: JSON.stringify({ question }), headers: { Accept: "text/event-stream" }, signal: controller.signal });
        if (!response.ok) {
          const text = await response.text();
          $("notices").append(el("p", { text: "error: " + text }));
          $("ask").dataset.state = "error";
          return;
        }
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const line of block.split("\n")) if (line.startsWith("data: ")) handleEvent(JSON.parse(line.slice(6)));
          }
        }
        if ($("ask").dataset.state === "streaming") $("ask").dataset.state = "done";
      } catch (error) {
        if (error.name !== "AbortError") { $("notices").append(el("p", { text: "error: " + error.message })); $("ask").dataset.state = "error"; }
      }
    }

    function handleEvent(event) {
      switch (event.event) {
        case "text": $("answer").append(document.createTextNode(event.delta)); break;
        case "source": {
          const item = event.item;
          $("sources-title").hidden = false;
          const date = attribute(item, "contentModificationDate") || attribute(item, "contentCreationDate");
          $("sources").append(el("li", { class: "source-card" }, el("h4", {}, itemLink(item)),
            attribute(item, "contentDescription") ? el("p", { text: display(attribute(item, "contentDescription")).slice(0, 200) }) : null,
            el("div", { class: "chips" }, [item.domain, date && String(date).slice(0, 10)].filter(Boolean).map((c) => el("span", { class: "chip", text: c })))));
          break;
        }
        case "notice": $("notices").append(el("p", { text: "note: " + event.message })); break;
        case "unsupported": if (!event.dropped) $("answer").append(el("mark", { text: " [not in the sources: " + (event.missing || []).join(", ") + "]" })); break;
        case "error": $("notices").append(el("p", { text: "error: " + event.message })); $("ask").dataset.state = "error"; break;
        case "done": $("ask").dataset.state = "done"; break;
      }
    }

    // MARK: Item pages

    async function showItem(id) {
      clearError();
      $("results").hidden = true;
      $("facets").hidden = true;
      $("ask").hidden = true;
      const response = await api("/v1/items/" + encodeURIComponent(id));
      const json = await response.json().catch(() => null);
      const article = $("item");
      article.hidden = false;
      if (!response.ok || !json) {
        article.replaceChildren(el("p", { text: (json && json.error && json.error.message) || "error: HTTP " + response.status }));
        return;
      }
      const rows = [["id", json.id], ["domain", json.domain], ["contentType", json.contentType], ["expirationDate", json.expirationDate], ["protectionClass", json.protectionClass]]
        .concat(Object.entries(json.attributes || {})).filter(([, v]) => v !== undefined);
      article.replaceChildren(el("p", {}, el("a", { href: "/", onclick: (e) => { e.preventDefault(); history.back(); } }, "← Back")),
        el("h2", { text: title(json) }), el("dl", {}, rows.map(([k, v]) => [el("dt", { text: k }), el("dd", { text: display(v) })])));
    }

    // MARK: Wiring

    function search(text, mode) {
      $("q").value = text;
      const url = "/?q=" + encodeURIComponent(text);
      if (location.pathname + location.search !== url) history.pushState(null, "", url);
      return run(text, mode || $("mode").value);
    }

    function fromLocation() {
      const params = new URLSearchParams(location.search);
      if (params.get("item")) return showItem(params.get("item"));
      const q = params.get("q");
      const question = params.get("ask");
      const tasks = [];
      if (q) { $("q").value = q; tasks.push(run(q, params.get("mode") || "auto")); }
      if (question) { if (!q) $("q").value = question; tasks.push(ask(question)); }
      if (!q && !question) { $("results").hidden = false; $("facets").hidden = false; }
      return Promise.all(tasks);
    }

    document.addEventListener("DOMContentLoaded", () => {
      document.querySelector("main").classList.add("no-ask");
      $("search").addEventListener("submit", (event) => { event.preventDefault(); search($("q").value); });
      $("ask-button").addEventListener("click", () => {
        const url = "/?ask=" + encodeURIComponent($("q").value);
        history.pushState(null, "", url);
        ask($("q").value);
      });
      $("q").addEventListener("keydown", (event) => {
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); $("ask-button").click(); }
        if (event.key === "Escape") { $("q").value = ""; clearError(); }
      });
      document.addEventListener("keydown", (event) => {
        if (event.key === "/" && document.activeElement !== $("q") && !(document.activeElement instanceof HTMLInputElement)) { event.preventDefault(); $("q").focus(); }
      });
      for (const view of ["cards", "table"]) {
        $("view-" + view).addEventListener("click", () => { state.view = view; localStorage.setItem("searchlight.view", view); render(); });
      }
      $("token-save").addEventListener("click", () => {
        sessionStorage.setItem("searchlight.token", $("token").value);
        $("token-box").hidden = true;
        fromLocation();
      });
      window.addEventListener("popstate", fromLocation);
      fromLocation();
    });
    """#
}
