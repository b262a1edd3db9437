"""`site-builder serve` used as a writer uses it: open a page, edit, see it reload; break the front matter,
see the error (terminal, status, overlay) over the last good page; fix it, see the error go."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder import serve as serve_module
from site_builder.build import build_site
from site_builder.cli import main
from site_builder.serve import EVENTS, SCRIPT, STATUS, inject_script, serve
from tests.conftest import PATIENCE, ROOT
from tests.site_checks import wait_until

ARTICLE = "content/en/hello.md"
PAGE = "en/articles/hello/"


@contextlib.contextmanager
def serving(root: Path, log: list[str] | None = None):
    """`serve` on a free port in a background thread; yields its URL and stops it on exit."""
    stop, started, failure, urls = threading.Event(), threading.Event(), [], []

    def run():
        try:
            serve(root, "127.0.0.1", 0, log=(log if log is not None else []).append,
                  ready=lambda url: (urls.append(url), started.set()), stop=stop)
        except BaseException as error:  # handed to the test below
            failure.append(error)
            started.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(PATIENCE), "serve did not start"
    if failure:
        raise failure[0]
    try:
        yield urls[0]
    finally:
        stop.set()
        thread.join(PATIENCE)
        assert not thread.is_alive(), "serve did not stop"
    if failure:
        raise failure[0]


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=PATIENCE) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def status_of(url: str) -> dict:
    return json.loads(fetch(url + STATUS.lstrip("/"))[1])


def wait_for(url: str, predicate, timeout: float = PATIENCE) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        status = status_of(url)
        if predicate(status):
            return status
        assert time.monotonic() < deadline, f"status never changed as expected: {status}"
        time.sleep(0.1)


class EventStream:
    """Reads the server's event stream in a thread; `next()` gives the next status payload."""

    def __init__(self, url: str) -> None:
        host, port = url.split("//")[1].rstrip("/").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=PATIENCE)
        self.connection.request("GET", EVENTS)
        self.socket = self.connection.sock  # the response takes it over; kept to end the stream
        response = self.connection.getresponse()
        assert response.status == 200 and response.getheader("Content-Type") == "text/event-stream"
        self.payloads: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(response,), daemon=True).start()

    def _read(self, response) -> None:
        event = None
        with contextlib.suppress(OSError, ValueError, http.client.HTTPException):
            for raw in response:
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith("event: "):
                    event = line[len("event: "):]
                elif line.startswith("data: ") and event == "status":
                    self.payloads.put(json.loads(line[len("data: "):]))

    def next(self, timeout: float = PATIENCE) -> dict:
        return self.payloads.get(timeout=timeout)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.socket.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def edit(root: Path, old: str, new: str) -> None:
    path = root / ARTICLE
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_inject_script_goes_before_the_last_body_end_tag():
    page = b"<html><body><p>&lt;/body&gt; in text</p></BODY></html>"
    assert inject_script(page, 7) == (b'<html><body><p>&lt;/body&gt; in text</p><script src="/__site_builder/'
                                      b'livereload.js" data-generation="7"></script>\n</BODY></html>')
    assert inject_script(b"<p>fragment", 1).startswith(b"<p>fragment<script src=")


