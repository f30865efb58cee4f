"""npu_reference_oracle: an independent computation of the msprof reference export
(core/npu_reference_export) with the csv module, and a checker of exported files against it.

Per operator type and signature (input shapes, input data types, input formats, output
shapes, output data types) of an op_summary / kernel_details table: the count, the average,
the exact median and the sample standard deviation of the durations (decimal microseconds to
integer ns, rounded half up), the mean of each lower-case counter column over its numeric
cells, and the first non-empty OP State, Task Type / Accelerator Core and Output Formats.
Cells are cleaned as msprof writes them: blanks, a trailing TAB, and surrounding double quotes
(repeatedly); empty, N/A, NA and None are unknown. Imported by npu_reference_export.py and
npu_reference_zip.py."""
import csv
import io
import math
import re
import statistics
from decimal import Decimal, ROUND_HALF_UP

BASE = ["OP State", "Accelerator Core", "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes",
        "Output Data Types", "Output Formats", "Average Duration(us)", "Profiling Average Duration(us)",
        "Profiling Median Duration(us)", "Profiling Std Duration(us)"]
SIG = ["Input Shapes", "Input Data Types", "Input Formats", "Output Shapes", "Output Data Types"]
NUMBER = re.compile(r"^[0-9.+\-eE]+$")
DECIMAL = re.compile(r"^\+?(\d*)(?:\.(\d*))?$")


def clean(v):
    """A cell's text as msprof means it, None when unknown."""
    if v is None:
        return None
    while True:
        before = v
        v = v.strip(" \t\r\n")
        if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
            v = v[1:-1]
        if v == before:
            break
    return None if v == "" or v.lower() in ("n/a", "na", "none") else v


def us_to_ns(text):
    m = DECIMAL.match(text or "")
    if not m or not (m.group(1) or m.group(2)):
        return None
    return int((Decimal(text) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def expected(paths):
    """{type: {signature: stats}} and the counter names in first-seen order, over the files."""
    groups, counters = {}, []
    for path in paths:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        head = [clean(h) or "" for h in rows[0]]
        tcol = next(i for i, h in enumerate(head) if h in ("OP Type", "Type", "Op Type"))
        dcol = next(i for i, h in enumerate(head) if h in ("Task Duration(us)", "Duration(us)"))
        col = {h: i for i, h in reversed(list(enumerate(head)))}
        ccols = [(i, h) for i, h in enumerate(head) if h[:1].islower()]
        for _, h in ccols:
            if h not in counters:
                counters.append(h)

        def cell(row, name):
            i = col.get(name)
            return clean(row[i]) if i is not None and i < len(row) else None

        for row in rows[1:]:
            if not row:
                continue
            t = clean(row[tcol]) if tcol < len(row) else None
            d = us_to_ns(clean(row[dcol])) if dcol < len(row) else None
            if not t or d is None:
                continue
            sig = tuple(cell(row, s) for s in SIG)
            g = groups.setdefault(t, {}).setdefault(sig, {"durs": [], "sums": {}, "ns": {}, "first": {}})
            g["durs"].append(d)
            for key, names in (("OP State", ["OP State"]), ("Accelerator Core", ["Task Type", "Accelerator Core"]),
                               ("Output Formats", ["Output Formats"])):
                v = next((cell(row, n) for n in names if cell(row, n) is not None), None)
                if v is not None and key not in g["first"]:
                    g["first"][key] = v
            for i, h in ccols:
                v = clean(row[i]) if i < len(row) else None
                if v is not None and NUMBER.match(v):
                    try:
                        x = float(v)
                    except ValueError:
                        continue
                    if math.isfinite(x):
                        g["sums"][h] = g["sums"].get(h, 0.0) + x
                        g["ns"][h] = g["ns"].get(h, 0) + 1
    for t in groups:
        for g in groups[t].values():
            n = len(g["durs"])
            g["count"] = n
            g["avg_ns"] = sum(g["durs"]) / n
            g["median_us"] = statistics.median(g["durs"]) / 1000
            g["std_us"] = statistics.stdev(g["durs"]) / 1000 if n >= 2 else None
            g["counters"] = {h: g["sums"][h] / g["ns"][h] for h in g["sums"]}
    return groups, counters


def close(a, b, what):
    assert (a is None) == (b is None), f"{what}: {a!r} != {b!r}"
    if a is not None:
        assert abs(a - b) <= 5e-7 + 1e-9 * abs(b), f"{what}: {a!r} != {b!r}"


def num(cell):
    return None if cell == "" else float(cell)


def check_export(files, groups, counters, refs=None):
    """files: {file name: CSV text}; every operator type a file, every signature a row, every
    cell as the oracle says. refs: {type: {sig: reference_us}} the run's own reference."""
    refs = refs or {}
    assert set(files) == {t + ".csv" for t in groups}, (sorted(files), sorted(groups))
    for t, sigs in groups.items():
        rows = list(csv.reader(io.StringIO(files[t + ".csv"], newline="")))
        type_counters = [c for c in counters if any(c in g["counters"] for g in sigs.values())]
        assert rows[0] == BASE + ["Profiling Average " + c for c in type_counters], (t, rows[0])
        body = rows[1:]
        assert len(body) == len(sigs), (t, len(body), len(sigs))
        seen = set()
        for r in body:
            cells = dict(zip(rows[0], r))
            for s in ("Input Shapes", "Output Shapes"):     # msprof's quote pair around shapes
                v = cells[s]
                assert v == "" or (v.startswith('"') and v.endswith('"')), (t, s, v)
                cells[s] = v[1:-1] if v else v
            sig = tuple(cells[s] or None for s in SIG)
            assert sig in sigs and sig not in seen, (t, sig)
            seen.add(sig)
            g = sigs[sig]
            for k in ("OP State", "Accelerator Core", "Output Formats"):
                assert (cells[k] or None) == g["first"].get(k), (t, sig, k, cells[k], g["first"].get(k))
            avg = g["avg_ns"] / 1000
            close(num(cells["Average Duration(us)"]), refs.get(t, {}).get(sig, avg), f"{t} {sig} Average")
            close(num(cells["Profiling Average Duration(us)"]), avg, f"{t} {sig} Profiling Average")
            close(num(cells["Profiling Median Duration(us)"]), g["median_us"], f"{t} {sig} median")
            close(num(cells["Profiling Std Duration(us)"]), g["std_us"], f"{t} {sig} std")
            for c in type_counters:
                close(num(cells["Profiling Average " + c]), g["counters"].get(c), f"{t} {sig} {c}")
    return sum(len(s) for s in groups.values())
