"""Starting `draplane server` for the end-to-end tests that speak HTTP to it.

start() runs the given command line (which ends in `draplane server ...`),
waits for the line naming its port and for the kubeconfig hint that
follows it, keeps draining its output, and returns what a client needs:
the process, the port, a TLS context trusting the server's CA, and the
admin token from the data directory.
"""

import http.client
import json
import os
import re
import ssl
import subprocess
import threading
import time


class Started:
    def __init__(self, proc, port, ctx, token):
        self.proc, self.port, self.ctx, self.token = proc, port, ctx, token


def start(argv, data_dir, timeout=30, env=None):
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=env)
    port = None
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"on https://127\.0\.0\.1:(\d+)", line)
        if m:
            port = int(m.group(1))
        if "export KUBECONFIG" in line:
            break
    if port is None:
        proc.kill()
        proc.wait()
        raise RuntimeError("server did not start: %s" % " ".join(argv))
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    ctx = ssl.create_default_context(cafile=os.path.join(data_dir, "pki", "ca.crt"))
    with open(os.path.join(data_dir, "pki", "admin.token")) as f:
        token = f.read().strip()
    return Started(proc, port, ctx, token)


def request(port, ctx, token, method, path, body=None, timeout=30):
    """One HTTPS request as the bearer of `token`: (status, the JSON body
    parsed, or its text when it is not JSON)."""
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=timeout)
    try:
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers={"Authorization": "Bearer " + token,
                              "Content-Type": "application/json"})
        r = conn.getresponse()
        raw = r.read()
        try:
            return r.status, json.loads(raw or b"null")
        except ValueError:
            return r.status, raw.decode(errors="replace")
    finally:
        conn.close()
