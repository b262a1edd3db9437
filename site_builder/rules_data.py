"""The rules each round's benchmarks were run under, read from MLCommons' mlperf-logging: the quality target
(the compliance checker's `closed_<benchmark>.yaml`) and the reference convergence points (the RCP checker's
`rcps_<benchmark>.json`). `site-builder rules-data` writes them to data/rules.csv, one row per round and
benchmark with results; `history.rule_changes` compares consecutive rounds. The rules are data, with their
source, so that no rule of any round is written in the code."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd

from site_builder.data import Dataset
from site_builder.errors import Problem, SiteError

RULES_FILE = "rules.csv"
COLUMNS = ["round", "benchmark", "benchmark_dir", "ruleset", "ruleset_from", "quality_target", "quality_check",
           "rcp_batch_sizes", "rcp_digest", "source"]
USAGE = "training"
# The rules version a score was made under, as the results tables name it ("training rules 4.1.0",
# "rcp_checker (training 6.0.0)").
_RULESET_IN_SOURCE = re.compile(r"\btraining(?: rules)? (\d+\.\d+\.\d+)\b")
# One side of the quality check: `v['value'] >= 0.72`, `v['value']['BBOX'] >= 0.377`, `0.15 <= v['value']['CLIP']`.
_VALUE = r"v\['value'\](?:\['(\w+)'\])?"
_COMPARED = re.compile(rf"{_VALUE}\s*(>=|<=)\s*(-?[\d.]+)")
_COMPARED_LEFT = re.compile(rf"(-?[\d.]+)\s*<=\s*{_VALUE}")


def round_ruleset(results: pd.DataFrame, round_name: str) -> tuple[str | None, str]:
    """The rules version of a round and where it is read: the version its scores name most often, else the
    one `ingest` assumes for the round's name (vX.Y -> X.Y.0)."""
    found = Counter(m for source in results["score_source"] for m in _RULESET_IN_SOURCE.findall(str(source)))
    if found:
        return sorted(found.items(), key=lambda item: (-item[1], item[0]))[0][0], "score_source"
    match = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.(\d+))?", round_name)
    if match is None:
        return None, ""
    return f"{match[1]}.{match[2]}.{match[3] or 0}", "round name"


def readable_target(check: str) -> str:
    """The threshold of a compliance check, without its sanity bounds: "eval_accuracy >= 0.72" for
    `v['value'] >= 0.72 and v['value'] < 1.0`. Bounds of 0 and 1 are sanity limits, not the target."""
    parts = [(key, op, number) for key, op, number in _COMPARED.findall(check)]
    parts += [(key, ">=", number) for number, key in _COMPARED_LEFT.findall(check)]
    kept = []
    for key, op, number in parts:
        value = float(number)
        if (op == "<=" and value == 1.0) or (op == ">=" and value == 0.0):
            continue
        text = f"eval_accuracy{'[' + key + ']' if key else ''} {op} {number}"
        if text not in kept:
            kept.append(text)
    return ", ".join(kept)


def _rcp_summary(path: Path) -> tuple[str, str]:
    """The batch sizes of a benchmark's RCPs and a digest of everything that defines them (batch size,
    hyperparameters, convergence samples): a changed digest is a changed RCP set."""
    entries = json.loads(path.read_text(encoding="utf-8"))
    points = []
    for entry in entries.values():
        converge = next((v for k, v in entry.items() if k.lower() in ("epochs to converge", "samples to converge")), [])
        points.append({"bs": entry.get("BS"), "hyperparams": entry.get("Hyperparams", {}), "converge": converge})
    points.sort(key=lambda p: json.dumps(p, sort_keys=True))
    digest = hashlib.sha256(json.dumps(points, sort_keys=True).encode()).hexdigest()[:12]
    sizes = sorted({p["bs"] for p in points if isinstance(p["bs"], int)})
    return ";".join(map(str, sizes)), digest


def rules_rows(dataset: Dataset, rounds: list[str], package: Path, version: str) -> list[dict]:
    """One row per round and benchmark with results: the rules of the round's ruleset for its folder name."""
    rows = []
    for round_name in rounds:
        results = dataset.round(round_name)
        ruleset, where = round_ruleset(results, round_name)
        if ruleset is None:
            continue
        folders = results.drop_duplicates("benchmark")[["benchmark", "benchmark_dir"]].sort_values("benchmark")
        for benchmark, folder in zip(folders["benchmark"], folders["benchmark_dir"]):
            checker = package / "compliance_checker" / f"{USAGE}_{ruleset}" / f"closed_{folder}.yaml"
            rcps = package / "rcp_checker" / f"{USAGE}_{ruleset}" / f"rcps_{folder}.json"
            check = ""
            if checker.is_file():
                found = re.search(r'ATLEAST_ONE_CHECK:\s*"(.*)"', checker.read_text(encoding="utf-8"))
                check = " ".join(found.group(1).split()) if found else ""
            sizes, digest = _rcp_summary(rcps) if rcps.is_file() else ("", "")
            shown = [str(p.relative_to(package.parent)) for p in (checker, rcps) if p.is_file()]
            rows.append({"round": round_name, "benchmark": benchmark, "benchmark_dir": folder, "ruleset": ruleset,
                         "ruleset_from": where, "quality_target": readable_target(check), "quality_check": check,
                         "rcp_batch_sizes": sizes, "rcp_digest": digest,
                         "source": f"mlperf-logging {version}: " + ", ".join(shown) if shown else ""})
    return rows


def write_rules(dataset: Dataset, rounds: list[str], data_dir: Path) -> Path:
    """Write data/rules.csv from the installed mlperf-logging."""
    try:
        import mlperf_logging
        from importlib.metadata import version
    except ImportError:
        raise SiteError(Problem("the rules-data command needs MLCommons' mlperf-logging, which is not installed",
                                hint="pip install 'site-builder[ingest]'")) from None
    package = Path(mlperf_logging.__file__).parent
    rows = rules_rows(dataset, rounds, package, version("mlperf-logging"))
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path = data_dir / RULES_FILE
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def load_rules(data_dir: Path) -> pd.DataFrame:
    """data/rules.csv, or an empty table where the project has none (no rule change is then marked)."""
    path = data_dir / RULES_FILE
    if not path.is_file():
        return pd.DataFrame(columns=COLUMNS)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise SiteError(Problem(f"missing column '{missing[0]}'", str(path), 1,
                                hint="regenerate it with: site-builder rules-data"))
    return frame[COLUMNS]
