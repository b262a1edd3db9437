"""The output stage: path guard, --out checks, lock, leftovers, the swap that never leaves the folder missing,
failure paths, and the bounded render cache."""

from __future__ import annotations

import errno
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path, PurePosixPath
from unittest.mock import patch

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from site_builder import cache as build_cache, images, output, stages as build_module
from site_builder.build import build_site
from site_builder.cli import main
from site_builder.errors import Problem, SiteError
from site_builder.output import MARKER, SiteFiles, out_dir_problems, write_site
from site_builder.render import relative_url

from conftest import PATIENCE, ROOT, beside


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def site_of(**files: str) -> SiteFiles:
    result = SiteFiles()
    for path, text in files.items():
        result.add(path.replace("__", "/"), text)
    return result


def child_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


# A real process that writes a large site with the output stage: for races and kills.
WRITER = """
import sys, time
from pathlib import Path
from site_builder.output import SiteFiles, write_site
out, label, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
go = Path(sys.argv[4]) if len(sys.argv) > 4 else None
files = SiteFiles()
for i in range(count):
    files.add(f"{i % 50}/{i}.html", f"{label} {i}\\n" * 20)
while go is not None and not go.exists():
    time.sleep(0.001)
time.sleep(float(sys.argv[5]) if len(sys.argv) > 5 else 0)
write_site(files, out)
"""


# --- the path guard --------------------------------------------------------------------------------------

@pytest.mark.parametrize("path, reason", [
    ("../evil.html", "outside the site root"), ("/etc/passwd", "outside the site root"),
    ("a/../../b", "outside the site root"), ("a\\b", "outside the site root"), ("", "outside the site root"),
    (".", "names the site root itself"), ("./", "names the site root itself"),
    ("a\x00b.html", "control character"), ("a\nb.html", "control character"),
    (MARKER, "reserved"), (f"x/{MARKER}", "reserved"),
    ("a/" + "x" * 256 + ".html", "longer than 255 bytes"), ("é" * 128, "longer than 255 bytes"),
    ("\udc80.html", "not valid Unicode"),
])
def test_unsafe_output_paths_are_refused_with_the_reason(path, reason):
    with pytest.raises(SiteError, match=f"refusing to write .*{reason}"):
        SiteFiles().add(path, "x")


def test_a_path_written_twice_is_refused():
    files = SiteFiles()
    files.add("a/index.html", "1")
    with pytest.raises(SiteError, match="two outputs want the same path 'a/index.html'"):
        files.add("a/./index.html", "2")


@pytest.mark.parametrize("first, second", [("About.html", "about.html"), ("caf\u00e9.html", "cafe\u0301.html")])
def test_paths_that_are_one_file_on_macos_or_windows_are_refused(first, second):
    files = SiteFiles()
    files.add(first, "1")
    with pytest.raises(SiteError, match="same file on case-insensitive filesystems"):
        files.add(second, "2")


@pytest.mark.parametrize("first, second, clash", [("a", "a/b.html", "a"), ("a/b/c.html", "a/b", "a/b")])
def test_a_path_that_is_both_file_and_folder_is_refused(first, second, clash):
    files = SiteFiles()
    files.add(first, "1")
    with pytest.raises(SiteError, match=f"needs '{clash}' to be both a file and a folder"):
        files.add(second, "2")


SEGMENTS = st.one_of(
    st.sampled_from(["..", ".", "", "a", "index.html", "é", "\x00", "C:", "~", "\\..", "..\\..", " ", "x" * 300,
                     MARKER, "\u202e", "\udc80", "%2e%2e"]),
    st.text(min_size=0, max_size=12))
PATHS = st.one_of(st.text(max_size=40), st.lists(SEGMENTS, max_size=6).map("/".join),
                  st.lists(SEGMENTS, min_size=1, max_size=6).map(lambda parts: "/" + "/".join(parts)))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(PATHS)
