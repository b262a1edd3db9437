"""A result's RCP normalization, from its runs' figures, as mlperf-logging's rcp_checker computes it.

The rules scale the score of a result whose runs converge, on average, in fewer samples (or epochs) than the
reference convergence points (RCPs) of its global batch size: the score is multiplied by RCP mean / its mean
(at least 1). The submission checker writes that factor to the result's scaling.json; a result folder that
holds none is normalized here from the figures the checker reads: the global batch size and each run's samples
(epochs) at run_stop, a run that did not converge counting as never converging. The RCP tables, the interpolation
between batch sizes and each benchmark's rules (runs dropped from the mean, the maximum speed-up) are the
checker's own: it is called, not rewritten.
"""

from __future__ import annotations

import logging
import re
import tempfile
from dataclasses import dataclass

from site_builder.errors import Problem, SiteError

USAGE = "training"
NEVER = 1e9  # the checker's epochs for a run that did not converge
INSTALL_HINT = "pip install 'mlperf-logging>=4.1.68'"


@dataclass(frozen=True)
class Normalization:
    factor: float | None  # None: the factor cannot be computed from what was read (`how` says why)
    how: str  # which RCP the factor rests on, in the checker's words, or why there is none
    passed: bool | None = None  # the checker's verdict: converging faster than the RCPs allow fails it


def rules_version(round_name: str) -> str:
    """mlperf-logging's rules version of a round: "vX.Y" -> "X.Y.0"."""
    match = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.(\d+))?", round_name)
    if match is None:
        raise SiteError(Problem(f"cannot tell the rules version from round {round_name!r}",
                                hint="pass the mlperf-logging rules version as --ruleset X.Y.Z"))
    return f"{match[1]}.{match[2]}.{match[3] or 0}"


def normalization(benchmark: str, round_name: str, runs) -> Normalization:
    """The factor of one result whose every run was read (`runs_tables.Run`s)."""
    try:
        from mlperf_logging.rcp_checker.rcp_checker import RCP_Checker
    except ImportError:
        raise SiteError(Problem("scoring results from their runs needs MLCommons' mlperf-logging (its RCPs), which "
                                "is not installed", hint=f"install it with: {INSTALL_HINT}")) from None
    try:  # the run tables keep these as written: a value that is no number gets no factor, and says so
        sizes = {float(run.global_batch_size) for run in runs if run.global_batch_size}
        samples = [float(run.samples) if run.converged and run.samples else None for run in runs]
    except ValueError:
        return Normalization(None, "a run's global_batch_size or samples at run_stop is not a number")
    if not sizes:
        return Normalization(None, "no run's global_batch_size was read")
    if len(sizes) > 1:
        return Normalization(None, f"the runs give {len(sizes)} global batch sizes")
    batch = int(sizes.pop())
    if any(run.converged and not run.samples for run in runs):
        return Normalization(None, "a converged run's samples at run_stop were not read")
    # The checker rounds an epoch count to 3 decimals; a sample count is a whole number, which that leaves as it is.
    epochs = [round(value, 3) if run.converged else NEVER for run, value in zip(runs, samples)]
    if sum(1 for e in epochs if e == NEVER) > 1:
        return Normalization(None, "more than one run did not converge")
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)  # the checker reports through the root logger
    try:
        try:
            checker = RCP_Checker(USAGE, rules_version(round_name), benchmark, False)
        except Exception as error:  # a bare Exception for rules it does not know, KeyError for a benchmark
            return Normalization(None, f"mlperf-logging has no {USAGE} RCPs for {benchmark!r} ({error})")
        record, how = checker._find_rcp(batch, "pruned_rcps"), "RCP found"
        if record is None:
            low = checker._find_top_min_rcp(batch, "pruned_rcps")
            high = checker._find_bottom_max_rcp(batch, "pruned_rcps")
            if low is not None and high is not None:
                record, how = checker._create_interp_rcp(batch, low, high)[1], "RCP interpolated"
            elif high is not None:
                record, how = checker._find_min_rcp("pruned_rcps"), "the smallest batch size's RCP"
            else:
                return Normalization(None, f"no RCP at or around global batch size {batch}")
        with tempfile.TemporaryDirectory() as scratch:  # where the checker writes the scaling.json it would set
            passed, factor = checker._eval_submission_record(record, epochs, scratch)
    finally:
        logging.disable(previous)
    return Normalization(float(factor), f"{how} (global batch size {batch})", bool(passed))
