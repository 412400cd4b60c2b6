#!/usr/bin/env python3
"""A worker in another language using recloser-sidecar, with Python's standard library only.

    python3 sidecar_client.py SIDECAR_URL DEPENDENCY PACE_MS MAX_SECONDS

Calls SIDECAR_URL/DEPENDENCY/work?n=<i> every PACE_MS until MAX_SECONDS pass or a line arrives on
stdin, and prints one JSON line per answer: {"at": ms, "status": 200|503|…, "reason": …,
"retryAfter": seconds or null}. A 503 from the sidecar means "not admitted": the dependency was
not called, and Retry-After says when to try again.
"""
import json
import select
import sys
import time
import urllib.error
import urllib.request


def call(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as res:
            res.read()
            return res.status, None, None
    except urllib.error.HTTPError as err:
        body = err.read()
        reason = None
        try:
            reason = json.loads(body).get("reason")
        except ValueError:
            pass
        retry_after = err.headers.get("Retry-After")
        return err.code, reason, float(retry_after) if retry_after is not None else None


def main():
    base, dependency, pace_ms, max_seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    deadline = time.monotonic() + max_seconds
    n = 0
    while time.monotonic() < deadline:
        ready, _, _ = select.select([sys.stdin], [], [], 0)
        if ready:
            break
        n += 1
        status, reason, retry_after = call(f"{base}/{dependency}/work?n={n}")
        line = {"at": int(time.time() * 1000), "status": status, "reason": reason, "retryAfter": retry_after}
        print(json.dumps(line), flush=True)
        time.sleep(pace_ms / 1000)


if __name__ == "__main__":
    main()