def test_property_accepted_paths_stay_inside_the_root(path):
    root = Path("/srv/site")
    try:
        normalized = SiteFiles().add(path, "x")
    except SiteError as error:
        assert str(error).startswith("error: refusing to write ")
        return
    assert ".." not in PurePosixPath(normalized).parts and "\\" not in normalized and "\x00" not in normalized
    assert not PurePosixPath(normalized).is_absolute() and normalized not in ("", ".")
    joined = Path(os.path.normpath(root / normalized))
    assert joined != root and joined.is_relative_to(root)


def _full_check(path: str) -> str:
    """`_checked_path` without its fast path for plain ASCII paths."""
    with patch.object(output, "_PLAIN_PATH", re.compile(r"(?!)")):  # matches nothing
        return output._checked_path(path)


PLAIN_PATHS = st.lists(st.sampled_from(["a", "b.html", "..", ".", "", MARKER, "x" * 255, "x" * 256, "a b", "~", "\x7f",
                                         "C:", "\\", "\t"]), max_size=5).map("/".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(PATHS, PLAIN_PATHS, PLAIN_PATHS.map(lambda path: "/" + path)))
def test_property_the_fast_path_check_agrees_with_the_full_one(path):
    try:
        expected = _full_check(path)
    except SiteError as error:
        with pytest.raises(SiteError) as raised:
            output._checked_path(path)
        assert str(raised.value) == str(error)
        return
    assert output._checked_path(path) == expected
    assert output._parents(expected) == [p.as_posix() for p in PurePosixPath(expected).parents][:-1]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PATHS, min_size=1, max_size=8))
def test_property_written_files_land_inside_the_output_folder(paths):
    parent = Path(tempfile.mkdtemp())
    try:
        files, accepted = SiteFiles(), []
        for path in paths:
            try:
                accepted.append(files.add(path, path.encode("utf-8", "surrogateescape")))
            except SiteError:
                pass
        write_site(files, parent / "out")
        assert [p.name for p in parent.iterdir()] == ["out"]
        written = snapshot(parent / "out")
        assert sorted(written) == sorted([*accepted, MARKER])
        assert all((parent / "out" / path).resolve().is_relative_to((parent / "out").resolve()) for path in accepted)
    finally:
        shutil.rmtree(parent)


# --- --out, checked before rendering --------------------------------------------------------------------

@pytest.fixture
def project(mini_site):
    """The mini site with its own templates/ and locales/ folders (inputs inside the project)."""
    shutil.copytree(ROOT / "site_builder/theme/templates", mini_site / "templates")
    shutil.copytree(ROOT / "site_builder/theme/locales", mini_site / "locales")
    config = mini_site / "site.toml"
    config.write_text("\n".join(line for line in config.read_text().splitlines() if "_dir" not in line))
    return mini_site


def problems_for(project: Path, out: str) -> list[str]:
    inputs = {name: project / name for name in ("content", "data", "templates", "locales")}
    return [str(p) for p in out_dir_problems(project / out, project, inputs)]


@pytest.mark.parametrize("out, message", [
    ("content/en/_site", "the output folder is inside the content folder (content)"),
    ("content", "the output folder is inside the content folder (content)"),
    ("data/_site", "the output folder is inside the data folder (data)"),
    ("templates/assets/_site", "the output folder is inside the templates folder (templates)"),
    ("locales/_site", "the output folder is inside the locales folder (locales)"),
    (".", "the output folder is the project folder or contains it"),
    ("..", "the output folder is the project folder or contains it"),
    ("content/en/hello.md", "the output folder is inside the content folder"),
    ("site.toml", "the output folder is a file"),
    ("site.toml/_site", "the output folder cannot be created:"),
    ("/proc/_site", "the output folder cannot be written: /proc: "),
    ("notes", "the output folder exists, is not empty and was not written by site-builder"),
])
def test_bad_out_folders_are_named_with_the_reason(project, out, message):
    (project / "notes").mkdir()
    (project / "notes" / "todo.txt").write_text("mine")
    found = problems_for(project, out)
    assert len(found) == 1 and found[0].startswith(f"{(project / out).as_posix()}: error: {message}"), found


