#!/usr/bin/env python3
"""bench_hbase_rest.sh's REST client: the rows bench/serve_load.js writes
through the Bigtable API (key user%08d scattered by a multiplicative hash,
family d, columns a and b of 20 and 80 bytes), written through HBase REST
as CellSets of 1000 rows, 4 in flight, then read back with one scanner of
batches of 1000. Prints one line in serve_load.js's form.
  hbase_rest_load.py ADDR ROWS
"""
import base64, json, sys, threading, time, urllib.request

addr, n = sys.argv[1], int(sys.argv[2])
B, INFLIGHT = 1000, 4
e = lambda s: base64.b64encode(s.encode()).decode()
A, BB = e("a" * 20), e("b" * 80)
CA, CB = e("d:a"), e("d:b")


def call(method, path, body=None, ctype="application/json"):
    req = urllib.request.Request("http://%s%s" % (addr, path), data=body, method=method,
                                 headers={"Content-Type": ctype, "Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return r.status, r.headers, r.read()


call("PUT", "/rest/schema", json.dumps({"name": "rest", "ColumnSchema": [{"name": "d"}]}).encode())
lock, nxt = threading.Lock(), [0]


def worker():
    while True:
        with lock:
            start = nxt[0]
            nxt[0] += B
        if start >= n:
            return
        rows = [{"key": e("user%08d" % ((i * 2654435761) % 100000000)),
                 "Cell": [{"column": CA, "$": A, "timestamp": 1000}, {"column": CB, "$": BB, "timestamp": 1000}]}
                for i in range(start, min(n, start + B))]
        call("PUT", "/rest/false-row-key", json.dumps({"Row": rows}).encode())


t0 = time.monotonic()
ts = [threading.Thread(target=worker) for _ in range(INFLIGHT)]
[t.start() for t in ts]
[t.join() for t in ts]
t1 = time.monotonic()
_, h, _ = call("POST", "/rest/scanner", json.dumps({"batch": 2 * B}).encode())
loc = h["Location"].split(addr, 1)[1]
got = 0
while True:
    s, _, body = call("GET", loc)
    if s == 204 or not body:
        break
    got += len(json.loads(body)["Row"])
t2 = time.monotonic()
print("hbase-rest load %d rows %.1f s %d rows/s; read %d rows %.1f s %d rows/s"
      % (n, t1 - t0, n / (t1 - t0), got, t2 - t1, got / (t2 - t1)))
if got != n:
    sys.exit("read back %d rows of %d" % (got, n))