@pytest.mark.slow
def test_a_writer_edits_breaks_and_fixes_an_article(mini_site, monkeypatch):
    folders = []
    real_mkdtemp = serve_module.tempfile.mkdtemp
    monkeypatch.setattr(serve_module.tempfile, "mkdtemp",
                        lambda **kw: folders.append(Path(real_mkdtemp(**kw))) or str(folders[-1]))
    log: list[str] = []
    with serving(mini_site, log) as url:
        code, html = fetch(url + PAGE)
        assert code == 200 and "Some text with a footnote." in html
        assert f'<script src="{SCRIPT}" data-generation="1"></script>\n</body>' in html
        code, script = fetch(url + SCRIPT.lstrip("/"))
        assert code == 200 and "EventSource" in script and 'role", "alert"' in script
        events = EventStream(url)
        try:
            assert events.next() == {"generation": 1, "ok": True, "problems": []}

            edit(mini_site, "Some text with a footnote.", "Text rewritten while serving.")
            assert events.next() == {"generation": 2, "ok": True, "problems": []}  # tells the page to reload
            html = fetch(url + PAGE)[1]
            assert "Text rewritten while serving." in html and 'data-generation="2"' in html
            assert any(line == f"changed: {ARTICLE}" for line in log), log

            edit(mini_site, 'title: "Hello, round"', 'title: "Hello, round\nbroken: [')
            broken = events.next()
            assert broken["generation"] == 2 and broken["ok"] is False
            problem = broken["problems"][0]
            assert (problem["path"], problem["line"]) == (ARTICLE, 5)
            assert problem["text"].startswith(f"{ARTICLE}:5: error: invalid YAML front matter")
            assert status_of(url) == broken
            code, html = fetch(url + PAGE)  # the last good page is still served, with the script
            assert code == 200 and "Text rewritten while serving." in html and 'data-generation="2"' in html
            assert problem["text"] in log  # the terminal shows the same problem, as `build` prints it
            assert any(line.startswith("build failed: 1 problem; the last good site is still served")
                       for line in log)

            edit(mini_site, 'title: "Hello, round\nbroken: [', 'title: "Hello again"')
            assert events.next() == {"generation": 3, "ok": True, "problems": []}
            assert "<title>Hello again" in fetch(url + PAGE)[1]
        finally:
            events.close()
        work = folders[0]
        built = [path for path in work.rglob("*.html")]
        assert built and not any(SCRIPT.encode() in path.read_bytes() for path in built)  # disk stays clean
    assert not work.exists()  # the private folder goes with the server


@pytest.mark.slow
def test_first_build_failing_serves_a_placeholder_until_fixed_then_the_site(mini_site):
    article = mini_site / ARTICLE
    good = article.read_text()
    article.write_text(good.replace("date: 2026-06-20", "date: soon"))
    with serving(mini_site) as url:
        status = status_of(url)
        assert status["generation"] == 0 and not status["ok"]
        assert status["problems"][0]["path"] == ARTICLE
        code, html = fetch(url + PAGE)
        assert code == 503 and "The first build failed" in html and 'data-generation="0"' in html
        article.write_text(good)
        wait_for(url, lambda s: s["generation"] == 1 and s["ok"])
        assert fetch(url + PAGE)[0] == 200

        code, html = fetch(url + "en/no-such-page/")  # the site's own 404 page, with the script
        assert code == 404 and 'data-generation="1"' in html and "404" in html
        assert 'href="/en/index.html"' in html  # the site's own path on this server, not the public site's
        code, robots = fetch(url + "robots.txt")  # other files exactly as built
        assert code == 200 and "Sitemap:" in robots and SCRIPT not in robots
        request = urllib.request.Request(url + PAGE, method="HEAD")
        with urllib.request.urlopen(request, timeout=PATIENCE) as response:
            assert response.status == 200 and int(response.headers["Content-Length"]) > 0
            assert response.headers["Cache-Control"] == "no-store"