@pytest.mark.parametrize("out", ["_site", "public/v6", "../elsewhere"])
def test_good_out_folders_pass(project, out):
    (project / "public").mkdir()
    assert problems_for(project, out) == []


def test_a_symlinked_input_is_seen_through(project, tmp_path):
    (tmp_path / "link").symlink_to(project / "content")
    assert "inside the content folder" in problems_for(project, str(tmp_path / "link" / "_site"))[0]
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    assert problems_for(project, str(tmp_path / "dangling"))[0].endswith("error: the output folder is a broken "
                                                                          "symbolic link")


def test_bad_out_is_refused_before_rendering_with_the_other_problems(project, monkeypatch):
    def no_rendering(*args, **kwargs):
        raise AssertionError("rendered although --out is wrong")

    monkeypatch.setattr(build_module.chart_catalog, "build_rounds", no_rendering)
    monkeypatch.setattr(build_module.pages, "plan_pages", no_rendering)
    article = project / "content/en/hello.md"
    article.write_text(article.read_text().replace("key: hello", "key: hello\nmood: happy"))
    result = CliRunner().invoke(main, ["build", "--root", str(project), "--out", str(project / "content/en/_site")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert f"{project.as_posix()}/content/en/_site: error: the output folder is inside the content folder (content), " \
           "an input of the build" in lines
    assert any(line.startswith("content/en/hello.md:8: error: unknown front matter key 'mood'") for line in lines)
    assert lines[-1] == "build failed: 2 problems; the previous site is unchanged"
    assert not (project / "content/en/_site").exists()
    assert sorted(p.name for p in (project / "content/en").iterdir()) == ["hello.md"]


def test_out_that_is_a_file_exits_one_with_our_message(project, tmp_path):
    (tmp_path / "page.html").write_text("keep")
    result = CliRunner().invoke(main, ["build", "--root", str(project), "--out", str(tmp_path / "page.html")])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{tmp_path.as_posix()}/page.html: error: the output folder is a file")
    assert (tmp_path / "page.html").read_text() == "keep"


def _problems_as_nobody(queue, project: str, out: str) -> None:
    os.setgid(65534)
    os.setuid(65534)
    queue.put(problems_for(Path(project), out))


def test_an_unwritable_parent_is_refused(project):
    parent = Path(tempfile.mkdtemp(dir="/tmp"))  # outside pytest's 0700 folder, so another user can see it
    try:
        parent.chmod(0o755)
        (parent / "locked").mkdir(mode=0o555)
        out = str(parent / "locked" / "site")
        if os.geteuid() != 0:
            found = problems_for(project, out)
        else:  # root may write anywhere: ask as an ordinary user, in a child process
            project_copy = parent / "project"
            shutil.copytree(project, project_copy)
            os.system(f"chmod -R a+rX {project_copy}")
            queue = multiprocessing.get_context("fork").Queue()
            child = multiprocessing.get_context("fork").Process(target=_problems_as_nobody,
                                                                args=(queue, str(project_copy), out))
            child.start()
            found = queue.get(timeout=PATIENCE)
            child.join()
        assert found == [f"{out}: error: the output folder cannot be written: {parent}/locked: Permission denied\n"
                         "  hint: choose a folder you can write to"]
        assert list((parent / "locked").iterdir()) == []
    finally:
        shutil.rmtree(parent)


# --- writing, the lock, leftovers ------------------------------------------------------------------------

def test_write_replaces_previous_site_and_leaves_no_temp_dirs(tmp_path):
    out = tmp_path / "_site"
    write_site(site_of(old__index_html="old"), out)
    write_site(site_of(new__index_html="new"), out)
    assert sorted(snapshot(out)) == [MARKER, "new/index_html"]
    assert beside(tmp_path) == ["_site"]  # no staging, no old tree, no lock file


def test_refuses_to_replace_a_folder_it_did_not_write(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "precious.txt").write_text("keep me")
    with pytest.raises(SiteError, match="was not written by site-builder"):
        write_site(site_of(index_html="x"), tmp_path / "docs")
    assert (tmp_path / "docs" / "precious.txt").read_text() == "keep me"
    assert beside(tmp_path) == ["docs"]


def test_a_symlinked_output_folder_is_replaced_where_it_points(tmp_path):
    (tmp_path / "releases").mkdir()
    write_site(site_of(a="1"), tmp_path / "releases" / "site")
    (tmp_path / "current").symlink_to(tmp_path / "releases" / "site")
    write_site(site_of(b="2"), tmp_path / "current")
    assert (tmp_path / "current").is_symlink() and sorted(snapshot(tmp_path / "current")) == [MARKER, "b"]


@pytest.mark.slow
def test_two_builds_racing_into_one_folder_do_not_corrupt_it(tmp_path):
    out, go = tmp_path / "out", tmp_path / "go"
    # Three writers start together or a few milliseconds apart, each while another one is still writing.
    racers = [subprocess.Popen([sys.executable, "-c", WRITER, str(out), label, "3000", str(go), delay],
                               env=child_env(), stderr=subprocess.PIPE, text=True)
              for label, delay in [("A", "0"), ("B", "0"), ("C", "0.05")]]
    time.sleep(2)  # all have built their file maps and wait for the start signal
    go.touch()
    results = [(racer.wait(timeout=PATIENCE), racer.stderr.read()) for racer in racers]
    assert [code for code, _ in results] == [0, 0, 0], results
    site = snapshot(out)
    labels = {content.split(b" ")[0] for path, content in site.items() if path != MARKER}
    assert len(site) == 3001 and len(labels) == 1  # all of one build, nothing of the other
    assert beside(tmp_path) == ["go", "out"]


def test_a_second_build_waits_for_the_lock_with_a_message(tmp_path):
    out = tmp_path / "out"
    write_site(site_of(a="before"), out)
    with output._locked(out, str(out), 1):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(out), "B", "10"], env=child_env(),
                                  stderr=subprocess.PIPE, text=True)
        # read, not slept on: however long the writer takes to start, it says it waits, and does
        assert writer.stderr.readline() == f"{out}: waiting for another build writing to this folder...\n"
        assert writer.poll() is None and snapshot(out)["a"] == b"before"
    assert writer.wait(timeout=PATIENCE) == 0
    assert writer.stderr.read() == ""
    assert len(snapshot(out)) == 11


