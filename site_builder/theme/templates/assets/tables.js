/* site-builder: filters for results tables (free text, submitter, accelerator, scored only).
   The controls are written into the page hidden, with their labels in the page's language: without this script
   the reader has the full table and no dead controls. Sorting stays with site.js; a filtered row is only hidden,
   so sorting moves it with the others. */
(function () {
  "use strict";

  var locale = document.documentElement.lang || undefined;

  // The value a reader sees in a row's cell for a column (data-col), or what the cell says it stands for
  // (data-value, e.g. "GB300" for "2,048 × GB300"). A result's system cell holds its detail view: take its summary.
  function cellValue(cell) {
    if (cell.hasAttribute("data-value")) return cell.getAttribute("data-value");
    var summary = cell.querySelector("summary");
    return (summary || cell).textContent.replace(/\s+/g, " ").trim();
  }

  function columnValue(row, column) {
    var cell = row.querySelector('[data-col="' + column + '"]');
    return cell ? cellValue(cell) : "";
  }

  function fillSelect(select, values) {
    var unique = values.filter(function (value, index) { return value && values.indexOf(value) === index; });
    unique.sort(function (a, b) { return a.localeCompare(b, locale); });
    unique.forEach(function (value) {
      var option = document.createElement("option");
      option.value = value;
      option.textContent = value;
      select.appendChild(option);
    });
    return unique.length;
  }

  function setUp(box) {
    var table = document.getElementById(box.getAttribute("data-table"));
    if (!table || !table.tBodies.length) return;
    var control = function (name) { return box.querySelector('[data-filter="' + name + '"]'); };
    var text = control("text"), submitter = control("submitter"), accelerator = control("accelerator"),
        scored = control("scored"), count = box.querySelector(".filter-count");
    var numbers = window.Intl ? new Intl.NumberFormat(locale) : { format: String };
    var entries = Array.prototype.map.call(table.tBodies[0].rows, function (row) {
      var searchable = Array.prototype.map.call(row.querySelectorAll("[data-col]"), cellValue).join(" ");
      return { row: row, submitter: columnValue(row, "submitter"), accelerator: columnValue(row, "accelerator"),
               text: searchable.toLocaleLowerCase(locale), scored: !row.classList.contains("unscored") };
    });

    // A list with one choice or fewer filters nothing: leave it out.
    [[submitter, "submitter"], [accelerator, "accelerator"]].forEach(function (pair) {
      var choices = fillSelect(pair[0], entries.map(function (e) { return e[pair[1]]; }));
      if (choices < 2) pair[0].parentElement.hidden = true;
    });
    if (entries.every(function (e) { return e.scored; })) scored.parentElement.hidden = true;

    function apply() {
      var words = text.value.toLocaleLowerCase(locale).split(/\s+/).filter(Boolean);
      var shown = 0;
      entries.forEach(function (e) {
        var visible = (!submitter.value || e.submitter === submitter.value) &&
                      (!accelerator.value || e.accelerator === accelerator.value) &&
                      (!scored.checked || e.scored) &&
                      words.every(function (word) { return e.text.indexOf(word) !== -1; });
        e.row.hidden = !visible;
        if (visible) shown += 1;
      });
      count.textContent = box.getAttribute("data-count").replace("{shown}", numbers.format(shown));
    }

    text.addEventListener("input", apply);
    [submitter, accelerator, scored].forEach(function (el) { el.addEventListener("change", apply); });
    box.hidden = false;
    apply();
  }

  document.querySelectorAll(".table-filter[data-table]").forEach(setUp);
})();