@pytest.mark.slow
def test_site_toml_changes_rebuild_and_a_moved_content_folder_is_watched(mini_site):
    with serving(mini_site) as url:
        config = mini_site / "site.toml"
        replaced = config.with_suffix(".new")  # as editors save: write beside, then rename over
        replaced.write_text(config.read_text().replace('en = "Mini report"', 'en = "Renamed report"'))
        replaced.replace(config)
        wait_for(url, lambda s: s["generation"] == 2)
        assert "Renamed report" in fetch(url + "en/")[1]
        edit(mini_site, "Some text with a footnote.", "Still watched after site.toml changed.")
        wait_for(url, lambda s: s["generation"] == 3)
        assert "Still watched after site.toml changed." in fetch(url + PAGE)[1]

        shutil.copytree(mini_site / "content", mini_site / "articles")
        replaced.write_text(config.read_text().replace("[title]", 'content_dir = "articles"\n\n[title]'))
        replaced.replace(config)  # a second replacement of site.toml is seen too
        wait_for(url, lambda s: s["generation"] == 4)
        moved = mini_site / "articles/en/hello.md"
        moved.write_text(moved.read_text().replace("Still watched", "Watched in its new folder"))
        wait_for(url, lambda s: s["generation"] == 5)
        assert "Watched in its new folder after site.toml changed." in fetch(url + PAGE)[1]


def test_port_in_use_is_a_clear_error(mini_site):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", "--root", str(mini_site), "--port", str(port)])
    assert result.exit_code == 1
    assert f"error: port {port} on 127.0.0.1 is already in use" in result.stderr
    assert "hint: choose another with --port" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("flag, opened", [("--open", ["http://127.0.0.1:8123/"]), ("--no-open", [])])
def test_open_starts_a_browser_at_the_served_address(mini_site, monkeypatch, flag, opened):
    calls = []

    def fake_serve(root, host, port, log, ready):  # stands in for the server: it is ready at once
        assert (root, host, port) == (mini_site, "127.0.0.1", 8123)
        ready(f"http://{host}:{port}/")

    monkeypatch.setattr(serve_module, "serve", fake_serve)
    monkeypatch.setattr("webbrowser.open", calls.append)
    result = CliRunner().invoke(main, ["serve", "--root", str(mini_site), "--port", "8123", flag])
    assert result.exit_code == 0 and calls == opened


@pytest.mark.slow
@pytest.mark.parametrize("when", ["building ", "serving "])
def test_ctrl_c_stops_the_command_cleanly(mini_site, tmp_path, when):
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(private_tmp), "PYTHONPATH": str(Path(__file__).parent.parent)}
    # Ctrl-C's default action even when this run ignores it (a shell starts background jobs so, and a child
    # inherits it): otherwise the signal below is ignored, and the test waits for a command that never stops.
    process = subprocess.Popen([sys.executable, "-m", "site_builder", "serve", "--root", str(mini_site),
                                "--port", "0"], stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for line in process.stderr:
            if line.startswith(when):
                break
        assert [p.name for p in private_tmp.iterdir() if p.name.startswith("site-builder-serve-")]
        if when == "serving ":
            url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
            assert fetch(url + PAGE)[0] == 200
        process.send_signal(signal.SIGINT)
        rest = process.communicate(timeout=PATIENCE)[1]  # a hang fails here instead of blocking the suite
        assert process.returncode == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert rest.strip().splitlines()[-1] == "stopped" and "Traceback" not in rest
    # Nothing is left but the folder that keeps the Vega bundle per vl-convert version (`assets.kept_dir`).
    assert [p.name for p in private_tmp.iterdir()] in ([], [f"site-builder-{os.getuid()}"])


def test_build_site_reports_progress_stage_by_stage(mini_site, tmp_path):
    calls = []
    build_site(mini_site, tmp_path / "out", progress=lambda *call: calls.append(call))
    from site_builder.stages import STAGES

    assert [done for done, _, _ in calls] == list(range(len(STAGES)))
    assert {total for _, total, _ in calls} == {len(STAGES)}
    assert [label for _, _, label in calls] == [stage.name for stage in STAGES]


def test_build_without_a_terminal_prints_one_summary_line(mini_site, tmp_path):
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0
    lines = [line for line in result.stderr.splitlines() if ": note: " not in line and not line.startswith("note: ")
             and "is a placeholder" not in line and not line.startswith("  hint: ")]
    assert len(lines) == 1 and lines[0].startswith("built ")  # notes (charts left out here) come before it


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_build_on_a_terminal_draws_a_progress_bar(mini_site, tmp_path):
    import pty

    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "COLUMNS": "120"}
    process = subprocess.Popen([sys.executable, "-m", "site_builder", "build", "--root", str(mini_site),
                                "--out", str(tmp_path / "out")], stderr=follower, env=env)
    os.close(follower)
    output = b""
    with contextlib.suppress(OSError):  # EIO once the child has exited and the terminal is closed
        while chunk := os.read(leader, 4096):
            output += chunk
    os.close(leader)
    assert process.wait(PATIENCE) == 0
    text = output.decode("utf-8", "replace")
    assert "building" in text and "rendering pages" in text and "100%" in text
    assert re.search(r"built .*: 2 languages \(en, nl\), \d+ pages", text)


