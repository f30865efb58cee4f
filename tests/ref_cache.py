"""ref_cache: ../shared/tools/goblin_ref.py's answers, cached by input hash.

The differential tests (diff_ref.py, rules.py) run the reference on hundreds of run
directories, and the release and sanitizer stages of `make test` run the same ones: the
reference is the slow half of each comparison. Its answer depends only on the reference
script, its arguments and the files of the run directory, so it is stored under the SHA-256
of exactly those (every entry's name and type, every regular file's bytes) in the directory
GOBLIND_REF_CACHE names (make test points both stages at build/ref-cache), else in the
caller's default (ref-cache beside the goblind under test). An answer that names the run directory's path is never stored (the next run's
temporary directory differs).
"""
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace


def _key(ref, run_dir, args):
    h = hashlib.sha256()
    h.update(Path(ref).read_bytes())
    h.update(json.dumps([str(a) for a in args]).encode())
    for p in sorted(Path(run_dir).iterdir()):
        h.update(b"\0" + p.name.encode(errors="surrogateescape") + b"\0")
        if p.is_symlink() or not p.is_file():
            h.update(b"special:" + str(p.lstat().st_mode).encode())
            if p.is_symlink():
                h.update(os.readlink(p).encode(errors="surrogateescape"))
            continue
        st = p.stat()
        h.update(b"file:%o:" % (st.st_mode & 0o777))
        try:
            with open(p, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
        except OSError as exc:            # unreadable: the reference warns; key on the reason
            h.update(b"unreadable:" + str(exc.errno).encode())
    return h.hexdigest()


def run_ref(ref, run_dir, args=(), default_cache=None):
    """Run `python3 REF RUN_DIR ARGS...` (or reuse its cached answer); returns an object with
    returncode, stdout and stderr (text), like subprocess.run(capture_output=True, text=True)."""
    cache = os.environ.get("GOBLIND_REF_CACHE") or default_cache
    cmd = [sys.executable, str(ref), str(run_dir), *args]
    if not cache:
        return subprocess.run(cmd, capture_output=True, text=True)
    path = Path(cache) / (_key(ref, run_dir, args) + ".json")
    try:
        d = json.loads(path.read_text())
        return SimpleNamespace(returncode=d["returncode"], stdout=d["stdout"], stderr=d["stderr"])
    except (OSError, ValueError, KeyError):
        pass
    r = subprocess.run(cmd, capture_output=True, text=True)
    if str(run_dir) not in r.stdout and str(run_dir) not in r.stderr:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")          # parallel tests: rename is atomic
        tmp.write_text(json.dumps({"returncode": r.returncode, "stdout": r.stdout, "stderr": r.stderr}))
        os.replace(tmp, path)
    return r
