/* site-builder: the search page. Loads Pagefind's index (of this page's language, by its <html lang>) and lists
   what it finds, linked from the site's root wherever it is served (any sub-path). The messages are the
   form's data attributes, in the page's language. Opened as a file, the browser will not load the index (nor
   compile its WebAssembly): the page says so and keeps its list of every page. */
(function () {
  "use strict";
  var form = document.querySelector("form.site-search");
  if (!form) return;
  if (location.protocol === "file:") {
    document.getElementById("search-offline").hidden = false;
    return;
  }
  var input = document.getElementById("search-query");
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var root = new URL(".", new URL(form.getAttribute("data-root"), location.href));
  var engine = null;
  var latest = 0;  // the newest query: an older one's results arriving late are dropped

  function message(name, query) {
    return form.getAttribute("data-" + name).replace("{query}", function () { return query; });  // "$&" stays
  }

  function load() {
    if (!engine) {
      var index = new URL(form.getAttribute("data-index"), location.href);
      // Result URLs start at the site's root, wherever it is served from (a sub-path).
      var options = { baseUrl: root.pathname, excerptLength: 24 };
      engine = import(index.href).then(function (pagefind) {
        return pagefind.options(options).then(function () {
          // The language's index comes in shards: this one lists the others, merged into it.
          return fetch(new URL("shards.json", index).href);
        }).then(function (response) {
          if (!response.ok) throw new Error("shards.json: " + response.status);
          return response.json();
        }).then(function (others) {
          return Promise.all(others.map(function (folder) {
            return pagefind.mergeIndex(new URL(folder, index).href, options);
          }));
        }).then(function () { return pagefind; });
      });
    }
    return engine;
  }

  // Pagefind's excerpt is escaped text with <mark> around the words found: rebuilt as nodes, never as HTML.
  var ENTITIES = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" };
  function unescape(text) {
    return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, function (entity, name) {
      if (name[0] !== "#") return ENTITIES[name.toLowerCase()] || entity;
      return String.fromCodePoint(name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10));
    });
  }

  function excerpt(html) {
    var p = document.createElement("p");
    html.split(/(<mark>.*?<\/mark>)/).forEach(function (part) {
      if (!part) return;
      var marked = /^<mark>/.test(part);
      var text = document.createTextNode(unescape(marked ? part.slice(6, -7) : part));
      if (marked) {
        var mark = document.createElement("mark");
        mark.appendChild(text);
        p.appendChild(mark);
      } else p.appendChild(text);
    });
    return p;
  }

  function show(results) {
    list.textContent = "";
    results.forEach(function (result) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = result.url;
      link.textContent = (result.meta && result.meta.title) || result.url;
      var section = result.meta && result.meta.section;
      if (section) {
        var kind = document.createElement("span");
        kind.className = "note";
        kind.textContent = section + " · ";
        item.appendChild(kind);
      }
      item.appendChild(link);
      item.appendChild(excerpt(result.excerpt || ""));
      list.appendChild(item);
    });
  }

  function run() {
    var query = input.value.trim();
    var ticket = ++latest;
    if (!query) {
      status.textContent = "";
      list.textContent = "";
      return;
    }
    status.textContent = message("searching", query);
    load().then(function (pagefind) {
      return pagefind.search(query);
    }).then(function (found) {
      return Promise.all(found.results.slice(0, 20).map(function (result) { return result.data(); }));
    }).then(function (results) {
      if (ticket !== latest) return;
      status.textContent = message(results.length ? "found" : "none", query);
      show(results);
    }, function () {
      if (ticket !== latest) return;
      status.textContent = message("failed", query);
      list.textContent = "";
    });
  }

  var timer = 0;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, 150);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();  // no page to submit to: results are shown here
    run();
  });
  form.hidden = false;
  var asked = new URLSearchParams(location.search).get("q");  // ?q=... (a link or a bookmark) searches at once
  if (asked) {
    input.value = asked;
    run();
  }
})();