@pytest.mark.slow
def test_a_build_gives_up_clearly_after_the_lock_timeout(tmp_path):
    out = tmp_path / "out"
    write_site(site_of(a="before"), out)
    before = snapshot(out)
    with output._locked(out, str(out), 1):
        with pytest.raises(SiteError) as caught:
            write_site(site_of(b="after"), out, lock_timeout=0.3)
        result = subprocess.run([sys.executable, "-m", "site_builder", "build", "--root", str(ROOT), "--out",
                                 str(out)], env=child_env(SITE_BUILDER_LOCK_TIMEOUT="0.2"), capture_output=True,
                                text=True, timeout=PATIENCE)
    assert str(caught.value.problems[0]).startswith(f"{out}: error: another build is writing to the output folder; "
                                                    "gave up after waiting 0.3 s")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{out}: error: another build is writing to the output folder; gave up after waiting 0.2 s" in result.stderr
    assert snapshot(out) == before and beside(tmp_path) == ["out"]


@pytest.mark.parametrize("value", ["soon", "-1", "inf", "nan"])
def test_a_bad_lock_timeout_is_reported_before_rendering(project, tmp_path, monkeypatch, value):
    monkeypatch.setenv("SITE_BUILDER_LOCK_TIMEOUT", value)
    assert problems_for(project, str(tmp_path / "out")) == [
        f"error: SITE_BUILDER_LOCK_TIMEOUT={value!r} is not a number of seconds (0 or more)"]


def test_a_lock_file_left_by_a_killed_build_does_not_block(tmp_path):
    out = tmp_path / "out"
    output.lock_path(out).write_text("")
    write_site(site_of(a="1"), out, lock_timeout=0)
    assert beside(tmp_path) == ["out"]


