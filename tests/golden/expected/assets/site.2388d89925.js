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

  // Chart themes. Text colours reach at least 4.5:1 on their background; the spec's categorical colours
  // (Okabe-Ito) are swapped for the lighter variants its usermeta lists when the background is dark.
  var THEMES = {
    light: { background: "#ffffff", ink: "#1b1d21", soft: "#454b58", grid: "#e3e5ea", domain: "#8a909c" },
    dark: { background: "#121418", ink: "#e6e8ec", soft: "#c3c8d2", grid: "#2c313b", domain: "#7d8494" },
    print: { background: "#ffffff", ink: "#000000", soft: "#222222", grid: "#dddddd", domain: "#666666" }
  };
  var NARROW = 600;  // px of chart width below which the spec's narrow variant is drawn
  var darkQuery = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)");
  var printQuery = window.matchMedia && window.matchMedia("print");
  var printing = false;

  function themeName() {
    if (printing || (printQuery && printQuery.matches)) return "print";
    return darkQuery && darkQuery.matches ? "dark" : "light";
  }

  function themeConfig(name) {
    var t = THEMES[name];
    return {
      background: t.background,
      view: { stroke: t.grid },
      title: { color: t.ink, subtitleColor: t.soft },
      axis: { labelColor: t.soft, titleColor: t.ink, gridColor: t.grid, domainColor: t.domain, tickColor: t.domain },
      legend: { labelColor: t.soft, titleColor: t.ink, symbolBaseFillColor: t.soft, symbolBaseStrokeColor: t.soft },
      text: { color: t.ink },
      rule: { color: t.domain }
    };
  }

  // Lines of at most `width` pixels in `font`, measured, not counted in characters.
  var measureContext = document.createElement("canvas").getContext("2d");
  function wrap(text, font, width) {
    measureContext.font = font;
    var lines = [], line = "";
    text.split(/\s+/).forEach(function (word) {
      if (!word) return;
      var candidate = line ? line + " " + word : word;
      if (line && measureContext.measureText(candidate).width > width) { lines.push(line); line = word; }
      else line = candidate;
    });
    if (line) lines.push(line);
    return lines;
  }

  // Visit every object of a spec except its inline data (whose values are the data, not styling).
  function visit(node, fn) {
    if (Array.isArray(node)) { node.forEach(function (item) { visit(item, fn); }); return; }
    if (!node || typeof node !== "object") return;
    fn(node);
    Object.keys(node).forEach(function (key) { if (key !== "data" && key !== "datasets") visit(node[key], fn); });
  }

  function swapFields(spec, fields) {
    visit(spec, function (node) { if (typeof node.field === "string" && fields[node.field]) node.field = fields[node.field]; });
  }

  // The spec as drawn at this width and theme: titles wrapped to the measured width; when narrow, short axis
  // titles, optional layers dropped, legends in as many columns as fit (at most `columns`, when a drawing found
  // fewer to fit), long labels shortened with an ellipsis, x labels kept apart.
  function variant(source, width, theme, columns) {
    var spec = JSON.parse(source), meta = spec.usermeta || {};
    var font = (spec.config && spec.config.font) || "sans-serif";
    var room = Math.max(120, width - 24);
    var narrow = width < NARROW, variants = meta.narrow || {};
    if (meta.title && spec.title) {
      var lines = titleLines(meta, font, room, narrow);
      spec.title.text = lines[0];
      spec.title.subtitle = [].concat.apply([], lines.slice(1));
    }
    if (narrow) {
      var titles = variants.titles || {}, drop = variants.drop || [];
      visit(spec, function (node) {
        if (typeof node.title === "string" && titles[node.title]) node.title = titles[node.title];
        if (Array.isArray(node.layer)) node.layer = node.layer.filter(function (l) { return drop.indexOf(l.name) < 0; });
        if (node.legend && typeof node.legend === "object") {
          node.legend.columns = Math.max(1, Math.min(columns || 99, Math.floor(room / 150)));
          node.legend.labelLimit = 125;
          node.legend.titleLimit = room;
        }
      });
      swapFields(spec, variants.fields || {});
      var domains = variants.domains || {};
      visit(spec, function (node) {
        if (domains[node.field] && node.scale && node.scale.domain) node.scale.domain = domains[node.field];
      });
      spec.config = spec.config || {};
      spec.config.axisY = { labelLimit: Math.round(room * 0.4) };
      spec.config.axisX = { labelFontSize: 10, labelOverlap: "greedy", labelSeparation: 6 };
    }
    if (theme === "dark" && meta.dark) {
      var colours = meta.dark.colours || {};
      visit(spec, function (node) {
        if (node.scale && Array.isArray(node.scale.range)) {
          node.scale.range = node.scale.range.map(function (c) { return colours[String(c).toUpperCase()] || c; });
        }
      });
      swapFields(spec, meta.dark.fields || {});
    }
    return spec;
  }

  // What a redraw would change: the theme, the variant and the title's lines. Any other width change is
  // Vega's own (the "container" width follows a window resize).
  function titleLines(meta, font, room, narrow) {
    if (!meta.title) return [];
    var subtitle = meta.title.subtitle, short = narrow && meta.narrow && meta.narrow.subtitle;
    if (short) subtitle = [short].concat(subtitle.slice(1));  // what the narrow chart shows; the note stays
    return [wrap(meta.title.heading, "bold 15px " + font, room)].concat(subtitle.map(function (p) {
      return wrap(p, "12px " + font, room);
    }));
  }

  function layoutKey(el, theme) {
    var width = el.clientWidth, spec = el.chartSpec || {};
    var font = (spec.config && spec.config.font) || "sans-serif";
    return [theme, width < NARROW ? "narrow" : "wide",
            JSON.stringify(titleLines(spec.usermeta || {}, font, Math.max(120, width - 24), width < NARROW))].join(":");
  }

  // Whether a legend of the drawn chart reaches past its box (a legend starts where the plot does, after the
  // y labels, so how many columns fit is known once drawn).
  function legendOverflows(el) {
    var box = el.getBoundingClientRect();
    return Array.prototype.some.call(el.querySelectorAll("svg.marks .role-legend"), function (legend) {
      var r = legend.getBoundingClientRect();
      return r.right > box.right + 0.5 || r.left < box.left - 0.5;
    });
  }

  function draw(el, columns) {
    var source = document.getElementById(el.getAttribute("data-spec"));
    if (!source || el.clientWidth === 0) return;
    el.chartSpec = el.chartSpec || JSON.parse(source.textContent);
    var theme = themeName(), narrow = el.clientWidth < NARROW;
    el.setAttribute("data-theme", theme);
    el.setAttribute("data-layout", narrow ? "narrow" : "wide");
    el.chartKey = layoutKey(el, theme);
    var drawnColumns = Math.max(1, Math.min(columns || 99, Math.floor(Math.max(120, el.clientWidth - 24) / 150)));
    // The page's Content-Security-Policy allows no eval and no inline style: parse expressions with Vega's
    // interpreter (ast + expr) and keep vega-embed and vega-tooltip from injecting <style> (site.css has the rules).
    var options = { actions: false, renderer: "svg", ast: true, expr: window.vega && window.vega.expressionInterpreter,
                    defaultStyle: false, tooltip: { disableDefaultStyle: true }, config: themeConfig(theme) };
    var previous = el.chartView;
    window.vegaEmbed(el, variant(source.textContent, el.clientWidth, theme, columns), options).then(function (result) {
      if (previous) previous.finalize();
      el.chartView = result.view;
      // A narrow legend too wide for the box: drawn again with one column fewer (data-drawn waits for the last).
      if (narrow && drawnColumns > 1 && legendOverflows(el)) { draw(el, drawnColumns - 1); return; }
      el.setAttribute("data-drawn", el.chartKey);
    }).catch(function (error) { console.error(error); });
  }

  // Redrawn when the width changes (titles rewrap, the narrow variant comes or goes) or the colour scheme does.
  function drawCharts() {
    if (typeof window.vegaEmbed !== "function") return;
    var charts = document.querySelectorAll(".vega-chart[data-spec]");
    charts.forEach(function (el) {
      draw(el);
      if (!window.ResizeObserver) return;
      // A chart hidden at load (a tab, a closed <details>) has no width: it is drawn when it gets one.
      // Redrawn once per frame at most while a window is being resized.
      var pending = false;
      new ResizeObserver(function () {
        if (pending || el.clientWidth === 0 || el.clientWidth === el.lastWidth) return;
        el.lastWidth = el.clientWidth;
        if (el.chartKey === layoutKey(el, themeName())) { scheduleResize(); return; }
        pending = true;
        window.requestAnimationFrame(function () {
          pending = false;
          draw(el);
          scheduleResize();
        });
      }).observe(el);
    });
    var redrawAll = function () { charts.forEach(function (el) { draw(el); }); };
    [darkQuery, printQuery].forEach(function (query) {
      if (query && query.addEventListener) query.addEventListener("change", redrawAll);
    });
    window.addEventListener("beforeprint", function () { printing = true; redrawAll(); });
    window.addEventListener("afterprint", function () { printing = false; redrawAll(); });
  }

  // A cell's sort key: its data-sort, else its text; a number when the whole key is one (an id such as
  // "8xH100" is text, not 8), and nothing to sort by when it is empty (such rows stay last either way).
  function sortKey(cell) {
    var raw = cell.getAttribute("data-sort");
    var key = (raw === null ? cell.textContent : raw).trim();
    if (key === "") return { missing: true };
    return raw !== null && NUMBER.test(key) ? { number: Number(key) } : { text: key };
  }
  // In the page's language, digits by their value ("node 2" before "node 10"), case and accents aside.
  var COLLATOR = new Intl.Collator(document.documentElement.lang || undefined, { numeric: true, sensitivity: "base" });
  var NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

  function compare(a, b) {
    if (a.missing || b.missing) return a.missing === b.missing ? 0 : a.missing ? 1 : -1;
    if (a.number !== undefined && b.number !== undefined) return a.number - b.number;
    if (a.number !== undefined || b.number !== undefined) return a.number !== undefined ? -1 : 1;
    return COLLATOR.compare(a.text, b.text);
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

  // A link to a result's row or to one of its cells (a bound figure's value), once the browser has scrolled to
  // it: the table's header comes into view too when header and row fit in the window together (else the row
  // stays below the window's top, site.css's scroll-margin), and a cell off to the side of its scroll box, or
  // under the first column that stays in place, is scrolled into view inside the box. Only scroll positions
  // change, never the layout.
  var MARGIN = 12;  // px
  function landOn(target) {
    var row = target.closest(".data-table tr");
    if (!row) return;
    var head = row.closest("table").tHead;
    if (head) {
      var top = head.getBoundingClientRect().top, bottom = row.getBoundingClientRect().bottom;
      if (bottom - top + 2 * MARGIN <= window.innerHeight) window.scrollBy(0, top - MARGIN);
    }
    var box = row.closest(".table-scroll");
    if (!box || target === row || !target.getClientRects().length) return;
    var cell = target.getBoundingClientRect(), frame = box.getBoundingClientRect();
    var first = row.cells[0].getBoundingClientRect();
    var rtl = getComputedStyle(box).direction === "rtl";
    var start = rtl ? frame.left : first.right, end = rtl ? first.left : frame.right;  // what the box shows
    if (cell.right > end) box.scrollLeft += cell.right - end + MARGIN;
    else if (cell.left < start) box.scrollLeft -= start - cell.left + MARGIN;
  }

  // A link to a result inside a closed <details> (an earlier round's results) opens it; browsers that do not
  // open it on their own would otherwise scroll to nothing. A cell that a phone's layout hides (a column left
  // for the detail view) has nowhere to scroll to: its row is scrolled to instead.
  function revealTarget() {
    var target = window.location.hash && document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    if (!target) return;
    var opened = false;
    for (var el = target.parentElement; el; el = el.parentElement) {
      if (el.tagName === "DETAILS" && !el.open) { el.open = true; opened = true; }
    }
    var shown = target.getClientRects().length ? target : target.closest("tr");
    if (opened || shown !== target) (shown || target).scrollIntoView();
    landOn(target);
  }

  document.querySelectorAll("table.sortable").forEach(makeSortable);
  // Printing opens every closed <details> (browsers without ::details-content print them closed), and closes
  // them again afterwards.
  var openedForPrint = [];
  window.addEventListener("beforeprint", function () {
    openedForPrint = Array.prototype.filter.call(document.querySelectorAll("details:not([open])"), function (d) {
      d.open = true;
      return true;
    });
  });
  window.addEventListener("afterprint", function () {
    openedForPrint.forEach(function (d) { d.open = false; });
    openedForPrint = [];
  });
  window.addEventListener("hashchange", revealTarget);
  revealTarget();
  // Again once the page has loaded (the browser may scroll to the fragment after this script has run), unless
  // the reader has begun to scroll or click meanwhile.
  var reading = false;
  ["wheel", "touchstart", "keydown", "pointerdown"].forEach(function (name) {
    window.addEventListener(name, function () { reading = true; }, { once: true, passive: true });
  });
  window.addEventListener("load", function () { if (!reading) revealTarget(); });
  drawCharts();
  reportHeight();
  copyButtons();
})();
