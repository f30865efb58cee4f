"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
messages, each ended by a NUL byte, written to the browser's fd 3 and read from its fd 4; no
websocket library needed). The dashboard tests use it to read a page's DOM in real time while
some of its requests are still held by a proxy — --dump-dom only dumps once the page is done."""
import fcntl
import json
import os
import subprocess
import time


class Browser:
    def __init__(self, chromium_flags):
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()

        def fds():                                  # the child's fd 3 reads commands, fd 4 writes answers
            r, w = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)

        flags = [f for f in chromium_flags if not f.startswith("--virtual-time-budget")] + ["--window-size=1400,1100"]
        # close_fds=False: subprocess would close fds 3 and 4 after preexec_fn (Python's own fds are
        # close-on-exec anyway, so nothing else leaks)
        self.proc = subprocess.Popen(flags + ["--remote-debugging-pipe", "about:blank"], preexec_fn=fds, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.session = None

    def _send(self, method, params=None, session=None):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        while True:                                  # events are skipped; the answer has our id
            while b"\0" not in self._buf:
                chunk = os.read(self._r, 1 << 16)
                assert chunk, "chromium closed the DevTools pipe"
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                assert "error" not in reply, reply
                return reply["result"]

    def open(self, url):
        target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self._send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self._send("Page.navigate", {"url": url}, self.session)

    def eval(self, expression):
        r = self._send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, self.session)
        return r["result"].get("value")

    def dom(self):
        return self.eval("document.documentElement.outerHTML") or ""

    def wait(self, expression, timeout=60):
        """Polls expression until it is truthy; returns the DOM then."""
        end = time.time() + timeout
        while time.time() < end:
            if self.eval("!!(" + expression + ")"):
                return self.dom()
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {expression}: {self.dom()[-2000:]}")

    def close(self):
        try:
            self._send("Browser.close")
        except (AssertionError, OSError):
            pass
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)