def test_leftovers_of_killed_builds_are_removed_and_no_others(tmp_path):
    out = tmp_path / "out"
    for name in [".out.new-abc123", ".out.old-x_9/site", ".other.new-abc123", ".out.new-abc.keep",
                 ".out.new-b.new-zz", "out.new-abc"]:
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "index.html").write_text("leftover")
    write_site(site_of(a="1"), out)
    assert beside(tmp_path) == [".other.new-abc123", ".out.new-abc.keep",
                                                          ".out.new-b.new-zz", "out", "out.new-abc"]


def test_a_spool_folder_goes_with_its_build_and_only_then(tmp_path):
    """Pages are spooled beside the output while a build runs: the build removes its own, the next build
    removes one whose process is gone, and never one of a build still running."""
    out = tmp_path / "out"
    dead_pid = 2**31 - 1  # above any system's largest pid: no process, and none can reuse it while the test runs
    for name in [f".out.spool-{dead_pid}-abc", f".out.spool-{os.getpid()}-abc", f".out.spool-{os.getppid()}-x"]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "0.html").write_text("spooled")
    write_site(site_of(a="1"), out)
    # sorted by name, and which pid sorts first depends on the machine
    assert beside(tmp_path) == sorted([f".out.spool-{os.getppid()}-x", f".out.spool-{os.getpid()}-abc", "out"])


def test_a_build_leaves_no_spool_behind(mini_site, tmp_path, monkeypatch):
    out = tmp_path / "out"
    build_site(mini_site, out, jobs=2)
    assert beside(tmp_path) == ["out", "site"] and (out / "en/articles/hello/index.html").is_file()
    spooled = []

    def failing_write(files, *args, **kwargs):  # the pages are spooled by now; then the write fails
        spooled.extend(p.name for p in tmp_path.glob(".out.spool-*/*.html"))
        raise SiteError(Problem("disk full"))

    monkeypatch.setattr(output, "write_site", failing_write)
    (mini_site / "content/en/hello.md").write_text((mini_site / "content/en/hello.md").read_text() + "\nMore.\n")
    with pytest.raises(SiteError):
        build_site(mini_site, out, jobs=1)
    assert spooled and beside(tmp_path) == ["out", "site"]


@pytest.mark.slow
def test_a_build_killed_while_writing_is_cleaned_up_by_the_next(mini_site, tmp_path):
    out = tmp_path / "out"
    build_site(mini_site, out)
    before = snapshot(out)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(out), "K", "40000"], env=child_env())
    deadline = time.monotonic() + PATIENCE
    while not any(len(list(p.glob("*/*"))) > 200 for p in tmp_path.glob(".out.new-*")):
        assert writer.poll() is None and time.monotonic() < deadline, "the writer finished before it was killed"
        time.sleep(0.01)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert [p.name for p in tmp_path.glob(".out.new-*")], "the kill left no staging folder to clean"
    assert snapshot(out) == before
    build_site(mini_site, out)  # no wait for the dead build's lock, and its leftovers go
    assert snapshot(out) == before
    assert beside(tmp_path) == ["out", "site"]


# --- the site folder is present at every moment --------------------------------------------------------

def _watch(path: str, stop, counts) -> None:
    seen = missing = 0
    while not stop.is_set():
        seen += 1
        if not os.path.exists(path):
            missing += 1
    counts.put((seen, missing))


def _rebuild_while_watched(out: Path, builds: int) -> tuple[int, int]:
    context = multiprocessing.get_context("fork")
    stop, counts = context.Event(), context.Queue()
    watcher = context.Process(target=_watch, args=(str(out), stop, counts))
    watcher.start()
    try:
        for n in range(builds):
            write_site(site_of(**{f"p{i}__index_html": f"build {n}" for i in range(30)}), out)
    finally:
        stop.set()
    seen, missing = counts.get(timeout=PATIENCE)
    watcher.join()
    return seen, missing


