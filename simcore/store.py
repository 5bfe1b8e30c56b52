"""Results on disk: a directory of Parquet part files, one per finished batch,
plus ``_run.json`` describing the run (see docs/results.md).

Each part is written to a hidden temporary name and renamed, so a part file
on disk is always a whole batch; an interrupted run loses only the batches
that were still being played. Every part also carries the run's metadata in
its Parquet key-value metadata (key ``simcore.run``), so a part file copied
out of its directory still says where it came from.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from .errors import InputError

RUN_FILE = "_run.json"
META_KEY = b"simcore.run"


def part_name(cell: int, first: int) -> str:
    """File name of the batch of cell ``cell`` starting at game ``first``."""
    return f"part-c{cell:04d}-g{first:012d}.parquet"


def parse_part(name: str):
    """(cell, first) of a part file name, or None for any other file."""
    if not (name.startswith("part-c") and name.endswith(".parquet")):
        return None
    try:
        c, g = name[len("part-c"):-len(".parquet")].split("-g")
        return int(c), int(g)
    except ValueError:
        return None


def write_run(out: Path, run: dict):
    """Write the run description ``_run.json`` (atomically)."""
    tmp = out / (".tmp-" + RUN_FILE)
    tmp.write_text(json.dumps(run, indent=1, default=str))
    os.replace(tmp, out / RUN_FILE)


def read_run(path) -> dict:
    """The run description of results directory ``path``."""
    p = Path(path)
    if not p.is_dir():
        raise InputError(f"{path}: no such results directory")
    f = p / RUN_FILE
    if not f.is_file():
        raise InputError(f"{path}: not a results directory (no {RUN_FILE})")
    try:
        run = json.loads(f.read_text())
        run["cells"], run["seed"], run["games"], run["batch"]
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(f"{f}: corrupt run description ({type(e).__name__}: {e})") from None
    return run


def write_part(out: Path, cell: int, first: int, df: pd.DataFrame, meta: dict):
    """Write one finished batch atomically; returns its path."""
    table = pa.Table.from_pandas(df, preserve_index=False)
    md = dict(table.schema.metadata or {})
    md[META_KEY] = json.dumps(meta, default=str).encode()
    table = table.replace_schema_metadata(md)
    name = part_name(cell, first)
    tmp = out / ("." + name + ".tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, out / name)
    return out / name


def parts(path) -> dict:
    """``{(cell, first): Path}`` of the part files in ``path``."""
    return {k: Path(path) / n for n in os.listdir(path) if (k := parse_part(n)) is not None}


def read_column(file: Path, column: str):
    """One column of one part file as a numpy array; a corrupt file is bad input."""
    try:
        return pq.read_table(file, columns=[column]).column(0).to_numpy()
    except Exception as e:   # pyarrow raises several types for damaged files
        raise InputError(f"{file}: corrupt results file ({type(e).__name__}: {str(e).splitlines()[0]}); "
                         "move it away and resume to play its games again") from None


def column_names(path) -> list:
    """The columns of a results directory (from its first part file)."""
    files = [f for _k, f in sorted(parts(path).items())] if Path(path).is_dir() else []
    if not files:
        read_run(path)   # names the problem: no directory, not a results directory
        raise InputError(f"{path}: the run has no finished batches yet")
    try:
        return pq.read_schema(files[0]).names
    except Exception as e:
        raise InputError(f"{files[0]}: corrupt results file ({type(e).__name__})") from None


def read_dataset(path, columns=None) -> pd.DataFrame:
    """All rows of a results directory (only ``columns`` if given), in
    configuration-cell then game order."""
    run = read_run(path)
    files = [f for _k, f in sorted(parts(path).items())]
    if not files:
        raise InputError(f"{path}: the run has no finished batches yet")
    try:
        table = ds.dataset([str(f) for f in files], format="parquet").to_table(columns=columns)
    except Exception as e:
        bad = _first_corrupt(files)
        where = f"{bad}: corrupt results file" if bad else f"{path}: cannot read the results"
        raise InputError(f"{where} ({type(e).__name__}: {str(e).splitlines()[0]})") from None
    # convert column by column, releasing Arrow memory as it goes (halves the peak)
    df = table.to_pandas(split_blocks=True, self_destruct=True)
    del table
    df.attrs["run"] = run
    return df


def _first_corrupt(files):
    for f in files:
        try:
            pq.read_metadata(f)
        except Exception:
            return f
    return None
