/* site-builder: draws charts with the local vega bundle and makes tables sortable.
   Everything works without this script: tables are complete and charts have a static SVG. */
(function () {
  "use strict";

  function drawCharts() {
    if (typeof window.vegaEmbed !== "function") return;
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    document.querySelectorAll(".vega-chart[data-spec]").forEach(function (el) {
      var source = document.getElementById(el.getAttribute("data-spec"));
      if (!source) return;
      var spec = JSON.parse(source.textContent);
      var options = { actions: false, renderer: "svg" };
      if (dark) options.theme = "dark";
      window.vegaEmbed(el, spec, options).then(function (result) {
        // Charts hidden at load have no width: redraw when they become visible or change size.
        if (window.ResizeObserver) {
          new ResizeObserver(function () { result.view.resize().runAsync(); }).observe(el);
        }
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

  document.querySelectorAll("table.sortable").forEach(makeSortable);
  drawCharts();
})();
