"""Screenshots of built pages in headless Chromium, for READMEs, reviews and social cards.

Needs Playwright (`pip install playwright`) and a Chromium binary (Debian: `apt-get install chromium`);
Playwright's own browser download is not used.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from site_builder.errors import Problem, SiteError

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def find_chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise SiteError(Problem("no Chromium found on PATH", hint="install it, e.g. apt-get install chromium"))


def screenshot(page_file: Path, target: Path, width: int = 1200, height: int = 900, full_page: bool = False,
               color_scheme: str = "light") -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SiteError(Problem("taking screenshots needs Playwright", hint="pip install playwright")) from None
    if not page_file.is_file():
        raise SiteError(Problem(f"no such page: {page_file}"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=color_scheme)
            page.goto(page_file.resolve().as_uri())
            page.wait_for_load_state("networkidle")
            if page.locator(".vega-chart").count():
                page.wait_for_function("[...document.querySelectorAll('.vega-chart')].every("
                                       "el => el.querySelector('svg.marks'))", timeout=15000)
            target.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(target), full_page=full_page)
        finally:
            browser.close()