def test_the_site_folder_never_goes_missing_while_rebuilt(tmp_path):
    out = tmp_path / "out"
    write_site(site_of(a="first"), out)
    seen, missing = _rebuild_while_watched(out, 40)
    assert missing == 0 and seen > 1000
    assert snapshot(out)["p0/index_html"] == b"build 39"


def test_every_step_of_the_swap_keeps_the_site_folder(tmp_path, monkeypatch):
    """Deterministic twin of the watcher test: the folder exists after each rename or exchange."""
    out = tmp_path / "out"
    write_site(site_of(a="first"), out)
    steps = []
    real_rename, real_exchange = os.rename, output._exchange

    def rename(a, b):
        real_rename(a, b)
        steps.append(("rename", out.exists()))

    def exchange(a, b):
        done = real_exchange(a, b)
        steps.append(("exchange", out.exists()))
        return done

    monkeypatch.setattr(output.os, "rename", rename)
    monkeypatch.setattr(output, "_exchange", exchange)
    write_site(site_of(a="second"), out)
    # the exchange, then the previous site kept as the spare: the folder never went missing
    assert steps == [("exchange", True), ("rename", True)] and snapshot(out)["a"] == b"second"


def test_without_renameat2_the_two_rename_fallback_still_swaps(tmp_path, monkeypatch):
    monkeypatch.setattr(output, "_renameat2", lambda: None)
    out = tmp_path / "out"
    write_site(site_of(a="first"), out)
    write_site(site_of(b="second"), out)
    assert sorted(snapshot(out)) == [MARKER, "b"] and beside(tmp_path) == ["out"]


# --- every failure path leaves the previous site byte-identical and no temporary folder ---------------

def fail_on_third_write(monkeypatch, error):
    real, calls = output._write_file, []

    def write_file(path, data):
        calls.append(path)
        if len(calls) == 3:
            raise error
        return real(path, data)

    monkeypatch.setattr(output, "_write_file", write_file)


def fail_exchange(monkeypatch, error):
    def exchange(a, b):
        raise error
    monkeypatch.setattr(output, "_exchange", exchange)


def fail_fallback_rename(number):
    def inject(monkeypatch, error):
        monkeypatch.setattr(output, "_renameat2", lambda: None)
        real, calls = os.rename, []

        def rename(a, b):
            calls.append(a)
            if len(calls) == number:
                raise error
            return real(a, b)

        monkeypatch.setattr(output.os, "rename", rename)
    return inject


@pytest.mark.parametrize("inject, error, expected", [
    (fail_on_third_write, OSError(errno.ENOSPC, "No space left on device"),
     "error: cannot write the site: No space left on device"),
    (fail_on_third_write, KeyboardInterrupt(), None),
    (fail_exchange, OSError(errno.EIO, "Input/output error"), "error: cannot write the site: Input/output error"),
    (fail_fallback_rename(1), OSError(errno.EBUSY, "Device or resource busy"),
     "error: cannot write the site: Device or resource busy"),
    (fail_fallback_rename(2), OSError(errno.EXDEV, "Invalid cross-device link"),
     "error: cannot write the site: Invalid cross-device link"),
], ids=["disk-full", "interrupted", "exchange-fails", "fallback-first-rename-fails", "fallback-second-rename-fails"])
def test_a_failure_while_writing_keeps_the_previous_site(tmp_path, monkeypatch, inject, error, expected):
    out = tmp_path / "out"
    write_site(site_of(**{f"p{i}": f"old {i}" for i in range(10)}), out)
    before = snapshot(out)
    inject(monkeypatch, error)
    with pytest.raises(SiteError if expected else type(error)) as caught:
        write_site(site_of(**{f"q{i}": f"new {i}" for i in range(10)}), out)
    if expected:
        assert str(caught.value.problems[0]).startswith(f"{out}: {expected}")
    monkeypatch.undo()
    assert snapshot(out) == before
    assert beside(tmp_path) == ["out"]


