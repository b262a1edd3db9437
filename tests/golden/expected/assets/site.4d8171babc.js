/* site-builder: draws charts with the local vega bundle and makes tables sortable.
   Everything works without this script: tables are complete and charts have a static SVG. */
(function () {
  "use strict";

  var resizeScheduled = false;
  function scheduleResize() {
    if (resizeScheduled) return;
    resizeScheduled = true;
    window.requestAnimationFrame(function () {
      resizeScheduled = false;
      window.dispatchEvent(new Event("resize"));
    });
  }

  function drawCharts() {
    if (typeof window.vegaEmbed !== "function") return;
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    document.querySelectorAll(".vega-chart[data-spec]").forEach(function (el) {
      var source = document.getElementById(el.getAttribute("data-spec"));
      if (!source) return;
      var spec = JSON.parse(source.textContent);
      // The page's Content-Security-Policy allows no eval and no inline style: parse expressions with Vega's
      // interpreter (ast + expr) and keep vega-embed and vega-tooltip from injecting <style> (site.css has the rules).
      var options = { actions: false, renderer: "svg", ast: true, expr: window.vega && window.vega.expressionInterpreter,
                      defaultStyle: false, tooltip: { disableDefaultStyle: true } };
      if (dark) options.theme = "dark";
      window.vegaEmbed(el, spec, options).then(function () {
        // Vega-Lite's "container" width follows window resizes only; a chart hidden at load (a tab, a
        // closed <details>) has no width, so tell Vega when its container gets a different width.
        if (!window.ResizeObserver) return;
        var lastWidth = el.clientWidth;
        new ResizeObserver(function () {
          if (el.clientWidth === lastWidth || el.clientWidth === 0) return;
          lastWidth = el.clientWidth;
          scheduleResize();
        }).observe(el);
      }).catch(function (error) { console.error(error); });
    });
  }

  function sortKey(cell) {
    var raw = cell.getAttribute("data-sort");
    if (raw === null) return { text: cell.textContent.trim().toLowerCase() };
    if (raw === "") return { missing: true };
    return { number: parseFloat(raw) };
  }

  function compare(a, b) {
    if (a.missing || b.missing) return a.missing === b.missing ? 0 : a.missing ? 1 : -1;
    if (a.number !== undefined && b.number !== undefined) return a.number - b.number;
    return String(a.text).localeCompare(String(b.text), document.documentElement.lang);
  }

  function makeSortable(table) {
    var headers = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(headers, function (th, column) {
      var button = document.createElement("button");
      button.type = "button";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(headers, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var k1 = sortKey(r1.cells[column]), k2 = sortKey(r2.cells[column]);
          var order = compare(k1, k2);
          if (k1.missing || k2.missing) return order;  // missing values stay last either way
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  }

  // In an embed page, tell the host page our height so its iframe can fit the chart (any origin may listen:
  // the message carries nothing but the height).
  function reportHeight() {
    var id = document.documentElement.getAttribute("data-embed");
    if (!id || window.parent === window) return;
    var send = function () {
      window.parent.postMessage({ type: "site-builder:height", chart: id,
                                  height: Math.ceil(document.documentElement.getBoundingClientRect().height) }, "*");
    };
    if (window.ResizeObserver) new ResizeObserver(send).observe(document.body);
    window.addEventListener("load", send);
    send();
  }

  function copyButtons() {
    document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source || !navigator.clipboard) return;
      button.hidden = false;
      var label = button.textContent;
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(source.value).then(function () {
          button.textContent = "✓ " + label;
          setTimeout(function () { button.textContent = label; }, 2000);
        });
      });
    });
  }

  // A link to a result row inside a closed <details> (an earlier round's results) opens it; browsers that
  // do not open it on their own would otherwise scroll to nothing.
  function revealTarget() {
    var target = window.location.hash && document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    var opened = false;
    for (var el = target && target.parentElement; el; el = el.parentElement) {
      if (el.tagName === "DETAILS" && !el.open) { el.open = true; opened = true; }
    }
    if (opened) target.scrollIntoView();
  }

  document.querySelectorAll("table.sortable").forEach(makeSortable);
  window.addEventListener("hashchange", revealTarget);
  revealTarget();
  drawCharts();
  reportHeight();
  copyButtons();
})();
