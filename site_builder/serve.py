"""`site-builder serve`: build, serve over HTTP, watch the inputs, rebuild on change, reload open pages.

Every build is `build.build_site` into a private folder: there is no second code path. The server adds
one external script (`livereload.js`) to the HTML it sends; the files on disk stay exactly as `build`
writes them. Builds alternate between two folders, so the last good site is served whole while the
next one is written, and a failed build leaves it in place.
"""

from __future__ import annotations

import errno
import http.server
import ipaddress
import json
import queue
import shutil
import socket
import sys
import tempfile
import threading
import urllib.parse
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from site_builder import uptodate
from site_builder.build import build_site
from site_builder.config import load_config
from site_builder.errors import Problem, SiteError, display_path

PREFIX = "/__site_builder/"
EVENTS = PREFIX + "events"  # Server-Sent Events: one "status" event now and after every build
STATUS = PREFIX + "status"  # the same status as JSON, for a single look
SCRIPT = PREFIX + "livereload.js"
KEEP_ALIVE_SECONDS = 15
MAX_SEGMENT_BYTES = 255  # a file name's limit: a longer path segment cannot name a file of the site

NO_SITE_YET = (b"<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>site-builder serve</title>"
               b"</head>\n<body>\n<h1>No site yet</h1>\n<p>The first build failed; the terminal lists every problem. "
               b"This page reloads once a build succeeds.</p>\n</body>\n</html>\n")