def test_failed_build_keeps_previous_site_and_reports_every_problem(mini_site, tmp_path):
    out = tmp_path / "out"
    build_site(mini_site, out)
    before = snapshot(out)
    csv = mini_site / "data/rounds/v6.0/results.csv"
    csv.write_text(csv.read_text().replace(",20.5,", ",-1,"))
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text().replace("key: hello", "key: hello\nmood: happy"))
    with pytest.raises(SiteError) as caught:
        build_site(mini_site, out)
    messages = [str(p) for p in caught.value.problems]
    assert any(m.startswith("data/rounds/v6.0/results.csv:2: error: column 'score_minutes' has the negative value")
               for m in messages)
    assert any(m.startswith("content/en/hello.md:8: error: unknown front matter key 'mood'") for m in messages)
    assert snapshot(out) == before
    assert beside(tmp_path) == ["out", "site"]


@pytest.mark.slow
@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"),
                                   OSError(errno.EIO, "Input/output error")], ids=["disk-full", "io-error"])
def test_a_failure_while_spooling_pages_keeps_the_previous_site(mini_site, tmp_path, monkeypatch, error):
    out = tmp_path / "out"
    build_site(mini_site, out)
    before = snapshot(out)
    article = mini_site / "content/en/hello.md"
    article.write_text(article.read_text() + "\nOne more line, so the pages are made again.\n")
    real = Path.write_bytes

    def write_bytes(path, data):
        if ".spool-" in path.parent.name:
            raise error
        return real(path, data)

    monkeypatch.setattr(Path, "write_bytes", write_bytes)  # --jobs 1: the pages are rendered in this process
    with pytest.raises(SiteError) as caught:
        build_site(mini_site, out, jobs=1)
    monkeypatch.undo()
    assert [str(p) for p in caught.value.problems] == [f"{out.as_posix()}: error: cannot write the site: "
                                                       f"{error.strerror}"]
    assert snapshot(out) == before
    assert beside(tmp_path) == ["out", "site"]  # no spool folder left


# --- the render cache ------------------------------------------------------------------------------------

