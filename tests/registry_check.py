#!/usr/bin/env python3
"""registry_check: every registered format and section analysis is covered by the tests.

Fails when
  - a format has no fixture it claims (no file under ../shared/fixtures or tests/fixtures whose
    first bytes the format sniffs highest of all formats, .gz inflated as discovery does): the
    fixture is what its oracle tests, its sniff test and the fuzz seeds start from;
  - a byte-stream format has no such fixture among the files fuzz/run.sh seeds the
    record-format fuzzer with (a .csv or .json directly under a fixtures folder) and it has
    no seeds of its own in fuzz/corpus/fmtjson/<format>/;
  - a format's name appears in no test source (its sniff and read tests name it);
  - a section analysis's key appears in no test source (every section has a test);
  - a format has a pair state (open_records_pair: one tokenization for the ingest's two
    readings) and no test reads through it, or it splits and its pair state cannot resume;
  - a format declares no kernel source (.kernels, as the run inventory reads it) and emits
    kernel dispatches from one of its fixtures: the run's choice of one kernel source would
    not know of it, and its dispatches would count beside the chosen source's.

usage: registry_check.py REGISTRY_TOOL SHARED_DIR SOURCE_DIR
"""
import gzip
import subprocess
import sys
import tempfile
from pathlib import Path

TOOL, SHARED, SRC = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
FIXTURE_DIRS = [SHARED / "fixtures", SRC / "tests" / "fixtures"]
# test sources that only list the registries (they do not test a format or section)
NOT_TESTS = {"registry_tool.c", "registry_check.py", "section_tool.c"}
# Gaps known when this check was written: formats tested on hand-built bytes in the C suites
# but with no fixture file. The list may only shrink: a format (or section) added since must
# come with its fixture and tests, and a gap closed must leave this list (the check says so).
KNOWN_NO_FIXTURE = {"msprof-reference-csv", "aie-run-json", "rocm-smi-csv", "madengine-gpu-info-csv",
                    "rocprof-v1-db", "rocprof-v1-json", "rocprof-legacy-results-csv"}
KNOWN_NOT_SEEDED = set()


def tool(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, check=True).stdout.splitlines()


def seeded(path):
    """Whether fuzz/run.sh seeds the record-format fuzzer with this fixture."""
    return path.suffix in (".csv", ".json") and (path.parent.parent in FIXTURE_DIRS)


def has_own_seeds(name):
    """Whether fuzz/run.sh seeds the record-format fuzzer from fuzz/corpus/fmtjson/<format>/."""
    d = SRC / "fuzz" / "corpus" / "fmtjson" / name
    return d.is_dir() and any(f.is_file() for f in d.iterdir())


def main():
    failures = []
    rows = [line.split("\t") for line in tool("formats")]
    formats = {name: kind for name, kind, _, _ in rows}
    pairs = {name: pair for name, _, pair, _ in rows}
    kernels = {name: source for name, _, _, source in rows}
    sections = tool("sections")
    assert formats and sections, (formats, sections)
    claimed = {}
    with tempfile.TemporaryDirectory(prefix="goblind-registry-") as tmp:
        files, shown = [], {}
        for d in FIXTURE_DIRS:
            for f in sorted(d.rglob("*")):
                if not f.is_file() or f.suffix in (".txt", ".md"):   # notes about the fixtures
                    continue
                if f.suffix == ".gz":                       # sniffed inflated, by its name without .gz
                    g = Path(tmp) / f"{len(files)}-{f.stem}"
                    with gzip.open(f) as z:
                        g.write_bytes(z.read())
                    shown[str(g)] = f
                    files.append(str(g))
                else:
                    shown[str(f)] = f
                    files.append(str(f))
        for line in tool("sniff", *files):
            path, fmt, score = line.rsplit("\t", 2)
            if fmt != "-":
                claimed.setdefault(fmt, []).append(shown[path])
                if kernels[fmt] == "none":
                    got = subprocess.run([TOOL, "dispatches", fmt, path], capture_output=True, text=True)
                    if got.returncode != 0:
                        failures.append(f"format {fmt}: cannot read its fixture {shown[path].name} through "
                                        f"open_records: {got.stderr.strip() or 'no state'}")
                    elif int(got.stdout.split()[0]):
                        failures.append(f"format {fmt}: emits kernel dispatches from {shown[path].name} but declares "
                                        "no kernel source (.kernels = KERNELS_DEVICE_CLOCK or KERNELS_HOST_TRACE)")
    sources = {p.name: p.read_text(errors="replace") for p in (SRC / "tests").iterdir()
               if p.suffix in (".c", ".py", ".sh") and p.name not in NOT_TESTS}
    for name, kind in formats.items():
        mine = claimed.get(name, [])
        if not mine and name not in KNOWN_NO_FIXTURE:
            failures.append(f"format {name}: no fixture sniffs as it (add one to tests/fixtures)")
        elif mine and name in KNOWN_NO_FIXTURE:
            failures.append(f"format {name}: has a fixture now; take it off KNOWN_NO_FIXTURE")
        unseeded = kind == "stream" and mine and not any(seeded(f) for f in mine) and not has_own_seeds(name)
        if unseeded and name not in KNOWN_NOT_SEEDED:
            failures.append(f"format {name}: none of its fixtures ({', '.join(f.name for f in mine)}) "
                            "seeds the record-format fuzzer (fuzz/run.sh)")
        elif not unseeded and name in KNOWN_NOT_SEEDED:
            failures.append(f"format {name}: seeded now; take it off KNOWN_NOT_SEEDED")
        if not any(f'"{name}"' in text or f"{name}=" in text for text in sources.values()):
            failures.append(f"format {name}: no test names it")
        if pairs[name] == "pair-without-resumed":
            failures.append(f"format {name}: splits, and has open_records_pair but no open_records_pair_resumed")
        symbol = f"{name.replace('-', '_')}_parser"          # the descriptor's C name
        if pairs[name] != "-" and not any("open_records_pair" in text and symbol in text for text in sources.values()):
            failures.append(f"format {name}: has a pair state, and no test reads through it "
                            f"(open_records_pair on {symbol})")
        print(f"format {name} ({kind}): {len(mine)} fixtures, e.g. {mine[0].name if mine else '-'}")
    for key in sections:
        names = (f'"{key}"', f"'{key}'", f"{key}_section", f"{key}_analysis")   # its key, or its C symbol
        users = [n for n, text in sources.items() if any(x in text for x in names)]
        if not users:
            failures.append(f"section {key}: no test names it")
        print(f"section {key}: {', '.join(users[:4])}")
    for f in failures:
        print("FAIL", f)
    print(f"registry_check: {len(formats)} formats, {len(sections)} sections, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