class LiveSite:
    """What the server shows, shared between the build loop and the request threads: the folder of the
    last good build and its generation, and the problems of the latest build (none when it succeeded)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._revision = 0  # counts every change, good or bad, so that event streams wake up
        self.site_dir: Path | None = None
        self.generation = 0
        self.problems: tuple[Problem, ...] = ()
        self.closed = False

    def published(self, site_dir: Path) -> None:
        with self._changed:
            self.site_dir, self.generation, self.problems = site_dir, self.generation + 1, ()
            self._revision += 1
            self._changed.notify_all()

    def failed(self, problems: list[Problem]) -> None:
        with self._changed:
            self.problems = tuple(problems)
            self._revision += 1
            self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()

    def current(self) -> tuple[Path | None, int]:
        with self._changed:
            return self.site_dir, self.generation

    def status(self) -> tuple[int, dict]:
        """(revision, payload): the payload is what the browser script receives."""
        with self._changed:
            return self._revision, {
                "generation": self.generation,
                "ok": not self.problems,
                "problems": [{"text": str(p), "message": p.message, "path": p.path, "line": p.line, "col": p.col,
                              "hint": p.hint, "severity": p.severity} for p in self.problems],
            }

    def wait_for_change(self, revision: int, timeout: float) -> None:
        with self._changed:
            self._changed.wait_for(lambda: self._revision != revision or self.closed, timeout)


def inject_script(html: bytes, generation: int) -> bytes:
    """The page with the live-reload script before </body>; `generation` tells the script which build
    the page comes from, so that a page older than the latest build reloads at once."""
    tag = f'<script src="{SCRIPT}" data-generation="{generation}"></script>\n'.encode()
    end = html.lower().rfind(b"</body>")
    at = end if end >= 0 else len(html)
    return html[:at] + tag + html[at:]


def reload_script() -> bytes:
    return resources.files("site_builder.theme").joinpath("livereload.js").read_bytes()


def make_handler(live: LiveSite, empty_dir: Path) -> type[http.server.SimpleHTTPRequestHandler]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        """Files of the last good build; HTML gets the reload script; /__site_builder/ is ours."""

        def __init__(self, *args, **kwargs):
            # One snapshot per request: the folder and the generation it belongs to.
            self.site_dir, self.generation = live.current()
            super().__init__(*args, directory=str(self.site_dir or empty_dir), **kwargs)

        def log_message(self, format, *args):  # the terminal is for build results, not for requests
            pass

        def end_headers(self):
            self.send_header("Cache-Control", "no-store")  # a reload always gets the latest build
            super().end_headers()

        def do_GET(self):
            self._respond(with_body=True)

        def do_HEAD(self):
            self._respond(with_body=False)

        def _respond(self, with_body: bool) -> None:
            if not self.server.host_allowed(self.headers.get("Host")):
                # DNS rebinding: a page of another site whose name now points here would read the preview.
                return self._send(421, "text/plain; charset=utf-8",
                                  b"Misdirected request: this preview answers only to the address it listens on.\n",
                                  with_body)
            path = urllib.parse.urlsplit(self.path).path
            if any(len(segment.encode()) > MAX_SEGMENT_BYTES
                   for segment in urllib.parse.unquote(path).split("/")):
                return self._send(414, "text/plain; charset=utf-8", b"URI too long: a path segment is over "
                                  b"255 bytes.\n", with_body)
            try:
                self._respond_with_file(path, with_body)
            except OSError as error:
                if isinstance(error, ConnectionError):  # the client went away: handle_error logs it
                    raise
                self._send(404, "text/plain; charset=utf-8", b"Not found.\n", with_body)

        def _respond_with_file(self, path: str, with_body: bool) -> None:
            if path == EVENTS:
                return self._events()
            if path == STATUS:
                return self._send(200, "application/json", json.dumps(live.status()[1]).encode(), with_body)
            if path == SCRIPT:
                return self._send(200, "text/javascript; charset=utf-8", reload_script(), with_body)
            if self.site_dir is None:
                return self._send(503, "text/html; charset=utf-8", inject_script(NO_SITE_YET, 0), with_body)
            file = Path(self.translate_path(self.path))
            if file.is_dir() and path.endswith("/") and (file / "index.html").is_file():
                file = file / "index.html"
            if file.suffix == ".html" and file.is_file():
                return self._send(200, "text/html; charset=utf-8",
                                  inject_script(file.read_bytes(), self.generation), with_body)
            not_found = self.site_dir / "404.html"
            if not file.exists() and not_found.is_file():
                return self._send(404, "text/html; charset=utf-8",
                                  inject_script(not_found.read_bytes(), self.generation), with_body)
            return super().do_GET() if with_body else super().do_HEAD()

        def _send(self, code: int, content_type: str, body: bytes, with_body: bool) -> None:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def _events(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.close_connection = True
            try:
                self.wfile.write(b"retry: 1000\n\n")
                revision = None
                while not live.closed:
                    current, payload = live.status()
                    if current != revision:
                        revision = current
                        self.wfile.write(b"event: status\ndata: " + json.dumps(payload).encode() + b"\n\n")
                    else:
                        self.wfile.write(b": keep-alive\n\n")  # notices a closed tab, keeps proxies open
                    self.wfile.flush()
                    live.wait_for_change(revision, KEEP_ALIVE_SECONDS)
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


def watched_folders(root: Path) -> list[Path]:
    """The input folders site.toml names (the default ones while it cannot be read)."""
    try:
        config = load_config(root)
        folders = [config.content_dir, config.data_dir, config.templates_dir, config.locales_dir, config.charts_dir]
    except SiteError:
        folders = [root / "content", root / "data", root / "templates", root / "locales", root / "charts"]
    return [folder for folder in folders if folder.is_dir()]


class Watcher:
    """Watches `paths` in a thread of its own and puts each batch of changes on `batches`.

    site.toml gets a watcher of its own on the project folder (not recursive): a watch on the file itself
    ends when an editor saves by replacing it, and a recursive one would cover _site/, .git/, .venv/.
    """

    def __init__(self, paths: list[Path], batches: queue.Queue, log: Callable[[str], None],
                 recursive: bool = True, only: str | None = None, debounce_ms: int = 1600, step_ms: int = 100):
        import watchfiles

        self.stop = threading.Event()
        watch_filter = (lambda change, path: Path(path).name == only) if only else watchfiles.DefaultFilter()

        def run() -> None:
            try:
                for changes in watchfiles.watch(*paths, watch_filter=watch_filter, recursive=recursive,
                                                stop_event=self.stop, debounce=debounce_ms, step=step_ms,
                                                raise_interrupt=False):
                    batches.put(changes)
            except Exception as error:  # a folder removed while watched, too many watches: say so, keep serving
                log(f"warning: stopped watching {', '.join(map(str, paths))}: {error}")

        self.thread = threading.Thread(target=run, name="site-builder-watch", daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)


class Server(http.server.ThreadingHTTPServer):
    """The preview's HTTP server: answers only requests addressed to it, logs a client gone early in one line."""

    daemon_threads = True  # open event streams must not keep the process alive on exit

    def __init__(self, address: tuple[str, int], handler, log: Callable[[str], None]) -> None:
        self.log = log
        names = {"localhost", "127.0.0.1", "::1", address[0].lower()}
        if address[0] in ("", "0.0.0.0", "::"):  # reached from other devices by this machine's name too
            names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        self.names = names
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, handler)

    def host_allowed(self, host: str | None) -> bool:
        """True for a Host header naming this server: a loopback name or the bound address, with its port.
        Bound to all addresses (0.0.0.0, ::), any IP address is accepted too, and this machine's name: those
        are how other devices reach it, and rebinding needs a DNS name. No header (HTTP/1.0): accepted."""
        if host is None:
            return True
        name, _, port = host.strip().lower().rpartition(":")
        if not name or "]" in port:  # no port given (only right for port 80)
            name, port = host.strip().lower(), "80"
        if port != str(self.server_port):
            return False
        name = name[1:-1] if name.startswith("[") and name.endswith("]") else name
        if name in self.names or name == self.server_address[0].lower():
            return True
        if self.server_address[0] in ("", "0.0.0.0", "::"):
            try:
                ipaddress.ip_address(name)
                return True
            except ValueError:
                return False
        return False

    def handle_error(self, request, client_address) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError):  # a closed tab, a cancelled download: not a traceback
            self.log(f"note: {client_address[0]} closed the connection early ({type(error).__name__})")
            return
        super().handle_error(request, client_address)


