"""Shared fixtures: the project root, a scratch-site factory, and one build of the shipped site."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data" / "mlperf-training"
# How long a test waits for something that should happen (a page to draw, a server to answer, a process to
# stop): generous, so that a loaded machine makes a test slower, never failed; a hang still ends.
PATIENCE = 300.0  # seconds


RUN_CACHE = "SITE_BUILDER_TEST_RUN_CACHE"  # the cache of the whole run, which pytest-xdist's workers share

# What writes under $HOME: the site-builder cache (XDG_CACHE_HOME), Chromium's profile, NSS database and
# fontconfig cache (HOME, XDG_*), matplotlib if a library loads it. `java` reads its home folder from the password
# file, not $HOME, so the validator tests give it `-Duser.home`.
ISOLATED_FOLDERS = {"HOME": "home", "XDG_CACHE_HOME": "home/.cache", "XDG_CONFIG_HOME": "home/.config",
                    "XDG_DATA_HOME": "home/.local/share", "XDG_STATE_HOME": "home/.local/state",
                    "MPLCONFIGDIR": "home/.config/matplotlib", "SITE_BUILDER_CACHE": "cache"}


def pytest_configure(config):
    """The tests never write under the user's home or into the user's cache (~/.cache/site-builder): one
    temporary folder for the whole run stands in for $HOME, its XDG folders and the site-builder cache. Set
    here, before any test module is imported, and inherited by the commands the tests start. A test that wants
    a cache of its own sets its own."""
    import os
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="site-builder-test-home-"))
    config._isolated = folder, {name: os.environ.get(name) for name in (*ISOLATED_FOLDERS, RUN_CACHE)}
    # pytest-xdist's workers (`-n 2`) start from the environment of the run that started them: they share its
    # cache, so that what one worker made (charts, renderings) the other does not make again. The cache is
    # made for builds side by side (entries are written whole, under a key file the first build makes).
    run_cache = os.environ.get(RUN_CACHE) if os.environ.get("PYTEST_XDIST_WORKER") else None
    for name, relative in ISOLATED_FOLDERS.items():
        (folder / relative).mkdir(parents=True, exist_ok=True)
        os.environ[name] = str(folder / relative)
    if run_cache and Path(run_cache).is_dir():
        os.environ["SITE_BUILDER_CACHE"] = run_cache
    else:
        os.environ[RUN_CACHE] = os.environ["SITE_BUILDER_CACHE"]


def pytest_unconfigure(config):
    import os
    import shutil

    folder, saved = getattr(config, "_isolated", (None, {}))
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def isolated_home(pytestconfig):
    """The run's temporary $HOME (see pytest_configure), for every test. At the end of the run it checks that no
    test set $HOME through os.environ and left it so (monkeypatch undoes its own changes)."""
    import os

    folder = pytestconfig._isolated[0]
    yield folder / "home"
    assert os.environ["HOME"] == str(folder / "home"), "a test changed $HOME without monkeypatch"


def pytest_collection_modifyitems(config, items):
    """The fast tier (`-m "not slow"`) leaves out, besides what is marked `slow` where it is written, every test
    of the benchmark harness and every test that reads the shipped site (one cold build of the whole report)."""
    for item in items:
        if item.get_closest_marker("benchmark") or "shipped_site" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite tests/golden/expected from a fresh build of tests/golden/site")


@pytest.fixture
def update_golden(request) -> bool:
    return request.config.getoption("--update-golden")


def write_files(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


MINI_CONFIG = """
    languages = ["en", "nl"]
    default_language = "en"
    base_url = "https://example.org/mini/"
    round = "v6.0"
    previous_round = "v5.1"
    templates_dir = "{templates}"
    locales_dir = "{locales}"

    [title]
    en = "Mini report"
    nl = "Mini-rapport"
    """

MINI_BENCHMARKS = """
    id,name,model,total_parameters_b,active_parameters_b,task,dataset,quality_target,runs_per_result,round_introduced,source
    deepseekv3_671b,DeepSeek-V3 671B,DeepSeek-V3,671,37,llm-pretraining,C4,eval_accuracy <= 3.6,3,v6.0,test fixture
    llama31_8b,Llama 3.1 8B,Llama 3.1 8B,8,8,llm-pretraining,C4,eval_accuracy <= 3.3,10,v5.1,test fixture
    """

HEADER = ("round,division,availability,hosting,submitter,system_name,system_id,accelerator,accelerator_vendor,"
          "accelerator_model,accelerators_per_node,number_of_nodes,total_accelerators,host_processor,framework,"
          "benchmark,score_minutes,number_of_runs,rcp_scaling_factor,score_source,metadata_source,notes")

MINI_V60 = HEADER + """
    v6.0,closed,available,cloud,Acme,a512,a512,GB300,NVIDIA,GB300,4,128,512,Grace,PyTorch,deepseekv3_671b,20.5,3,1.0,computed here from the result logs,systems json,
    v6.0,closed,available,cloud,Acme,a2048,a2048,GB300,NVIDIA,GB300,4,512,2048,Grace,PyTorch,deepseekv3_671b,6.25,3,1.0,computed here from the result logs,systems json,
    v6.0,closed,available,on-premise,Beta,b8,b8,MI355X,AMD,MI355X,8,1,8,EPYC,PyTorch,llama31_8b,86.8446,10,1.0,computed here from the result logs,systems json,
    v6.0,closed,available,on-premise,Beta,b16,b16,MI355X,AMD,MI355X,8,2,16,EPYC,PyTorch,llama31_8b,,10,,not computed (result logs not read),systems json,
    """

MINI_V51 = HEADER + """
    v5.1,closed,available,on-premise,Beta,b8,b8,MI355X,AMD,MI355X,8,1,8,EPYC,PyTorch,llama31_8b,99.5,10,1.0,mlperf_logging.result_summarizer 4.1.68,systems json,
    """

MINI_ARTICLES = {
    "content/en/hello.md": """
        ---
        title: "Hello, round"
        date: 2026-06-20
        summary: "A short test article."
        authors: ["Test desk"]
        tags: ["mlperf"]
        key: hello
        ---
        ## A heading

        Some text with a footnote.[^1]

        | a | b |
        |---|---|
        | 1 | 2 |

        [^1]: The source.
        """,
    "content/nl/hallo.md": """
        ---
        title: "Hallo, ronde"
        date: 2026-06-21
        summary: "Een kort testartikel."
        authors: ["Testredactie"]
        tags: ["mlperf"]
        key: hello
        ---
        ## Een kop

        Wat tekst.
        """,
    "content/nl/alleen.md": """
        ---
        title: "Alleen in het Nederlands"
        date: 2026-06-22
        summary: "Bestaat niet in het Engels."
        authors: ["Testredactie"]
        tags: ["mlperf"]
        key: only-dutch
        ---
        Alleen hier.
        """,
}


def csv_text(text: str) -> str:
    """CSV fixtures are written indented in this file: strip each line."""
    return "\n".join(line.strip() for line in text.strip().splitlines()) + "\n"


def mini_site_files(templates: str = str(ROOT / "site_builder/theme/templates"), locales: str = str(ROOT / "site_builder/theme/locales")) -> dict[str, str]:
    return {
        "site.toml": MINI_CONFIG.format(templates=templates, locales=locales),
        "data/benchmarks.csv": csv_text(MINI_BENCHMARKS),
        "data/rounds/v6.0/results.csv": csv_text(MINI_V60),
        "data/rounds/v5.1/results.csv": csv_text(MINI_V51),
        # accelerators and vendors are data too: the shipped tables
        "data/accelerators.csv": (ROOT / "data/accelerators.csv").read_text(encoding="utf-8"),
        "data/vendors.csv": (ROOT / "data/vendors.csv").read_text(encoding="utf-8"),
        **MINI_ARTICLES,
    }


@pytest.fixture
def mini_site(tmp_path) -> Path:
    """A small two-language site (en, nl) using the shipped templates and catalogs."""
    return write_files(tmp_path / "site", mini_site_files())


@pytest.fixture(scope="session")
def shipped_site(tmp_path_factory) -> Path:
    """One build of the repository's own site, shared by the tests that only read it. SITE_BUILDER_TEST_SITE names
    a site already built from this checkout, to read instead (a quick rerun of the tests that read it; the
    first build of the shipped site with every round takes minutes)."""
    import os

    from site_builder.build import build_site

    if os.environ.get("SITE_BUILDER_TEST_SITE"):
        return Path(os.environ["SITE_BUILDER_TEST_SITE"])
    out = tmp_path_factory.mktemp("shipped") / "_site"
    build_site(ROOT, out)
    return out


ARABIC_ARTICLE = """
    ---
    title: "نتائج الجولة"
    date: 2026-06-25
    summary: "مقال تجريبي باللغة العربية."
    authors: ["فريق البيانات"]
    tags: ["mlperf"]
    key: arabic-only
    ---
    ## القسم الأول

    نص قصير.
    """


@pytest.fixture
def arabic_site(mini_site):
    """The mini site plus Arabic (right-to-left), added by configuration and content only."""
    config = mini_site / "site.toml"
    config.write_text(config.read_text().replace('["en", "nl"]', '["en", "nl", "ar"]').replace(
        'nl = "Mini-rapport"', 'nl = "Mini-rapport"\nar = "تقرير مصغر"'))
    return write_files(mini_site, {"content/ar/natayij.md": ARABIC_ARTICLE})


@pytest.fixture
def warm_cache(tmp_path, monkeypatch) -> Path:
    """A cache of the test's own, warmed from the run's cache when there is one (a cold build is slow)."""
    import shutil

    from site_builder import cache

    folder = tmp_path / "cache"
    if cache.cache_dir().is_dir():
        shutil.copytree(cache.cache_dir(), folder, ignore=shutil.ignore_patterns("*.tmp"))
    monkeypatch.setenv("SITE_BUILDER_CACHE", str(folder))
    monkeypatch.delenv("SITE_BUILDER_CACHE_MAX_MB", raising=False)
    return folder


def beside(folder: Path) -> list[str]:
    """Names in `folder`, without the spare tree a build keeps beside its output (`output.spare_path`; the
    tests of the spare look at it themselves)."""
    return sorted(p.name for p in folder.iterdir() if not (p.name.startswith(".") and p.name.endswith(".spare")))
