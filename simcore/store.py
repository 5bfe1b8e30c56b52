"""Results on disk: a directory of Parquet part files, one per finished batch,
plus ``_run.json`` describing the run (see docs/common/results.md).

A dataset is a unit with one identity — game, engine behaviour version,
ruleset hash, seed, cells and batch layout — recorded once in ``_run.json``
and again in every part's own Parquet key-value metadata (key
``simcore.run``). Every part is checked against the identity whenever the
dataset is read, reported or resumed: a part that does not belong (another
seed's run, the other game, a renamed file, a batch off the run's grid) is
refused with one line naming it, and never counted.

Each part is written to a hidden temporary name and renamed (simcore.atomic),
so a part file on disk is always a whole batch; an interrupted run loses only
the batches that were still being played.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from . import atomic
from .errors import InputError
from .inputs import MAX_BATCH, MAX_GAMES, MAX_SEED

RUN_FILE = "_run.json"
META_KEY = b"simcore.run"
# what makes a dataset one unit: a part whose own record differs in any of
# these is another run's (the engine hash and the command line may differ:
# another build of the same behaviour version may finish a run)
# (a part's ``first`` is its own first game; the run's is checked by the grid)
IDENTITY = ("package", "behaviour_version", "ruleset_hash", "experiment", "key", "seed", "games", "batch",
            "target_ci", "cells")


def part_name(cell: int, first: int) -> str:
    """File name of the batch of cell ``cell`` starting at game ``first``."""
    return f"part-c{cell:04d}-g{first:012d}.parquet"


def parse_part(name: str):
    """(cell, first) of a part file name, or None for any other file."""
    if not (name.startswith("part-c") and name.endswith(".parquet")):
        return None
    try:
        c, g = name[len("part-c"):-len(".parquet")].split("-g")
        cell, first = int(c), int(g)
    except ValueError:
        return None
    return (cell, first) if name == part_name(cell, first) else None


def _written_here(name: str) -> bool:
    return name == RUN_FILE or parse_part(name) is not None


def is_tmp(name: str) -> bool:
    """Whether ``name`` is the temporary name of a file a dataset holds (a
    write cut short: ``._run.json.tmp``, ``.part-…parquet.tmp``)."""
    t = atomic.tmp_of(name)
    return t is not None and _written_here(t)


def is_ours(name: str) -> bool:
    """Whether a file in a dataset directory is one the tool writes there."""
    return _written_here(name) or is_tmp(name)


def foreign(path) -> list:
    """Names in dataset directory ``path`` that the tool did not write."""
    return sorted(n for n in os.listdir(path) if not is_ours(n))


def clean_tmp(path):
    """Delete the temporary files of a dataset's writes that were cut short
    (a killed run); never a file of any other name."""
    for n in os.listdir(path):
        if is_tmp(n) and (Path(path) / n).is_file():
            (Path(path) / n).unlink(missing_ok=True)


class _RunRecord(BaseModel):
    """The part of ``_run.json`` every reader relies on (the rest is free)."""
    model_config = ConfigDict(extra="allow", strict=True)
    package: str
    seed: int = Field(ge=0, le=MAX_SEED)
    games: int = Field(ge=1, le=MAX_GAMES)
    first: int = Field(0, ge=0, le=MAX_GAMES)
    batch: list[int]
    target_ci: float | None = Field(None, gt=0, lt=0.5)
    cells: list[dict] = Field(min_length=1)

    @model_validator(mode="after")
    def _layout(self):
        if len(self.batch) != len(self.cells):
            raise ValueError(f"batch: one size per cell ({len(self.cells)} cells, {len(self.batch)} sizes)")
        if any(not 1 <= b <= MAX_BATCH for b in self.batch):
            raise ValueError(f"batch: sizes must be 1 to {MAX_BATCH}")
        return self


def write_run(out: Path, run: dict):
    """Write the run description ``_run.json`` (atomically)."""
    atomic.write_text(Path(out) / RUN_FILE, json.dumps(run, indent=1, default=str))


def read_run(path, package=None) -> dict:
    """The run description of results directory ``path``; with ``package``,
    a dataset of the other game is refused naming the command to use."""
    p = Path(path)
    if not p.is_dir():
        raise InputError(f"{path}: no such results directory")
    f = p / RUN_FILE
    if not (f.exists() or f.is_symlink()):
        raise InputError(f"{path}: not a results directory (no {RUN_FILE})")
    from . import inputs    # a regular file, bounded in size and depth
    try:
        run = inputs.parse_json(inputs.read_bytes_bounded(f, "run description", inputs.MAX_RUN_BYTES), f)
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError(f"{f}: corrupt run description ({type(e).__name__}: {e})") from None
    except OSError as e:
        raise InputError(f"{f}: cannot read ({atomic.cause(e)})") from None
    if not isinstance(run, dict):
        raise InputError(f"{f}: corrupt run description (not a JSON object)")
    try:
        _RunRecord.model_validate(run)
    except ValidationError as e:
        from .rulesets import format_errors
        raise InputError(f"{f}: corrupt run description ({format_errors(e)[0]}); restore the file "
                         "or start a new run in another directory") from None
    if package and run["package"] != package:
        raise InputError(f"{path}: holds {run['package']} games, not {package} games "
                         f"(use: {run['package']} report {path})")
    return run


def _grid(run):
    """Per cell: ``{first: games}`` of the batches a run consists of."""
    start, end = int(run.get("first", 0)), int(run.get("first", 0)) + int(run["games"])
    return [{f: min(b, end - f) for f in range(start, end, b)} for b in run["batch"]]


def differs(mine, theirs):
    """A readable reason why a part's record is not this run's, or None."""
    for k in IDENTITY:
        a, b = mine.get(k), theirs.get(k)
        if a == b:
            continue
        if k == "package":
            return f"it holds {b} games, the run {a} games"
        if k == "cells":
            return "its cells (level, players, policy ...) are another run's"
        if k in ("games", "batch", "target_ci"):
            return f"another batch layout ({k} {json.dumps(b)}, the run's {json.dumps(a)})"
        if k == "key":
            return "it holds games of another experiment plan"
        return f"{k} {json.dumps(b)}, the run's is {json.dumps(a)}"
    return None


def check_part(path, run, file: Path, grid=None):
    """Refuse (InputError naming ``file``) a part that does not belong to
    ``run``: judged by the part's own key-value metadata, its name and its
    row count. Returns the number of games it holds."""
    name = file.name
    key = parse_part(name)
    refuse = f"{file}: not a part of the run in {path}"
    advice = "move it out of the directory (it was not counted)"
    if key is None:
        raise InputError(f"{refuse}: not a part file name; {advice}")
    from .inputs import MAX_PART_BYTES, regular_file
    regular_file(file, "results part file", MAX_PART_BYTES)     # a FIFO here would hang the reader
    try:
        md = pq.read_metadata(file)
    except Exception as e:   # pyarrow raises several types for damaged files
        raise InputError(f"{file}: corrupt results file ({type(e).__name__}: {str(e).splitlines()[0]}); "
                         "move it away and resume to play its games again") from None
    raw = (md.metadata or {}).get(META_KEY)
    try:
        meta = json.loads(raw) if raw is not None else None
    except ValueError:
        meta = None
    if not isinstance(meta, dict):
        raise InputError(f"{refuse}: it carries no run description; {advice}")
    why = differs(run, meta)
    if why:
        raise InputError(f"{refuse}: {why}; {advice}")
    cell, first = key
    if (meta.get("cell"), meta.get("first")) != (cell, first):
        raise InputError(f"{refuse}: its name says cell {cell} from game {first}, its metadata cell "
                         f"{meta.get('cell')} from game {meta.get('first')} (a renamed file); {advice}")
    grid = grid or _grid(run)
    if cell >= len(grid) or first not in grid[cell]:
        raise InputError(f"{refuse}: games from {first} of cell {cell} are not a batch of this run; {advice}")
    if md.num_rows != grid[cell][first] or meta.get("n") != md.num_rows:
        raise InputError(f"{refuse}: it holds {md.num_rows} games, the batch {grid[cell][first]}; {advice}")
    return md.num_rows


def parts(path) -> dict:
    """``{(cell, first): Path}`` of the part files in ``path`` (by name only)."""
    return {k: Path(path) / n for n in os.listdir(path) if (k := parse_part(n)) is not None}


def checked_parts(path, run) -> dict:
    """``{(cell, first): Path}`` of the parts of ``path``, every one checked
    against ``run`` (check_part); any other Parquet file there is refused too,
    since a Parquet reader given the directory would count it."""
    found = parts(path)
    stray = [n for n in os.listdir(path) if n.endswith(".parquet") and parse_part(n) is None]
    if stray:
        raise InputError(f"{Path(path) / stray[0]}: not a part of the run in {path}: not a part file name; "
                         "move it out of the directory (it was not counted)")
    grid = _grid(run)
    for _k, f in sorted(found.items()):
        check_part(path, run, f, grid)
    return found


def write_part(out: Path, cell: int, first: int, df: pd.DataFrame, meta: dict):
    """Write one finished batch atomically; returns its path."""
    table = pa.Table.from_pandas(df, preserve_index=False)
    md = dict(table.schema.metadata or {})
    md[META_KEY] = json.dumps(meta, default=str).encode()
    table = table.replace_schema_metadata(md)
    return atomic.write_with(Path(out) / part_name(cell, first),
                             lambda tmp: pq.write_table(table, tmp, compression="zstd"))


def read_column(file: Path, column: str):
    """One column of one part file as a numpy array; a corrupt file is bad input."""
    try:
        return pq.read_table(file, columns=[column]).column(0).to_numpy()
    except Exception as e:   # pyarrow raises several types for damaged files
        raise InputError(f"{file}: corrupt results file ({type(e).__name__}: {str(e).splitlines()[0]}); "
                         "move it away and resume to play its games again") from None


def column_names(path, package=None) -> list:
    """The columns of a results directory (from its first part file)."""
    run = read_run(path, package)
    files = [f for _k, f in sorted(checked_parts(path, run).items())]
    if not files:
        raise InputError(f"{path}: the run has no finished batches yet")
    try:
        return pq.read_schema(files[0]).names
    except Exception as e:
        raise InputError(f"{files[0]}: corrupt results file ({type(e).__name__})") from None


def read_dataset(path, columns=None, package=None) -> pd.DataFrame:
    """All rows of a results directory (only ``columns`` if given), in
    configuration-cell then game order; every part is checked to belong."""
    run = read_run(path, package)
    files = [f for _k, f in sorted(checked_parts(path, run).items())]
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
    # the run's metadata is read_run's, not the frame's: pandas deep-copies
    # DataFrame.attrs on every operation, which made analysis several times slower
    return df


def _first_corrupt(files):
    for f in files:
        try:
            pq.read_metadata(f)
        except Exception:
            return f
    return None
