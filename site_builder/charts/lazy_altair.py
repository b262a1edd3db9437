"""Altair, loaded when a chart is first built rather than when the charts' catalog is imported: a build whose
charts all come from its cache never builds one, and Altair (with its schema) is 25 MB of every build's process.
The standard library's lazy loader: the module object stands in, and loads on its first attribute read."""

from __future__ import annotations

import importlib.util
import sys


def _lazy(name: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


alt = _lazy("altair")
