/* site-builder serve: reloads the page after each good build and shows build errors over it.
   Added by the development server to the HTML it sends; never part of a built site. An external file
   and CSSOM styles (no inline script or style), so it runs under the site's Content-Security-Policy. */
(function () {
  "use strict";

  var script = document.currentScript;
  var loaded = Number(script && script.getAttribute("data-generation")) || 0;
  var base = script ? script.src.replace(/[^/]*$/, "") : "/__site_builder/";
  var OVERLAY_ID = "site-builder-errors";

  function styled(tag, styles, text) {
    var el = document.createElement(tag);
    Object.keys(styles).forEach(function (name) { el.style.setProperty(name, styles[name]); });
    if (text !== undefined) el.textContent = text;  // text only: messages quote the writer's input
    return el;
  }

  function hideOverlay() {
    var old = document.getElementById(OVERLAY_ID);
    if (old) old.remove();
  }

  function showOverlay(problems) {
    hideOverlay();
    var box = styled("section", {
      position: "fixed", left: "0", right: "0", bottom: "0", "z-index": "2147483647",
      "max-height": "60vh", overflow: "auto", margin: "0", padding: "1rem 1.25rem",
      background: "#3b0a0a", color: "#fff", "border-top": "4px solid #ff6b6b",
      font: "15px/1.45 system-ui, sans-serif", "text-align": "left", direction: "ltr"
    });
    box.id = OVERLAY_ID;
    box.setAttribute("role", "alert");
    box.setAttribute("lang", "en");
    box.setAttribute("aria-labelledby", OVERLAY_ID + "-title");
    var count = problems.length;
    var title = styled("h2", { margin: "0 0 .25rem", font: "bold 1.1rem/1.3 system-ui, sans-serif", color: "#fff" },
      "Build failed: " + count + " problem" + (count === 1 ? "" : "s"));
    title.id = OVERLAY_ID + "-title";
    box.appendChild(title);
    box.appendChild(styled("p", { margin: "0 0 .75rem", color: "#fff" },
      "This page is the last good build. Fix the problem and save: the page reloads by itself."));
    var list = styled("ol", { margin: "0", padding: "0 0 0 1.5rem" });
    problems.forEach(function (problem) {
      var item = styled("li", { margin: "0 0 .5rem" });
      item.appendChild(styled("pre", {
        margin: "0", "white-space": "pre-wrap", "overflow-wrap": "anywhere", color: "#fff",
        font: "14px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"
      }, problem.text));
      list.appendChild(item);
    });
    box.appendChild(list);
    var close = styled("button", {
      position: "absolute", top: ".5rem", right: ".75rem", font: "inherit", color: "#fff",
      background: "transparent", border: "1px solid #fff", "border-radius": "4px", padding: "0 .5rem",
      cursor: "pointer"
    }, "Hide");
    close.type = "button";
    close.setAttribute("aria-label", "Hide the build errors");
    close.addEventListener("click", hideOverlay);
    box.appendChild(close);
    document.body.appendChild(box);
  }

  function show(status) {
    if (status.generation !== loaded) {
      window.location.reload();  // a newer good build exists: show it (and its errors, if any, after)
    } else if (status.ok) {
      hideOverlay();
    } else {
      showOverlay(status.problems);
    }
  }

  // Only visible pages listen: a browser opens few connections per server, and each stream holds one.
  // A page shown again gets the current status at once, and reloads if the site changed meanwhile.
  var events = null;
  function listen() {
    if (events || document.hidden || !window.EventSource) return;
    events = new EventSource(base + "events");
    events.addEventListener("status", function (event) { show(JSON.parse(event.data)); });
  }
  function stop() {
    if (events) events.close();
    events = null;
  }
  document.addEventListener("visibilitychange", function () { if (document.hidden) stop(); else listen(); });
  window.addEventListener("pagehide", stop);
  window.addEventListener("pageshow", listen);
  listen();
})();
