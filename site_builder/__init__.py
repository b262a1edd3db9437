"""site-builder: multilingual static report sites from Markdown articles and benchmark results.

The Python API (see README.md, "Use from Python"):

    from site_builder import build_site, SiteError
    report = build_site(Path("my-report"), out_dir=Path("public"))

`build_site`, `BuildReport`, `SiteError` and `Problem` are imported on first use, so that importing the package
(and `site-builder --help`) stays light.
"""

__version__ = "0.1.0"
__all__ = ["BuildReport", "Problem", "SiteError", "build_site", "__version__"]

_LAZY = {"build_site": "site_builder.build", "BuildReport": "site_builder.build",
         "SiteError": "site_builder.errors", "Problem": "site_builder.errors"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'site_builder' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