def open_server(host: str, port: int, live: LiveSite, empty_dir: Path,
                log: Callable[[str], None] = print) -> Server:
    try:
        server = Server((host, port), make_handler(live, empty_dir), log)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise SiteError(Problem(f"port {port} on {host} is already in use",
                                    hint="choose another with --port, or --port 0 for any free port")) from None
        raise SiteError(Problem(f"cannot listen on {host}:{port}: {error.strerror or error}")) from None
    return server


def serve(root: Path, host: str = "127.0.0.1", port: int = 8000, *, log: Callable[[str], None] = print,
          ready: Callable[[str], None] | None = None, stop: threading.Event | None = None) -> None:
    """Build, serve and rebuild until `stop` is set or Ctrl-C. `ready(url)` is called once serving."""
    if not root.is_dir():
        raise SiteError(Problem(f"{root} is not a folder", hint="--root names the project folder holding site.toml"))
    live = LiveSite()
    work = Path(tempfile.mkdtemp(prefix="site-builder-serve-"))
    empty = work / "empty"
    empty.mkdir()
    slots = [work / "a", work / "b"]
    batches: queue.Queue = queue.Queue()
    server = serving = config_watch = folders_watch = None
    try:
        server = open_server(host, port, live, empty, log)
        # The preview's absolute links (canonical, sitemap, the 404 page's links) point at this server.
        url = f"http://{_url_host(host)}:{server.server_port}/"
        # Watching starts before the first build, so that no save is missed.
        config_watch = Watcher([root], batches, log, recursive=False, only="site.toml")
        folders = watched_folders(root)
        folders_watch = Watcher(folders, batches, log) if folders else None
        log(f"building the site for {url} …")
        _build(root, url, slots, live, log, reason=None)
        serving = threading.Thread(target=server.serve_forever, name="site-builder-serve", daemon=True)
        serving.start()
        log(f"serving {url} (Ctrl-C to stop); watching for changes")
        if ready:
            ready(url)
        while not (stop and stop.is_set()):
            try:
                changes = batches.get(timeout=0.2)
            except queue.Empty:
                continue
            while not batches.empty():  # saves made during the last build: one build for all of them
                changes |= batches.get_nowait()
            if watched_folders(root) != folders:  # site.toml names other folders: watch those, from now on
                folders, previous = watched_folders(root), folders_watch
                folders_watch = Watcher(folders, batches, log) if folders else None
                if previous:
                    previous.close()
            _build(root, url, slots, live, log, reason=describe_changes(changes, root))
    finally:
        live.close()
        for watcher in (config_watch, folders_watch):
            if watcher:
                watcher.close()
        if serving is not None:
            server.shutdown()  # waits for serve_forever, so only once it runs (Ctrl-C may come before)
        if server is not None:
            server.server_close()
        shutil.rmtree(work, ignore_errors=True)


def describe_changes(changes: set[tuple[object, str]], root: Path) -> str:
    """The changed files for the terminal, leaving out an editor's short-lived files (created and gone)."""
    created = {path for change, path in changes if change.name == "added"}
    paths = sorted({display_path(path, root) for _, path in changes if path not in created or Path(path).exists()})
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "") or "temporary files"


def _build(root: Path, base_url: str, slots: list[Path], live: LiveSite, log: Callable[[str], None],
           reason: str | None) -> None:
    """One build into the slot not being served; publish it, or report its problems and keep the old one."""
    served, _ = live.current()
    target = slots[1] if served == slots[0] else slots[0]
    if reason:
        log(f"changed: {reason}")
    try:
        report = build_site(root, target, base_url)
    except SiteError as error:
        problems = error.problems
    except Exception as error:  # a bug must not stop the loop: report it like a problem and keep serving
        problems = [Problem(f"internal error: {type(error).__name__}: {error}",
                            hint="`site-builder build` shows where it happens; please report it")]
    else:
        for warning in report.warnings:
            log(str(warning))
        live.published(target)
        # The other folder starts as this build (once), so that the first edit is made like any other.
        uptodate.copy_build(target, slots[0] if target == slots[1] else slots[1])
        log(f"built: {report.pages} pages, {report.charts} charts, {len(report.warnings)} warnings "
            f"in {report.seconds:.2f} s")
        return
    for problem in problems:
        log(str(problem))
    count = len(problems)
    kept = "the last good site is still served" if live.current()[0] else "no site to serve yet"
    log(f"build failed: {count} problem{'s' if count != 1 else ''}; {kept}")
    live.failed(problems)


def _url_host(host: str) -> str:
    if host in ("", "0.0.0.0", "::"):
        return "localhost"
    return f"[{host}]" if ":" in host else host
