# README quick start: a Python worker beside recloser-sidecar, standard library only
# (run by test/integrations/packed-workers.test.ts with SIDECAR_URL set).
import json
import os
import urllib.error
import urllib.request

SIDECAR = os.environ.get("SIDECAR_URL", "http://127.0.0.1:7070")

try:
    with urllib.request.urlopen(f"{SIDECAR}/llm-provider/v1/chat", data=b'{"q": 1}', timeout=10) as res:
        print(json.dumps({"quickstart": "sidecar", "status": res.status}))
except urllib.error.HTTPError as e:
    if e.code == 503 and e.headers.get("Retry-After") is not None:
        # not admitted: the provider was not called; try again after Retry-After seconds
        print(json.dumps({"quickstart": "sidecar", "status": 503, "retryAfter": e.headers["Retry-After"]}))
    else:
        raise