# A real browser, like tests/test_browser.py: skipped without Chromium, mandatory in CI.
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
REQUIRED = os.environ.get("SITE_BUILDER_REQUIRE_BROWSER") == "1"
try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover
    sync_playwright = None
NO_BROWSER = not REQUIRED and (sync_playwright is None or not Path(CHROMIUM).exists())

# The policy the site's pages carry: the reload script and its overlay must work under it.
CSP = ('<meta http-equiv="Content-Security-Policy" content="default-src \'self\'; script-src \'self\'; '
       'style-src \'self\'; img-src \'self\' data:">')


@pytest.mark.slow
@pytest.mark.skipif(NO_BROWSER, reason="chromium or playwright is not installed "
                                       "(set SITE_BUILDER_REQUIRE_BROWSER=1 to fail instead)")
def test_browser_reloads_on_edit_and_shows_the_overlay_until_fixed(mini_site, tmp_path):
    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "site_builder/theme/templates", templates)
    base = templates / "base.html"
    base.write_text(base.read_text().replace('<meta charset="utf-8">', '<meta charset="utf-8">\n' + CSP, 1))
    config = mini_site / "site.toml"
    config.write_text(re.sub(r'templates_dir = ".*"', f'templates_dir = "{templates}"', config.read_text()))

    with serving(mini_site) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
        try:
            page = browser.new_page()
            errors = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            with page.expect_request(lambda request: request.url.endswith(EVENTS)):  # the script listens
                page.goto(url + PAGE)
            assert CSP.split('"')[3] in page.content().replace("&#39;", "'")  # the policy is really there
            wait_until(page, "() => document.querySelector('script[data-generation=\"1\"]') !== null")

            edit(mini_site, "Some text with a footnote.", "Seen in the browser after saving.")
            wait_until(page, "() => document.body.innerText.includes('Seen in the browser after saving.')")
            assert page.locator("script[data-generation='2']").count() == 1  # a reload, not a patch

            dutch = mini_site / "content/nl/hallo.md"
            good_dutch = dutch.read_text()
            hostile = "<img src=x onerror=alert(1)>"  # quoted back by the error: must stay text
            dutch.write_text(good_dutch.replace("key: hello", f'key: hello\n"{hostile}": 1'))
            edit(mini_site, 'title: "Hello, round"', 'title: "Hello, round\nbroken: [')
            overlay = page.get_by_role("alert")
            overlay.wait_for(timeout=PATIENCE * 1000)
            wait_until(page, "() => document.getElementById('site-builder-errors')"
                                   ".innerText.includes('2 problems')")  # all of them
            assert overlay.get_attribute("id") == "site-builder-errors"
            text = overlay.inner_text()
            assert f"{ARTICLE}:5: error: invalid YAML front matter" in text
            assert re.search(rf"content/nl/hallo\.md:\d+: error: unknown front matter key '{re.escape(hostile)}'", text)
            assert overlay.locator("img").count() == 0
            assert overlay.evaluate("el => getComputedStyle(el).position") == "fixed"  # styled despite the CSP
            assert "Seen in the browser after saving." in page.inner_text("main")  # the last good page stays

            dutch.write_text(good_dutch)
            edit(mini_site, 'title: "Hello, round\nbroken: [', 'title: "Fixed in the browser"')
            wait_until(page, "() => document.title.startsWith('Fixed in the browser')")
            wait_until(page, "() => document.querySelector('script[data-generation=\"3\"]') !== null")
            assert page.locator("#site-builder-errors").count() == 0
            assert not errors, errors  # no CSP violation, no script error
        finally:
            browser.close()


