"""A front for a goblind daemon in the dashboard tests: an HTTP server on its own port that
forwards every GET to the daemon, except the paths a rule answers itself — a stubbed JSON
document (GET /series before or without the daemon's own), a 404 (an endpoint absent), or a
request held until the test releases it (the page caught while its data is loading). The page
is loaded from the proxy, so its requests (connect-src 'self') all pass through it."""
import json
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PASS_HEADERS = ("content-type", "etag", "content-security-policy", "cache-control", "x-content-type-options")


class Proxy:
    """rules: a list of (match, action); match(path) -> bool on the path with its query;
    action: ("json", status, document), ("hold",) or ("held_json", status, document) (held, then
    answered). The first matching rule answers; no rule: forwarded."""

    def __init__(self, upstream, rules=()):
        self.upstream = upstream
        self.rules = list(rules)
        self.release = threading.Event()
        self.seen = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                proxy.seen.append(self.path)
                for match, action in proxy.rules:
                    if match(self.path):
                        if action[0] in ("hold", "held_json"):
                            proxy.release.wait(300)
                        if action[0] in ("json", "held_json"):
                            return self.reply(action[1], {"Content-Type": "application/json"},
                                              json.dumps(action[2]).encode())
                        break
                headers = {k: v for k, v in self.headers.items() if k.lower() in ("authorization", "if-none-match")}
                req = urllib.request.Request(proxy.upstream + self.path, headers=headers)
                try:
                    with urllib.request.urlopen(req, timeout=120) as r:
                        status, h, body = r.status, r.headers, r.read()
                except urllib.error.HTTPError as e:
                    status, h, body = e.code, e.headers, e.read()
                self.reply(status, {k: v for k, v in h.items() if k.lower() in PASS_HEADERS}, body)

            def reply(self, status, headers, body):
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if status != 304:
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass        # the browser went away while a request was held

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
