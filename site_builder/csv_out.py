"""CSV files the site offers for download, safe to open in a spreadsheet.

A text cell that starts with "=", "+", "-", "@", a tab or a carriage return is a formula to spreadsheet
programs (`=HYPERLINK(...)` in a submitter's name would be a live link, or worse). Such a cell is
neutralized as OWASP recommends: a single quote is put before it and the cell is quoted. Only text is
touched: a number column's -1.5 stays a number.
"""

from __future__ import annotations

import csv
import io

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def frame_csv(frame: pd.DataFrame) -> str:
    """`frame` as CSV text, as pandas writes it (its number formats), with its text cells neutralized."""
    written = io.StringIO()
    frame.to_csv(written, index=False, lineterminator="\n")
    text_columns = [not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))
                    for dtype in frame.dtypes]
    out = io.StringIO()
    for number, row in enumerate(csv.reader(io.StringIO(written.getvalue(), newline=""))):
        # The header is text too: a chart may make columns of submitter names.
        if row == [""]:  # one empty cell: quoted, or it would be a blank line
            out.write('""\n')
            continue
        out.write(",".join(_cell(value, number == 0 or text_columns[index]) for index, value in enumerate(row)))
        out.write("\n")
    return out.getvalue()


def _cell(value: str, text: bool) -> str:
    if text and value.startswith(FORMULA_STARTS):
        return '"' + ("'" + value).replace('"', '""') + '"'
    if any(c in value for c in ',"\r\n'):  # as the csv module quotes (pandas wrote it so)
        return '"' + value.replace('"', '""') + '"'
    return value