# Hostile requests ---------------------------------------------------------------------------------

def request(url: str, path: str, host: str | None = None) -> tuple[int, bytes]:
    """One GET with a Host header of our choosing; the server must answer (no dropped connection)."""
    address, port = url.split("//")[1].rstrip("/").split(":")
    connection = http.client.HTTPConnection(address, int(port), timeout=PATIENCE)
    try:
        connection.request("GET", path, headers={"Host": host} if host is not None else {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_serve_listens_on_loopback_by_default():
    import inspect

    assert inspect.signature(serve).parameters["host"].default == "127.0.0.1"
    option = next(p for p in main.commands["serve"].params if p.name == "host")
    assert option.default == "127.0.0.1"


@pytest.mark.slow
def test_a_foreign_host_header_is_refused_and_the_server_s_own_names_are_served(mini_site):
    """DNS rebinding: a page of evil.example, whose name now points at 127.0.0.1, must not read the preview."""
    with serving(mini_site) as url:
        port = url.rstrip("/").rsplit(":", 1)[1]
        for host in ("evil.example:8000", f"evil.example:{port}", f"127.0.0.1:{int(port) + 1}"):
            status, body = request(url, "/" + PAGE, host)
            assert status == 421 and b"Hello, round" not in body, host
        assert request(url, STATUS, "evil.example")[0] == 421
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
            status, body = request(url, "/" + PAGE, host)
            assert status == 200 and b"Hello, round" in body, host


@pytest.mark.slow
def test_an_overlong_path_segment_gets_an_answer(mini_site):
    with serving(mini_site) as url:
        for path in ("/" + "a" * 300, "/en/" + "%C3%A9" * 200 + "/index.html", "/" + "a" * 256 + "/x"):
            status, _ = request(url, path)
            assert status in (404, 414), path
        assert request(url, "/" + "a" * 255)[0] == 404  # as long as a file name may be: just not found


@pytest.mark.slow
def test_a_client_leaving_early_is_one_line_in_the_log_not_a_traceback(mini_site, capfd):
    import struct

    log: list[str] = []
    with serving(mini_site, log) as url:
        address, port = url.split("//")[1].rstrip("/").split(":")
        client = socket.create_connection((address, int(port)), timeout=PATIENCE)
        client.sendall(b"GET /en/ HT")  # half a request line, then a reset: the server's read fails
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()
        deadline = time.monotonic() + PATIENCE
        while not any("closed the connection early" in line for line in log):
            assert time.monotonic() < deadline, log
            time.sleep(0.05)
        assert fetch(url + PAGE)[0] == 200  # still serving
    early = [line for line in log if "closed the connection early" in line]
    assert early == ["note: 127.0.0.1 closed the connection early (ConnectionResetError)"]
    assert "Traceback" not in capfd.readouterr().err


def test_a_broken_pipe_while_answering_is_logged_in_one_line(tmp_path, capfd):
    """A tab closed while its page is sent: writing the answer raises BrokenPipeError in the request thread."""
    log: list[str] = []
    server = serve_module.open_server("127.0.0.1", 0, serve_module.LiveSite(), tmp_path, log.append)
    try:
        try:
            raise BrokenPipeError(32, "Broken pipe")
        except BrokenPipeError:
            server.handle_error(None, ("127.0.0.1", 50000))
    finally:
        server.server_close()
    assert log == ["note: 127.0.0.1 closed the connection early (BrokenPipeError)"]
    assert "Traceback" not in capfd.readouterr().err