@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """An empty cache of the test's own."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(folder))
    monkeypatch.delenv("SITE_BUILDER_CACHE_MAX_MB", raising=False)
    return folder



def test_the_cache_lives_outside_the_project_in_the_user_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("SITE_BUILDER_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert build_cache.cache_dir() == tmp_path / "xdg" / "site-builder"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert build_cache.cache_dir() == Path.home() / ".cache" / "site-builder"


def test_the_least_recently_used_renderings_are_evicted_first(cache):
    renders = cache / "renders"
    renders.mkdir(parents=True)
    newest, newer, old, oldest = ("1" * 64 + ".svg", "2" * 64 + ".png", "3" * 64 + ".svg", "4" * 64 + ".png")
    for age, name in enumerate([newest, newer, old, oldest]):
        (renders / name).write_bytes(b"x" * 1000)
        os.utime(renders / name, (1_700_000_000 - age * 60,) * 2)
    assert build_cache.trim(2500) == 2000
    assert sorted(p.name for p in renders.iterdir()) == [newest, newer]
    assert build_cache.trim(2500) == 0
    assert build_cache.trim(0) == 2000 and list(renders.iterdir()) == []


def test_a_cache_hit_marks_the_rendering_as_recently_used(cache):
    spec = {"data": {"values": [{"x": 1}]}, "mark": "point", "encoding": {"x": {"field": "x", "type": "quantitative"}}}
    first = images.chart_svg(spec)
    (rendering,) = (cache / "renders").iterdir()
    os.utime(rendering, (1_700_000_000,) * 2)
    assert images.chart_svg(spec) == first
    assert rendering.stat().st_mtime > 1_700_000_000  # touched by the hit


def test_a_build_bounds_the_cache(mini_site, warm_cache, tmp_path, monkeypatch):
    monkeypatch.setenv("SITE_BUILDER_CACHE_MAX_MB", "0.2")
    build_site(mini_site, tmp_path / "out")
    assert 0 < sum(p.stat().st_size for namespace in build_cache.NAMESPACES
                   for p in (warm_cache / namespace).iterdir()) <= 200_000


@pytest.mark.parametrize("value", ["lots", "-5", "inf"])
def test_a_bad_cache_limit_fails_before_anything_is_written(mini_site, cache, tmp_path, monkeypatch, value):
    monkeypatch.setenv("SITE_BUILDER_CACHE_MAX_MB", value)
    result = CliRunner().invoke(main, ["build", "--root", str(mini_site), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: SITE_BUILDER_CACHE_MAX_MB={value!r} is not a size in megabytes")
    assert not (tmp_path / "out").exists() and not cache.exists()


@pytest.mark.slow
def test_clearing_the_cache_is_safe_and_the_output_is_byte_identical(mini_site, warm_cache, tmp_path):
    cache = warm_cache
    build_site(mini_site, tmp_path / "warm")
    assert len([p for namespace in build_cache.NAMESPACES for p in (cache / namespace).glob("*")]) > 10
    (cache / "notes.txt").write_text("not ours")
    result = CliRunner().invoke(main, ["cache", "clear"])
    assert result.exit_code == 0 and result.output.startswith("removed ") and f"from {cache}" in result.output
    assert sorted(p.name for p in cache.iterdir()) == sorted(["CACHEDIR.TAG", "cache.key", "notes.txt",
                                                              *build_cache.NAMESPACES])
    assert not any(any((cache / namespace).iterdir()) for namespace in build_cache.NAMESPACES)
    build_site(mini_site, tmp_path / "cleared")
    assert snapshot(tmp_path / "warm") == snapshot(tmp_path / "cleared")


def test_cache_info_prints_location_size_and_limit(cache, monkeypatch):
    assert build_cache.secret() is not None  # a cache site-builder made
    (cache / "renders").mkdir(parents=True)
    (cache / "renders" / ("a" * 64 + ".svg")).write_bytes(b"x" * 1_500_000)
    (cache / "vega-bundle-1.0.js").write_bytes(b"x" * 500_000)
    monkeypatch.setenv("SITE_BUILDER_CACHE_MAX_MB", "50")
    result = CliRunner().invoke(main, ["cache", "info"])
    assert result.exit_code == 0
    location, size, limit = result.output.splitlines()
    assert (location, size) == (f"location: {cache}", "size: 2.0 MB in 2 files") and limit.startswith("limit: 50 MB")


def test_an_unwritable_cache_only_costs_time(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("a file where the cache folder should be")
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(tmp_path / "file" / "cache"))
    spec = {"data": {"values": [{"x": 2}]}, "mark": "bar", "encoding": {"x": {"field": "x", "type": "quantitative"}}}
    assert images.chart_svg(spec).startswith(b"<svg") and images.chart_svg(spec) == images.chart_svg(spec)
    assert build_cache.cache_usage() == (0, 0) and build_cache.trim(0) == 0


# --- links --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("source, target, expected", [
    ("index.html", "en/index.html", "en/index.html"),
    ("en/index.html", "en/benchmarks/flux1/index.html", "benchmarks/flux1/index.html"),
    ("en/benchmarks/flux1/index.html", "assets/site.css", "../../../assets/site.css"),
    ("nl/articles/x/index.html", "it/", "../../../it/index.html"),
])
def test_relative_urls(source, target, expected):
    assert relative_url(source, target) == expected


@given(st.lists(st.sampled_from(["en", "nl", "articles", "charts", "a-b", "x"]), max_size=4),
       st.lists(st.sampled_from(["en", "nl", "articles", "charts", "a-b", "x"]), max_size=4),
       st.sampled_from(["index.html", "x.svg", "feed.xml", ""]))
def test_relative_urls_are_those_of_posixpath(start, target, name):
    """relative_url computes links without posixpath.relpath (thousands per build): the same answers."""
    import posixpath

    from_path = "/".join([*start, "index.html"])
    to_path = "/".join([*target, name]) if name else "".join(f"{folder}/" for folder in target)
    expected = posixpath.relpath(to_path + "index.html" if to_path.endswith("/") or not to_path else to_path,
                                 posixpath.dirname(from_path) or ".")
    assert relative_url(from_path, to_path) == expected
