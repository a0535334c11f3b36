"""Judged panel of row-key design cases (HBase / Bigtable).

Each case in CASES is a dict (see README.md for the reasoning per case):

  name          snake_case id
  why           the expert's reasoning (rule applied, read price accepted)
  header        column names
  gen(rnd)      -> list of row tuples, in arrival (write) order
  queries       predicate shapes, "shape" or ("shape", weight)
  newest_first  optional: fields whose reads want the newest rows first
  options       servers, rate (production peak writes/s), capacity (writes/s a server takes)
  expert        the expert key as a schema string (docs/schema.md)
  expert_parts  the same key as canonical parts:
                  ("field", F) ("desc", F) ("reverse_labels", F)
                  ("salt", N, [F...]) ("time_bucket", F, "hour"|"day")
  accept        optional: [{"parts": [...], "why": "..."}] equally good keys
  reject        optional: ["key ... : why"] keys that must not be chosen
  index_tables  optional: other tables' parts when no single key serves every shape
  index_schemas optional: the same index tables as schema strings
  needs_uniquifier  optional: True when no field set is unique and a sequence
                (the "seq" field, not in the header) must be added
  text_times    optional: fields holding text dates that must be parsed to a time

Standard library only.  `python3 panel.py` checks every case: the generator
runs, sizes are in range, and the data is unique under the expert key.
"""

import bisect
import datetime
import itertools
import uuid

HOUR = 3600 * 1000
DAY = 24 * HOUR
T0 = 1718000000000                      # 2024-06-10T06:13:20Z
HOUR0 = T0 - T0 % HOUR                  # 2024-06-10T06:00:00Z
DAY0 = T0 - T0 % DAY                    # 2024-06-10T00:00:00Z
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


# ---------------------------------------------------------------- helpers

def zipf_picker(rnd, n, s):
    """Return pick() -> rank in [0, n), P(rank k) ~ 1/(k+1)^s."""
    cum = list(itertools.accumulate(1.0 / (i + 1) ** s for i in range(n)))
    total = cum[-1]

    def pick():
        return min(bisect.bisect_right(cum, rnd.random() * total), n - 1)
    return pick


def weighted_picker(rnd, weights):
    cum = list(itertools.accumulate(weights))
    total = cum[-1]

    def pick():
        return min(bisect.bisect_right(cum, rnd.random() * total), len(weights) - 1)
    return pick


class Clock:
    """Arrival clock in ms: exponential gaps, with bursts (gap / burst_factor)."""

    def __init__(self, rnd, start, mean_gap_ms, burst_p=0.0, burst_factor=20.0):
        self.rnd, self.t = rnd, float(start)
        self.mean, self.burst_p, self.bf = mean_gap_ms, burst_p, burst_factor
        self.in_burst = 0

    def tick(self):
        r = self.rnd
        if self.in_burst == 0 and self.burst_p and r.random() < self.burst_p:
            self.in_burst = r.randint(50, 400)
        gap = self.mean
        if self.in_burst:
            self.in_burst -= 1
            gap = self.mean / self.bf
        self.t += r.expovariate(1.0 / gap)
        return int(self.t)


def rand_word(rnd, lo=4, hi=9):
    cons, vow = "bcdfghklmnprstvz", "aeiou"
    n = rnd.randint(lo, hi)
    return "".join((cons if i % 2 == 0 else vow)[rnd.randrange(len(cons if i % 2 == 0 else vow))]
                   for i in range(n))


def uuid4(rnd):
    return str(uuid.UUID(int=rnd.getrandbits(128), version=4))


def uuid7(rnd, ms):
    v = (ms & ((1 << 48) - 1)) << 80
    v |= 0x7 << 76
    v |= rnd.getrandbits(12) << 64
    v |= 0b10 << 62
    v |= rnd.getrandbits(62)
    return str(uuid.UUID(int=v))


def unique_ts(seen, key, ts):
    """Bump ts by 1 ms until (key, ts) is new (a client clock never repeats for one entity)."""
    while (key, ts) in seen:
        ts += 1
    seen.add((key, ts))
    return ts


def S(n, fields):
    return ("salt", n, list(fields))


F = lambda name: ("field", name)          # noqa: E731
D = lambda name: ("desc", name)           # noqa: E731


# ---------------------------------------------------------------- generators

def gen_chat(rnd):
    n = 8000
    uids = rnd.sample(range(100000, 99999999), n)
    pick = zipf_picker(rnd, n, 0.8)
    clk = Clock(rnd, T0, 60.0, burst_p=0.01)
    seen, rows = set(), []
    u = uids[pick()]
    for _ in range(30000):
        ts = clk.tick()
        # conversations: a user often sends several messages in a row
        if rnd.random() > 0.35:
            u = uids[pick()]
        ts = unique_ts(seen, u, ts)
        rows.append((u, ts, rnd.randint(1, 400)))
    return rows


def gen_contacts(rnd):
    rows, seen = [], set()
    uid = 1000
    first = [rand_word(rnd, 3, 6).capitalize() for _ in range(400)]
    while len(rows) < 25000:
        uid += rnd.randint(1, 3)            # registration order, with gaps
        ncontacts = min(200, int(rnd.paretovariate(1.3) * 3))
        phones = []
        for _ in range(ncontacts):
            if phones and rnd.random() < 0.06:
                phone = rnd.choice(phones)   # shared landline saved under a second name
            else:
                phone = "+1%03d555%04d" % (rnd.randint(200, 989), rnd.randint(0, 9999))
                phones.append(phone)
            name = rnd.choice(first) + " " + rand_word(rnd, 4, 8).capitalize()
            if (uid, phone, name) in seen:
                continue
            seen.add((uid, phone, name))
            rows.append((uid, phone, name))
    return rows


def gen_trades(rnd):
    sellers = rnd.sample(range(1000, 10 ** 6), 3000)
    buyers = rnd.sample(range(10 ** 6, 10 ** 7), 20000)
    ps, pb = zipf_picker(rnd, 3000, 1.0), zipf_picker(rnd, 20000, 0.7)
    clk = Clock(rnd, T0, 2.0, burst_p=0.005, burst_factor=30)
    rows, oid = [], 50000000
    for _ in range(30000):
        oid += 1
        s = sellers[ps()]
        b = buyers[pb()]
        px = round(rnd.uniform(10, 500), 2)
        rows.append((oid, s, b, clk.tick(), rnd.randint(1, 500), px))
    return rows


def gen_stock(rnd):
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    syms = set()
    while len(syms) < 520:
        syms.add("".join(rnd.choice(letters) for _ in range(rnd.randint(2, 4))))
    syms = sorted(syms)
    rnd.shuffle(syms)
    liquid = {s: rnd.random() ** 0.3 for s in syms}     # prob. of a bar in a minute
    price = {s: rnd.uniform(5, 800) for s in syms}
    rows = []
    start = HOUR0 + 13 * 60 * 1000 + 30 * 60 * 1000 - 6 * HOUR   # a 13:30 UTC open, minute bars
    for m in range(60):
        ts = start + m * 60000
        for s in syms:
            if rnd.random() > liquid[s]:
                continue
            o = price[s]
            c = max(0.5, o * (1 + rnd.gauss(0, 0.002)))
            h, l = max(o, c) * (1 + abs(rnd.gauss(0, 0.001))), min(o, c) * (1 - abs(rnd.gauss(0, 0.001)))
            price[s] = c
            rows.append((s, ts, round(o, 2), round(h, 2), round(l, 2), round(c, 2),
                         int(rnd.lognormvariate(8, 1.5))))
    return rows


def gen_sensor(rnd):
    devs = ["sensor-%06d" % d for d in rnd.sample(range(1000000), 3000)]
    phase = {d: rnd.randrange(60000) for d in devs}
    rows = []
    for k in range(10):
        batch = []
        for d in devs:
            if rnd.random() < 0.03:          # missed report
                continue
            ts = T0 + k * 60000 + phase[d] + rnd.randint(-200, 200)
            batch.append((d, ts, round(rnd.gauss(21, 3), 2), round(rnd.uniform(20, 80), 1)))
        batch.sort(key=lambda r: r[1])
        rows.extend(batch)
    return rows


def gen_feed(rnd):
    users = rnd.sample(range(10 ** 6, 10 ** 8), 2500)
    authors = rnd.sample(users, 300)
    fpick = zipf_picker(rnd, 2500, 0.0)
    followers = {}
    for i, a in enumerate(authors):
        nf = min(2400, max(3, int(1500 / (i + 1) ** 0.9)))
        followers[a] = set(users[fpick()] for _ in range(nf))
    rows, post_id, seen = [], 7 * 10 ** 11, set()
    clk = Clock(rnd, T0, 4000.0)
    apick = zipf_picker(rnd, 300, 0.6)
    while len(rows) < 30000:
        t = clk.tick()
        if rnd.random() < 0.15:
            t -= t % 60000                  # scheduled posts publish on the minute
        a = authors[apick()]
        post_id += rnd.randint(1, 50)
        for u in followers[a]:
            if (u, post_id) in seen:
                continue
            seen.add((u, post_id))
            rows.append((u, t, post_id, a))
            if len(rows) >= 30000:
                break
    return rows


METRICS12 = ["sys.cpu.user", "sys.cpu.system", "sys.cpu.iowait", "sys.mem.used",
             "sys.mem.cached", "sys.disk.read_bytes", "sys.disk.write_bytes",
             "sys.net.rx_bytes", "sys.net.tx_bytes", "sys.load.1m", "proc.threads",
             "jvm.gc.pause_ms"]


def gen_opentsdb(rnd):
    hosts = ["%s-%03d.dc%d" % (rnd.choice(["web", "api", "db", "cache"]), i, 1 + i % 3)
             for i in range(100)]
    off = {h: rnd.randrange(15000) for h in hosts}
    start = HOUR0 + HOUR - 3 * 60000         # crosses an hour boundary
    rows = []
    for k in range(25):
        batch = []
        for h in hosts:
            ts = start + k * 15000 + off[h] + rnd.randint(0, 40)
            for m in METRICS12:              # the collector flushes all metrics at one ms
                batch.append((m, ts, h, round(rnd.lognormvariate(2, 1), 3)))
        batch.sort(key=lambda r: r[1])
        rows.extend(batch)
    return rows


def gen_crawl(rnd):
    tlds = ["com"] * 6 + ["org", "net", "de", "io", "co.uk", "fr", "com.au"]
    subs = ["blog", "shop", "docs", "m", "api", "en", "de", "support", "news"]
    domains = set()
    while len(domains) < 600:
        domains.add(rand_word(rnd, 4, 10) + "." + rnd.choice(tlds))
    hosts = []
    for d in sorted(domains):
        hosts.append("www." + d)
        if rnd.random() < 0.3:
            hosts.append(d)
        for s in rnd.sample(subs, min(len(subs), int(rnd.expovariate(0.8)))):
            hosts.append(s + "." + d)
    rnd.shuffle(hosts)
    hpick = zipf_picker(rnd, len(hosts), 1.0)
    vocab = [rand_word(rnd, 3, 8) for _ in range(300)]
    clk = Clock(rnd, T0, 30.0)
    seen, rows = set(), []
    while len(rows) < 30000:
        h = hosts[hpick()]
        depth = rnd.randint(0, 4)
        path = "/" + "/".join(rnd.choice(vocab) for _ in range(depth))
        r = rnd.random()
        if depth and r < 0.4:
            path += ".html"
        elif depth and r < 0.55:
            path += "?id=%d" % rnd.randint(1, 99999)
        if (h, path) in seen:
            continue
        seen.add((h, path))
        status = 200 if rnd.random() < 0.9 else rnd.choice([301, 302, 404, 500])
        rows.append((h, path, clk.tick(), status, int(rnd.lognormvariate(10, 1))))
    return rows


def gen_inbox(rnd):
    boxes = set()
    while len(boxes) < 5000:
        boxes.add("%s.%s@%s" % (rand_word(rnd, 3, 7), rand_word(rnd, 4, 9),
                                rnd.choice(["corp.example", "mail.example", "eu.corp.example"])))
    boxes = sorted(boxes)
    rnd.shuffle(boxes)
    pick = zipf_picker(rnd, 5000, 0.9)
    senders = ["%s@%s.example" % (rand_word(rnd), rand_word(rnd)) for _ in range(800)]
    clk = Clock(rnd, T0, 40.0, burst_p=0.005)
    rows, mid = [], 3 * 10 ** 9
    while len(rows) < 30000:
        t = clk.tick()
        r = rnd.random()
        if r < 0.02:                        # a mailing-list post fans out at one ms
            for b in rnd.sample(boxes, rnd.randint(50, 300)):
                mid += 1
                rows.append((b, t, mid, "list@lists.example", int(rnd.lognormvariate(9, 1))))
        elif r < 0.07:                      # a notification batch: 2-4 mails, same box, same ms
            b = boxes[pick()]
            for _ in range(rnd.randint(2, 4)):
                mid += 1
                rows.append((b, t, mid, "noreply@app.example", int(rnd.lognormvariate(8, 0.5))))
        else:
            mid += 1
            rows.append((boxes[pick()], t, mid, rnd.choice(senders), int(rnd.lognormvariate(9, 1.2))))
    return rows[:30000]


def gen_multitenant(rnd):
    names = ["acme"] + sorted(set(rand_word(rnd, 4, 9) for _ in range(60)))[:39]
    other = zipf_picker(rnd, 39, 1.0)
    nusers = {t: (30000 if t == "acme" else rnd.randint(200, 3000)) for t in names}
    upick = {t: zipf_picker(rnd, nusers[t], 0.7) for t in names}
    actions = ["login", "view", "edit", "share", "delete", "export"]
    apick = weighted_picker(rnd, [10, 50, 20, 8, 2, 1])
    clk = Clock(rnd, T0, 10.0, burst_p=0.01)
    rows, eid = [], 9 * 10 ** 9
    for _ in range(30000):
        t = "acme" if rnd.random() < 0.55 else names[1 + other()]
        eid += 1
        rows.append((t, clk.tick(), eid, "u%06d" % upick[t](), actions[apick()]))
    return rows


def gen_iot_hot(rnd):
    devs = ["dev-%05d" % d for d in rnd.sample(range(100000), 4000)]
    hot = "gw-plant-07"
    clk = Clock(rnd, T0, 6.0)
    seen, rows = set(), []
    while len(rows) < 30000:
        ts = clk.tick()
        if rnd.random() < 0.026:            # the gateway flushes a frame of 16 channels at one ms
            for ch in rnd.sample(range(64), 16):
                if (hot, ts, ch) not in seen:
                    seen.add((hot, ts, ch))
                    rows.append((hot, ts, ch, round(rnd.gauss(50, 10), 3)))
        else:
            d = rnd.choice(devs)
            if (d, ts, 0) in seen:
                continue
            seen.add((d, ts, 0))
            rows.append((d, ts, 0, round(rnd.gauss(20, 5), 3)))
    return rows[:30000]


def gen_daily(rnd):
    stores = rnd.sample(range(100, 9999), 150)
    assort = {s: sorted(rnd.sample(range(10000, 99999), 10)) for s in stores}
    rows = []
    for d in range(20):
        day = DAY0 - (20 - d) * DAY
        for s in sorted(stores):             # the nightly export walks the stores in order
            for k in assort[s]:
                rows.append((day, s, k, max(0, int(rnd.gauss(40, 25)))))
    return rows


def _dates(start, end):
    d = start
    while d <= end:
        yield d
        d += datetime.timedelta(days=1)


def gen_month_name_dates(rnd):
    accts = rnd.sample(range(10 ** 7, 10 ** 8), 2000)
    pick = zipf_picker(rnd, 2000, 0.9)
    rows, tid = [], 400000
    for d in _dates(datetime.date(2000, 1, 1), datetime.date(2003, 12, 31)):
        txt = "%s %d %d" % (MONTHS[d.month - 1], d.day, d.year)
        n = max(0, int(rnd.gauss(20 if d.weekday() < 5 else 8, 4)))
        for _ in range(n):
            tid += 1
            rows.append((accts[pick()], txt, tid, round(rnd.lognormvariate(3.5, 1.3), 2)))
    return rows[:40000]


def gen_slash_dates(rnd):
    clinics = ["clinic-%03d" % i for i in range(80)]
    pick = zipf_picker(rnd, 80, 0.7)
    rows, seen = [], set()
    for d in _dates(datetime.date(1999, 6, 1), datetime.date(2001, 6, 30)):
        txt = "%02d/%02d/%04d" % (d.month, d.day, d.year)
        n = 0 if d.weekday() == 6 else max(0, int(rnd.gauss(40 if d.weekday() < 5 else 15, 6)))
        for _ in range(n):
            c = clinics[pick()]
            p = rnd.randint(100000, 120000)
            if (c, txt, p) in seen:
                continue
            seen.add((c, txt, p))
            rows.append((c, txt, p, rnd.choice(["checkup", "followup", "urgent", "lab"])))
    return rows


def gen_sparse(rnd):
    accts = rnd.sample(range(10 ** 5, 10 ** 6), 4000)
    pick = zipf_picker(rnd, 4000, 0.9)
    clk = Clock(rnd, T0, 30.0)
    rows, eid = [], 10 ** 10
    while len(rows) < 30000:
        t = clk.tick()
        a = accts[pick()]
        k = rnd.randint(2, 5) if rnd.random() < 0.12 else 1   # batch imports: same account, same ms
        for _ in range(k):
            eid += 1
            coupon = rnd.randint(100000, 999999) if rnd.random() < 0.15 else ""
            rows.append((a, t, eid, coupon, round(rnd.lognormvariate(3, 1), 2)))
    return rows[:30000]


def gen_newest_first_file(rnd):
    users = rnd.sample(range(10 ** 6, 10 ** 7), 6000)
    pick = zipf_picker(rnd, 6000, 0.8)
    clk = Clock(rnd, T0, 25.0, burst_p=0.01)
    seen, rows = set(), []
    for _ in range(30000):
        u = users[pick()]
        ts = unique_ts(seen, u, clk.tick())
        rows.append((ts, u, rnd.choice(["GET", "PUT", "LIST", "DELETE"]), int(rnd.lognormvariate(7, 2))))
    rows.sort(key=lambda r: r[0], reverse=True)   # the export writes newest first
    return rows


def gen_no_identity(rnd):
    pages = ["/p/%d" % i for i in rnd.sample(range(10 ** 6), 3000)]
    pick = zipf_picker(rnd, 3000, 1.1)
    countries = ["US", "DE", "GB", "FR", "IN", "BR", "JP", "CA", "NL", "ES"]
    cpick = weighted_picker(rnd, [40, 10, 9, 7, 8, 6, 5, 5, 5, 5])
    browsers = ["Chrome", "Safari", "Firefox", "Edge", "Other"]
    bpick = weighted_picker(rnd, [65, 18, 7, 7, 3])
    clk = Clock(rnd, T0, 20.0, burst_p=0.01)
    rows = []
    for _ in range(30000):
        t = clk.tick()
        rows.append((pages[pick()], t - t % 1000, countries[cpick()], browsers[bpick()]))
    return rows


def gen_seq_id(rnd):
    clk = Clock(rnd, T0, 0.05)
    rows, i = [], 10000000
    for _ in range(30000):
        i += 1
        rows.append((i, clk.tick(), rnd.choice(["new", "active", "active", "closed"]),
                     int(rnd.lognormvariate(6, 1))))
    return rows


def gen_uuid_orders(rnd):
    custs = rnd.sample(range(10 ** 6, 10 ** 7), 20000)
    pick = zipf_picker(rnd, 20000, 0.8)
    clk = Clock(rnd, T0, 0.1, burst_p=0.01, burst_factor=4)
    return [(uuid4(rnd), clk.tick(), custs[pick()], round(rnd.lognormvariate(4, 1), 2))
            for _ in range(30000)]


SERVICES = ["api-gateway", "auth", "billing", "search", "catalog", "cart", "checkout",
            "inventory", "shipping", "notify", "recommend", "profile", "media", "reviews",
            "ads", "pricing", "fraud", "ledger", "email", "sms", "export", "import",
            "scheduler", "metrics-agg", "geo", "chat", "feed", "admin", "audit", "cdn-purge"]


def gen_logs(rnd):
    hosts = {}
    for i, s in enumerate(SERVICES):
        n = 120 if s == "api-gateway" else max(2, int(20 / (i ** 0.6)))
        hosts[s] = ["%s-%s" % (s, uuid4(rnd)[:8]) for _ in range(n)]
    spick = zipf_picker(rnd, len(SERVICES) - 1, 1.0)
    offset = {}
    clk = Clock(rnd, T0, 0.1, burst_p=0.01)
    levels = ["INFO"] * 8 + ["DEBUG", "WARN", "ERROR"]
    rows = []
    for _ in range(30000):
        s = "api-gateway" if rnd.random() < 0.5 else SERVICES[1 + spick()]
        h = rnd.choice(hosts[s])
        off = offset.get(h, rnd.randrange(10 ** 9))
        offset[h] = off + rnd.randint(80, 600)
        rows.append((s, h, clk.tick(), off, rnd.choice(levels)))
    return rows


def gen_geo(rnd):
    b32 = "0123456789bcdefghjkmnpqrstuvwxyz"
    cities = ["u4p", "9q8", "dr5", "gcp", "u09", "xn7", "9y7", "sr2"]
    cells = set()
    while len(cells) < 400:
        cells.add(rnd.choice(cities) + rnd.choice(b32) + rnd.choice(b32))
    cells = sorted(cells)
    rnd.shuffle(cells)
    pick = zipf_picker(rnd, 400, 1.0)
    vehicles = rnd.sample(range(10 ** 5, 10 ** 6), 5000)
    clk = Clock(rnd, T0, 3.0)
    seen, rows = set(), []
    for _ in range(30000):
        v = rnd.choice(vehicles)
        ts = unique_ts(seen, v, clk.tick())
        rows.append((cells[pick()], ts, v, round(max(0, rnd.gauss(35, 15)), 1)))
    return rows


def gen_orders_customer(rnd):
    custs = rnd.sample(range(10 ** 6, 10 ** 7), 10000)
    pick = zipf_picker(rnd, 10000, 0.9)
    clk = Clock(rnd, T0, 500.0, burst_p=0.01)
    rows, oid = [], 880000000
    while len(rows) < 30000:
        t = clk.tick()
        c = custs[pick()]
        for _ in range(2 if rnd.random() < 0.03 else 1):   # a cart split into two orders
            oid += 1
            rows.append((c, t, oid, round(rnd.lognormvariate(4, 0.9), 2),
                         rnd.choice(["placed", "paid", "shipped", "delivered"])))
    return rows[:30000]


def gen_tenant_user(rnd):
    tenants = sorted(set(rand_word(rnd, 5, 9) for _ in range(40)))[:20]
    rnd.shuffle(tenants)
    w = [1.0 / (i + 1) ** 0.8 for i in range(20)]
    tw = sum(w)
    nusers = {t: max(50, int(50000 * w[i] / tw)) for i, t in enumerate(tenants)}
    tpick = weighted_picker(rnd, w)
    upick = {t: zipf_picker(rnd, nusers[t], 0.7) for t in tenants}
    clk = Clock(rnd, T0, 5.0, burst_p=0.01)
    seen, rows = set(), []
    for _ in range(30000):
        t = tenants[tpick()]
        u = 1 + upick[t]()                   # user ids are per tenant: 1..n
        ts = unique_ts(seen, (t, u), clk.tick())
        rows.append((t, u, ts, rnd.choice(["open", "click", "save", "close"])))
    return rows


def gen_recent(rnd):
    clk = Clock(rnd, T0, 300.0, burst_p=0.02, burst_factor=2000)
    users = rnd.sample(range(10 ** 6, 10 ** 8), 20000)
    pick = zipf_picker(rnd, 20000, 0.8)
    return [(clk.tick(), rnd.getrandbits(63), users[pick()],
             rnd.choice(["view", "click", "cart", "buy", "search"])) for _ in range(30000)]


def gen_few_metrics(rnd):
    metrics = ["http.requests", "http.latency_ms", "cpu.util", "mem.rss", "gc.pause_ms"]
    hosts = ["node-%04d" % i for i in rnd.sample(range(10000), 1500)]
    off = {h: rnd.randrange(10000) for h in hosts}
    start = HOUR0 + HOUR - 20000
    rows = []
    for k in range(4):
        batch = []
        for h in hosts:
            ts = start + k * 10000 + off[h]
            for m in metrics:
                batch.append((m, h, ts, round(rnd.lognormvariate(3, 1), 3)))
        batch.sort(key=lambda r: r[2])
        rows.extend(batch)
    return rows


def gen_noq_uuid(rnd):
    users = rnd.sample(range(10 ** 6, 10 ** 8), 15000)
    pick = zipf_picker(rnd, 15000, 0.9)
    clk = Clock(rnd, T0, 0.1, burst_p=0.01, burst_factor=4)
    rows = []
    while len(rows) < 30000:
        t = clk.tick()
        u = users[pick()]
        for _ in range(rnd.randint(2, 3) if rnd.random() < 0.1 else 1):   # client batches
            rows.append((uuid4(rnd), u, t, rnd.choice(["view", "click", "scroll"])))
    return rows[:30000]


def gen_noq_devices(rnd):
    devs = ["d-%08x" % rnd.getrandbits(32) for _ in range(10000)]
    devs = sorted(set(devs))
    phase = {d: rnd.randrange(30000) for d in devs}
    rows = []
    for k in range(3):
        batch = [(d, T0 + k * 30000 + phase[d], round(rnd.gauss(0, 1), 4)) for d in devs]
        batch.sort(key=lambda r: r[1])
        rows.extend(batch)
    return rows


def gen_noq_seq(rnd):
    accts = rnd.sample(range(10 ** 5, 10 ** 6), 300)
    clk = Clock(rnd, T0, 50.0)
    rows, sid = [], 1
    while len(rows) < 20000:
        t = clk.tick()
        a = rnd.choice(accts)
        for _ in range(2 if rnd.random() < 0.05 else 1):    # postings of one transfer share a ms
            rows.append((sid, t, a, round(rnd.uniform(-500, 500), 2)))
            sid += 1
    return rows[:20000]


def gen_follows(rnd):
    users = rnd.sample(range(10 ** 6, 10 ** 8), 20000)
    followee = zipf_picker(rnd, 20000, 1.1)
    follower = zipf_picker(rnd, 20000, 0.5)
    perm = users[:]
    rnd.shuffle(perm)
    clk = Clock(rnd, T0, 500.0, burst_p=0.01)
    seen, rows = set(), []
    while len(rows) < 30000:
        a, b = perm[follower()], users[followee()]
        if a == b or (a, b) in seen:
            continue
        seen.add((a, b))
        rows.append((a, b, clk.tick()))
    return rows


def gen_uuid7(rnd):
    users = rnd.sample(range(10 ** 6, 10 ** 8), 20000)
    clk = Clock(rnd, T0, 0.05, burst_p=0.01, burst_factor=4)
    rows = []
    for _ in range(30000):
        t = clk.tick()
        rows.append((uuid7(rnd, t), rnd.choice(users), t, rnd.choice([900, 3600, 86400])))
    return rows


def gen_listings(rnd):
    cats = ["%s/%s" % (rand_word(rnd, 4, 8), rand_word(rnd, 4, 8)) for _ in range(300)]
    pick = zipf_picker(rnd, 300, 1.0)
    clk = Clock(rnd, T0, 200.0)
    rows, lid = [], 5 * 10 ** 8
    for _ in range(30000):
        lid += rnd.randint(1, 3)
        p = max(0.99, round(rnd.lognormvariate(3, 1.2)) - 0.01)   # prices end in .99: many ties
        rows.append((cats[pick()], round(p, 2), lid, clk.tick()))
    return rows


# ---------------------------------------------------------------- cases

CASES = [
    {
        "name": "chat_messages_latest_first",
        "why": "Seed 002: a chat app reads a user's last messages; key uid + (Long.MAX_VALUE - ts) "
               "makes 'last 20' the first 20 rows of one prefix scan. uid leads and is well spread "
               "(top user ~4% of 20,000/s = 800/s), so no salt is needed.",
        "header": ["uid", "ts", "msg_len"],
        "gen": gen_chat,
        "queries": [("uid = ?", 8), ("uid = ? AND ts < ?", 2)],
        "newest_first": ["uid"],
        "options": {"servers": 16, "rate": 20000, "capacity": 10000},
        "expert": "fields uid:u64, ts:ts, msg_len:u32; key u64(uid) u64(rts(ts))",
        "expert_parts": [F("uid"), D("ts")],
        "reject": [
            "uid + ts ascending: the newest 20 need a reverse scan or the whole history",
            "ts first: every write on the last region",
            "random/round-robin salt in front: uid = ? becomes 16 scans merged for no write gain",
        ],
    },
    {
        "name": "user_phone_name_lookup",
        "why": "Seed 002: key uid + phone + name serves uid = ? and uid = ? AND phone = ? as prefix "
               "scans; name is in the key only because a shared landline is saved under two names "
               "(uid+phone is not unique). 300 writes/s: no salt.",
        "header": ["uid", "phone", "name"],
        "gen": gen_contacts,
        "queries": [("uid = ?", 6), ("uid = ? AND phone = ?", 4)],
        "options": {"servers": 16, "rate": 300, "capacity": 10000},
        "expert": "fields uid:u64, phone:str, name:str; key u64(uid) esc(phone) name",
        "expert_parts": [F("uid"), F("phone"), F("name")],
        "reject": [
            "phone first: uid = ? becomes a full scan",
            "uid + phone only: two contacts sharing a phone overwrite each other",
            "any salt or hash prefix: 300 writes/s fit one server",
        ],
    },
    {
        "name": "trades_seller_buyer_order",
        "why": "Seed 002 trading case: no single key serves a seller's trades, a buyer's trades and "
               "an order by id, so the row is written three times: seller+ts+order (heaviest shape), "
               "buyer+ts+order, and order id alone; the order-id table is salted because sequential "
               "ids at 30,000/s would all hit its last region. Cost: 3x writes and storage.",
        "header": ["order_id", "seller", "buyer", "ts", "qty", "price"],
        "gen": gen_trades,
        "queries": [("seller = ? AND ts >= ? AND ts < ?", 5),
                    ("buyer = ? AND ts >= ? AND ts < ?", 3),
                    ("order_id = ?", 2)],
        "options": {"servers": 16, "rate": 30000, "capacity": 10000},
        "expert": "fields order_id:u64, seller:u64, buyer:u64, ts:ts, qty:u32, price:f64; "
                  "key u64(seller) i64(ts) u64(order_id)",
        "expert_parts": [F("seller"), F("ts"), F("order_id")],
        "index_tables": [
            [F("buyer"), F("ts"), F("order_id")],
            [S(16, ["order_id"]), F("order_id")],
        ],
        "index_schemas": [
            "fields order_id:u64, buyer:u64, ts:ts; key u64(buyer) i64(ts) u64(order_id)",
            "fields order_id:u64; key bucket(16, xxh3(u64(order_id))) u64(order_id)",
        ],
        "reject": [
            "one table keyed by order_id only: seller and buyer queries are full scans",
            "seller + ts without order_id: two trades of a seller in one ms overwrite each other",
            "unsalted order_id index table: 30,000 sequential ids/s on its last region",
        ],
    },
    {
        "name": "stock_prices_symbol_time",
        "why": "Bigtable schema guide (financial data): identifier first, then the timestamp, so a "
               "symbol's bars over a window are one contiguous range; reads are ascending ranges so "
               "no reverse timestamp; ~500 bars a minute needs no salt.",
        "header": ["symbol", "ts", "open", "high", "low", "close", "volume"],
        "gen": gen_stock,
        "queries": [("symbol = ? AND ts >= ? AND ts < ?", 1)],
        "options": {"servers": 16, "rate": 500, "capacity": 10000},
        "expert": "fields symbol:str, ts:ts, open:f64, high:f64, low:f64, close:f64, volume:u64; "
                  "key esc(symbol) i64(ts)",
        "expert_parts": [F("symbol"), F("ts")],
        "reject": [
            "ts first: the guide's named anti-pattern, all writes of a minute on one region",
            "symbol + reverse ts: reads are ascending ranges (the guide warns against reverse timestamps otherwise)",
            "salt/hash prefix: 500 rows a minute fit one server; symbol queries would fan out",
        ],
    },
    {
        "name": "sensor_device_first",
        "why": "Bigtable guide (time series): device id first, then timestamp; every device reports "
               "every minute so writes of a moment are spread over the whole device key space, and a "
               "device's window is one range.",
        "header": ["device_id", "ts", "temp_c", "humidity"],
        "gen": gen_sensor,
        "queries": [("device_id = ? AND ts >= ? AND ts < ?", 1)],
        "options": {"servers": 16, "rate": 6700, "capacity": 10000},
        "expert": "fields device_id:str, ts:ts, temp_c:f64, humidity:f64; key esc(device_id) i64(ts)",
        "expert_parts": [F("device_id"), F("ts")],
        "reject": [
            "ts + device_id: every write on the last region",
            "random salt in front: each device query fans out 16 ways with no write gain",
        ],
    },
    {
        "name": "social_feed_per_user",
        "why": "Bigtable guide (social feed, fan-out on write): user + reverse timestamp so the feed's "
               "first page is the first rows of one prefix; post_id is needed because scheduled posts "
               "publish on the same minute ms and land in one feed at the same ts.",
        "header": ["user_id", "ts", "post_id", "author_id"],
        "gen": gen_feed,
        "queries": [("user_id = ?", 8), ("user_id = ? AND ts < ?", 2)],
        "newest_first": ["user_id"],
        "options": {"servers": 16, "rate": 50000, "capacity": 10000},
        "expert": "fields user_id:u64, ts:ts, post_id:u64, author_id:u64; "
                  "key u64(user_id) u64(rts(ts)) u64(post_id)",
        "expert_parts": [F("user_id"), D("ts"), F("post_id")],
        "reject": [
            "author first: the feed read (user_id = ?) becomes a full scan",
            "user_id + rts(ts) without post_id: posts published at the same ms overwrite each other",
        ],
    },
    {
        "name": "opentsdb_metric_hour_host",
        "why": "OpenTSDB's key: metric + hour base time + tags, so metric = ? AND time range is one "
               "range and a host's series sits inside each hour; queries bind metric, then time, then "
               "host. 6,000 points/s fits one server, so OpenTSDB's optional salt is not needed.",
        "header": ["metric", "ts", "host", "value"],
        "gen": gen_opentsdb,
        "queries": [("metric = ? AND ts >= ? AND ts < ?", 5),
                    ("metric = ? AND host = ? AND ts >= ? AND ts < ?", 5)],
        "options": {"servers": 16, "rate": 6000, "capacity": 10000},
        "expert": "fields metric:str, ts:ts, host:str, value:f64; "
                  "key esc(metric) i64(tbucket(ts, 3600000)) esc(host) i64(ts)",
        "expert_parts": [F("metric"), ("time_bucket", "ts", "hour"), F("host"), F("ts")],
        "accept": [
            {"parts": [F("metric"), F("ts"), F("host")],
             "why": "same ranges under a prefix-range planner; the hour bucket mainly serves "
                    "OpenTSDB's row-per-hour storage and fuzzy host skips"},
        ],
        "reject": [
            "host first: metric = ? AND time becomes a full scan",
            "metric + host + ts: metric = ? AND time reads the metric's whole history",
            "ts first: every write on the last region",
        ],
    },
    {
        "name": "webcrawl_reversed_domain",
        "why": "Bigtable paper's webtable: the row is the URL with the host reversed by labels "
               "(com.example.www) then the path, so a site's pages are one range, a path prefix is a "
               "sub-range, and a URL is a point get; a domain's subdomains sit together.",
        "header": ["host", "path", "fetched_ts", "status", "content_len"],
        "gen": gen_crawl,
        "queries": [("host = ?", 3), ("host = ? AND path PREFIX ?", 4), ("host = ? AND path = ?", 3)],
        "options": {"servers": 16, "rate": 2000, "capacity": 10000},
        "expert": "fields host:str, path:str, fetched_ts:ts, status:u16, content_len:u64; "
                  "key esc(reverse_labels(host)) path",
        "expert_parts": [("reverse_labels", "host"), F("path")],
        "accept": [
            {"parts": [F("host"), F("path")],
             "why": "every query binds host by equality, so plain host serves them equally; "
                    "reversal only adds subdomain locality"},
        ],
        "reject": [
            "hash of the URL first: path prefix reads become full scans",
            "fetched_ts first: every write on the last region and no query served",
            "path before host: host = ? is a full scan",
        ],
    },
    {
        "name": "inbox_latest_first",
        "why": "A mailbox opens on its newest mail: mailbox + reverse timestamp (seed 002's rule); "
               "notification batches put 2-4 mails in one box in one ms, so the message id ends the "
               "key. Mailboxes spread writes; list fan-outs hit hundreds of boxes at once.",
        "header": ["mailbox", "ts", "msg_id", "sender", "size"],
        "gen": gen_inbox,
        "queries": [("mailbox = ?", 8), ("mailbox = ? AND ts >= ? AND ts < ?", 2)],
        "newest_first": ["mailbox"],
        "options": {"servers": 16, "rate": 15000, "capacity": 10000},
        "expert": "fields mailbox:str, ts:ts, msg_id:u64, sender:str, size:u32; "
                  "key esc(mailbox) u64(rts(ts)) u64(msg_id)",
        "expert_parts": [F("mailbox"), D("ts"), F("msg_id")],
        "reject": [
            "mailbox + ts ascending: the inbox page needs a reverse scan",
            "mailbox + rts(ts) alone: mails delivered in the same ms overwrite each other",
            "msg_id first: mailbox = ? becomes a full scan",
        ],
    },
    {
        "name": "multitenant_dominant_tenant",
        "why": "Reads are a tenant's events over time, so tenant leads and ts follows; acme makes 55% "
               "of 80,000/s = 44,000/s at its 'now', over 4 servers' capacity, so acme is spread "
               "inside its prefix by a 16-way hash of event_id before ts. Price: tenant time ranges "
               "read 16 sub-ranges merged (adjacent, one region for small tenants).",
        "header": ["tenant", "ts", "event_id", "user", "action"],
        "gen": gen_multitenant,
        "queries": [("tenant = ? AND ts >= ? AND ts < ?", 1)],
        "options": {"servers": 16, "rate": 80000, "capacity": 10000},
        "expert": "fields tenant:str, ts:ts, event_id:u64, user:str, action:str; "
                  "key esc(tenant) hex(xxh3(u64(event_id)))[0:1] i64(ts) u64(event_id)",
        "expert_parts": [F("tenant"), S(16, ["event_id"]), F("ts"), F("event_id")],
        "accept": [
            {"parts": [F("tenant"), S(32, ["event_id"]), F("ts"), F("event_id")],
             "why": "32 buckets (2x servers) is as good; 16 already covers acme's 4.4x overload"},
        ],
        "reject": [
            "tenant + ts unspread: 44,000/s on acme's last region",
            "user or event_id first: tenant = ? becomes a full scan",
            "random salt: a retried write lands in another bucket and duplicates the row",
        ],
    },
    {
        "name": "iot_hot_device",
        "why": "Reads are one device's window: device + ts (+ channel, as the gateway writes 16 "
               "channels in one ms). gw-plant-07 makes 30% of writes (6,000/s of 20,000/s); no key "
               "that keeps a device's rows in one range can spread it, and it fits one server, so the "
               "hot device is named, not salted.",
        "header": ["device", "ts", "channel", "value"],
        "gen": gen_iot_hot,
        "queries": [("device = ? AND ts >= ? AND ts < ?", 9),
                    ("device = ? AND channel = ? AND ts >= ? AND ts < ?", 1)],
        "options": {"servers": 16, "rate": 20000, "capacity": 10000},
        "expert": "fields device:str, ts:ts, channel:u16, value:f64; key esc(device) i64(ts) u16(channel)",
        "expert_parts": [F("device"), F("ts"), F("channel")],
        "reject": [
            "bucket over device: the hot device stays in one bucket",
            "random salt in front: every device read fans out 16 ways to spread a load one server takes",
            "device + channel + ts: the main query (all channels, one window) scans every channel's history",
            "device + ts without channel: a gateway frame's 16 channels overwrite each other",
        ],
    },
    {
        "name": "daily_snapshot_low_rate",
        "why": "A nightly inventory snapshot written at 5 rows/s: one server takes it, so the key is "
               "the one reads want, day + store + sku (day = ? and day = ? AND store = ? are single "
               "ranges), even though day rises (rule 11, Bigtable guide: design for the queries).",
        "header": ["day", "store", "sku", "on_hand"],
        "gen": gen_daily,
        "queries": [("day = ?", 4), ("day = ? AND store = ?", 6)],
        "options": {"servers": 16, "rate": 5, "capacity": 10000},
        "expert": "fields day:ts, store:u32, sku:u32, on_hand:u32; key i64(day) u32(store) u32(sku)",
        "expert_parts": [F("day"), F("store"), F("sku")],
        "reject": [
            "any salt or hash prefix: 5 writes/s; day = ? would fan out for nothing",
            "store first: day = ? becomes a full scan",
        ],
    },
    {
        "name": "daily_snapshot_high_rate",
        "why": "The same snapshot bulk-loaded at 200,000 rows/s: each night's day prefix sorts past "
               "every existing key, so the whole load lands on the last region; a 16-bucket salt over "
               "store spreads it while day = ? AND store = ? still computes its bucket (one range) and "
               "day = ? pays 16 ranges merged.",
        "header": ["day", "store", "sku", "on_hand"],
        "gen": gen_daily,
        "queries": [("day = ?", 4), ("day = ? AND store = ?", 6)],
        "options": {"servers": 16, "rate": 200000, "capacity": 10000},
        "expert": "fields day:ts, store:u32, sku:u32, on_hand:u32; "
                  "key bucket(16, xxh3(u32(store))) i64(day) u32(store) u32(sku)",
        "expert_parts": [S(16, ["store"]), F("day"), F("store"), F("sku")],
        "accept": [
            {"parts": [S(32, ["store"]), F("day"), F("store"), F("sku")],
             "why": "32 buckets (2x servers) spreads as well; day = ? pays 32 ranges"},
        ],
        "reject": [
            "no salt: 200,000/s on one region (20x a server)",
            "salt over store + sku: day = ? AND store = ? fans out 16 ways",
            "store first: day = ? becomes a full scan",
        ],
    },
    {
        "name": "text_dates_month_name",
        "why": "'Jan 1 2000' text sorts Apr < Aug < Dec < Feb, so ranges over it are wrong; the date "
               "is parsed to a time and encoded as an order-preserving integer after the account "
               "(account = ? AND date range is one scan); txn_id makes the row unique.",
        "header": ["account", "date", "txn_id", "amount"],
        "gen": gen_month_name_dates,
        "text_times": {"date": "%b %d %Y"},
        "queries": [("account = ? AND date >= ? AND date < ?", 9), ("account = ?", 1)],
        "options": {"servers": 16, "rate": 50, "capacity": 10000},
        "expert": "fields account:u64, date:ts, txn_id:u64, amount:f64; key u64(account) i64(date) u64(txn_id)",
        "expert_parts": [F("account"), F("date"), F("txn_id")],
        "reject": [
            "date as text in the key: month names sort alphabetically, ranges break",
            "date first: account = ? becomes a full scan",
            "account + date without txn_id: an account's transactions of a day overwrite each other",
        ],
    },
    {
        "name": "text_dates_slash",
        "why": "'01/31/2000' text sorts by month before year (01/05/2001 < 02/01/1999), so it is parsed "
               "to a time; clinic + date + patient serves a clinic's visits over a date range and a "
               "day's visits as one range.",
        "header": ["clinic", "visit_date", "patient_id", "kind"],
        "gen": gen_slash_dates,
        "text_times": {"visit_date": "%m/%d/%Y"},
        "queries": [("clinic = ? AND visit_date >= ? AND visit_date < ?", 8),
                    ("clinic = ? AND visit_date = ?", 2)],
        "options": {"servers": 16, "rate": 20, "capacity": 10000},
        "expert": "fields clinic:str, visit_date:ts, patient_id:u64, kind:str; "
                  "key esc(clinic) i64(visit_date) u64(patient_id)",
        "expert_parts": [F("clinic"), F("visit_date"), F("patient_id")],
        "reject": [
            "visit_date as MM/DD/YYYY text: year ranges cross in the wrong order",
            "patient first: clinic queries become full scans",
        ],
    },
    {
        "name": "sparse_numeric_column",
        "why": "coupon_id is empty in 85% of rows and no query binds it: it cannot be a fixed-width "
               "key part and must stay out. Reads are account + time range; batch imports put several "
               "rows of an account in one ms, so the always-present event_id is the uniquifier.",
        "header": ["account", "ts", "event_id", "coupon_id", "amount"],
        "gen": gen_sparse,
        "queries": [("account = ? AND ts >= ? AND ts < ?", 1)],
        "options": {"servers": 16, "rate": 3000, "capacity": 10000},
        "expert": "fields account:u64, ts:ts, event_id:u64, coupon_id:u64, amount:f64; "
                  "key u64(account) i64(ts) u64(event_id)",
        "expert_parts": [F("account"), F("ts"), F("event_id")],
        "reject": [
            "coupon_id anywhere in the key: 85% empty",
            "account + ts alone: batch-imported rows overwrite each other",
        ],
    },
    {
        "name": "newest_first_file",
        "why": "The sample file was exported newest first (the clock falls down the file), but ts is "
               "still the event time and rises in production; reads are ascending user time ranges, "
               "so user + ts ascending, not a reverse timestamp.",
        "header": ["ts", "user", "op", "bytes"],
        "gen": gen_newest_first_file,
        "queries": [("user = ? AND ts >= ? AND ts < ?", 1)],
        "options": {"servers": 16, "rate": 8000, "capacity": 10000},
        "expert": "fields ts:ts, user:u64, op:str, bytes:u64; key u64(user) i64(ts)",
        "expert_parts": [F("user"), F("ts")],
        "reject": [
            "user + rts(ts): reads want ascending ranges; the file's order is an export artefact",
            "ts first (asc or desc): one region takes every write, whichever way the clock runs",
        ],
    },
    {
        "name": "records_without_identity",
        "why": "Click records at second resolution repeat exactly (same page, second, country, "
               "browser): no field set is unique, so a sequence is added as the last key part; reads "
               "are a page's clicks over a time range, so page + ts + seq.",
        "header": ["page", "ts", "country", "browser"],
        "gen": gen_no_identity,
        "needs_uniquifier": True,
        "queries": [("page = ? AND ts >= ? AND ts < ?", 1)],
        "options": {"servers": 16, "rate": 5000, "capacity": 10000},
        "expert": "fields page:str, ts:ts, country:str, browser:str, seq:u64; key esc(page) i64(ts) u64(seq)",
        "expert_parts": [F("page"), F("ts"), F("seq")],
        "reject": [
            "page + ts + country + browser: identical clicks still collide and are lost",
            "a random salt as uniquifier: rows still collide within a bucket and reads fan out",
        ],
    },
    {
        "name": "sequential_id_point_gets",
        "why": "Auto-increment ids read only by id: a plain id sends 50,000 inserts/s (5 servers' worth) "
               "to the last region; a hash bucket of the id spreads them and a get recomputes it "
               "(no read price: there are no range reads).",
        "header": ["id", "created_ts", "status", "size"],
        "gen": gen_seq_id,
        "queries": [("id = ?", 1)],
        "options": {"servers": 16, "rate": 50000, "capacity": 10000},
        "expert": "fields id:u64, created_ts:ts, status:str, size:u32; key bucket(16, xxh3(u64(id))) u64(id)",
        "expert_parts": [S(16, ["id"]), F("id")],
        "accept": [
            {"parts": [S(32, ["id"]), F("id")], "why": "32 buckets: equally one get per id"},
            {"parts": [S(256, ["id"]), F("id")], "why": "a full hash prefix: point gets only, no range to lose"},
            {"parts": [("reverse_num", "id")],
             "why": "the id's digits reversed (HBase guide: reverse a fixed-width number); "
                    "one get, writes spread by the fast-changing last digit"},
        ],
        "reject": [
            "plain id: every insert on the last region",
            "random/round-robin salt: each get becomes 16 gets",
        ],
    },
    {
        "name": "order_uuid_point_gets",
        "why": "Orders read only by a random UUIDv4 id: the id is already uniformly spread, so the key "
               "is the id alone; a salt would add a byte per row and buy nothing.",
        "header": ["order_id", "ts", "customer", "total"],
        "gen": gen_uuid_orders,
        "queries": [("order_id = ?", 1)],
        "options": {"servers": 16, "rate": 20000, "capacity": 10000},
        "expert": "fields order_id:str, ts:ts, customer:u64, total:f64; key order_id",
        "expert_parts": [F("order_id")],
        "reject": [
            "a salt or hash prefix over order_id: UUIDv4 is already uniform",
            "ts or customer first: order_id = ? becomes a full scan",
        ],
    },
    {
        "name": "logs_service_hot_service",
        "why": "Logs are read per service over time (and per host); api-gateway writes 50% of "
               "150,000 lines/s, so service + ts would put 75,000/s on one region. It is spread inside "
               "the service prefix by a 16-way hash of host before ts: service queries read 16 "
               "sub-ranges merged, a host query computes its bucket. host + offset is unique.",
        "header": ["service", "host", "ts", "offset", "level"],
        "gen": gen_logs,
        "queries": [("service = ? AND ts >= ? AND ts < ?", 7),
                    ("service = ? AND host = ? AND ts >= ? AND ts < ?", 3)],
        "options": {"servers": 16, "rate": 150000, "capacity": 10000},
        "expert": "fields service:str, host:str, ts:ts, offset:u64, level:str; "
                  "key esc(service) hex(xxh3(esc(host)))[0:1] i64(ts) esc(host) u64(offset)",
        "expert_parts": [F("service"), S(16, ["host"]), F("ts"), F("host"), F("offset")],
        "accept": [
            {"parts": [F("service"), S(32, ["host"]), F("ts"), F("host"), F("offset")],
             "why": "32 buckets (2x servers): same shape, service reads merge 32 sub-ranges"},
        ],
        "reject": [
            "service + ts unspread: 75,000/s on api-gateway's last region",
            "host first: service = ? becomes a full scan",
            "service + bucket(host) + host + ts: a service time range is no longer a range per bucket",
        ],
    },
    {
        "name": "geo_region_time",
        "why": "Reads are an area's pings over time: region (a geohash cell) + ts + vehicle. Cells are "
               "skewed (city centres, top ~15%) but at 3,000/s even the top cell fits one server; all "
               "cells write at once, so the region prefix spreads the writes.",
        "header": ["region", "ts", "vehicle_id", "speed"],
        "gen": gen_geo,
        "queries": [("region = ? AND ts >= ? AND ts < ?", 1)],
        "options": {"servers": 16, "rate": 3000, "capacity": 10000},
        "expert": "fields region:str, ts:ts, vehicle_id:u64, speed:f64; key esc(region) i64(ts) u64(vehicle_id)",
        "expert_parts": [F("region"), F("ts"), F("vehicle_id")],
        "reject": [
            "ts first: every write on the last region",
            "vehicle first: region queries become full scans",
            "region + ts without vehicle_id: two vehicles in one cell in one ms overwrite each other",
        ],
    },
    {
        "name": "ecommerce_orders_customer_newest",
        "why": "'My orders' lists a customer's newest first: customer + reverse ts + order_id (a cart "
               "split into two orders shares a ms). customer = ? AND order_id = ? is served by a "
               "filtered scan of one customer's few orders, a price accepted instead of a second table.",
        "header": ["customer_id", "order_ts", "order_id", "total", "status"],
        "gen": gen_orders_customer,
        "queries": [("customer_id = ?", 6), ("customer_id = ? AND order_ts >= ? AND order_ts < ?", 3),
                    ("customer_id = ? AND order_id = ?", 1)],
        "newest_first": ["customer_id"],
        "options": {"servers": 16, "rate": 2000, "capacity": 10000},
        "expert": "fields customer_id:u64, order_ts:ts, order_id:u64, total:f64, status:str; "
                  "key u64(customer_id) u64(rts(order_ts)) u64(order_id)",
        "expert_parts": [F("customer_id"), D("order_ts"), F("order_id")],
        "reject": [
            "customer + order_ts ascending: the newest orders need a reverse scan",
            "order_id first: customer queries become full scans",
            "an extra order_id index table: the customer-bound lookup does not need one",
        ],
    },
    {
        "name": "tenant_user_binding_order",
        "why": "tenant has 20 values and user 50,000 (ids per tenant), but queries bind tenant = ? "
               "alone and tenant = ? AND user = ?: equality fields go in the order queries bind them "
               "(rule 14), so tenant + user + ts; both orders serve the pair equally, only tenant "
               "first serves tenant = ?.",
        "header": ["tenant", "user", "ts", "event"],
        "gen": gen_tenant_user,
        "queries": [("tenant = ? AND user = ? AND ts >= ? AND ts < ?", 8), ("tenant = ?", 2)],
        "options": {"servers": 16, "rate": 5000, "capacity": 10000},
        "expert": "fields tenant:str, user:u32, ts:ts, event:str; key esc(tenant) u32(user) i64(ts)",
        "expert_parts": [F("tenant"), F("user"), F("ts")],
        "reject": [
            "user + tenant + ts (higher cardinality first): tenant = ? becomes a full scan",
            "a salt in front: tenant = ? fans out for no write need at 5,000/s",
        ],
    },
    {
        "name": "recent_events_time_range",
        "why": "The only read is 'all events in a recent window' and writes peak at 100,000/s (10 "
               "servers' worth), so time order must be kept but spread: a 16-bucket salt over event_id "
               "then ts; each window read is 16 ranges merged (OpenTSDB 2.2 / Phoenix salting).",
        "header": ["ts", "event_id", "user", "type"],
        "gen": gen_recent,
        "queries": [("ts >= ? AND ts < ?", 1)],
        "options": {"servers": 16, "rate": 100000, "capacity": 10000},
        "expert": "fields ts:ts, event_id:u64, user:u64, type:str; "
                  "key bucket(16, xxh3(u64(event_id))) i64(ts) u64(event_id)",
        "expert_parts": [S(16, ["event_id"]), F("ts"), F("event_id")],
        "accept": [
            {"parts": [S(32, ["event_id"]), F("ts"), F("event_id")], "why": "32 buckets (2x servers)"},
            {"parts": [S(16, ["ts", "event_id"]), F("ts"), F("event_id")],
             "why": "Phoenix SALT_BUCKETS=16: the salt hashes the whole rest of the key; same reads"},
            {"parts": [S(16, ["event_id"]), ("time_bucket", "ts", "hour"), F("ts"), F("event_id")],
             "why": "an hour bucket before the full ts changes no order (8 bytes longer)"},
        ],
        "reject": [
            "ts first unsalted: 100% of each moment's writes on one region",
            "event_id first: the window read becomes a full scan",
            "random salt: a retried write lands in another bucket and duplicates the row",
        ],
    },
    {
        "name": "metric_few_values_leading",
        "why": "Only 5 metrics: metric + time can keep at most 5 regions busy (rule 6), and 200,000/s "
               "needs 20 servers' capacity; a 16-bucket salt over the series (metric, host), as in "
               "OpenTSDB 2.2, spreads it; metric queries read 16 ranges, metric+host queries one.",
        "header": ["metric", "host", "ts", "value"],
        "gen": gen_few_metrics,
        "queries": [("metric = ? AND ts >= ? AND ts < ?", 5),
                    ("metric = ? AND host = ? AND ts >= ? AND ts < ?", 5)],
        "options": {"servers": 16, "rate": 200000, "capacity": 10000},
        "expert": "fields metric:str, host:str, ts:ts, value:f64; "
                  "key bucket(16, xxh3(esc(metric) esc(host))) esc(metric) i64(tbucket(ts, 3600000)) esc(host) i64(ts)",
        "expert_parts": [S(16, ["metric", "host"]), F("metric"), ("time_bucket", "ts", "hour"), F("host"), F("ts")],
        "accept": [
            {"parts": [S(16, ["host"]), F("metric"), ("time_bucket", "ts", "hour"), F("host"), F("ts")],
             "why": "every query binds metric, so a bucket over host alone is computed just as well"},
            {"parts": [S(32, ["metric", "host"]), F("metric"), ("time_bucket", "ts", "hour"), F("host"), F("ts")],
             "why": "32 buckets (2x servers)"},
            {"parts": [S(16, ["metric", "host"]), F("metric"), F("ts"), F("host")],
             "why": "without the hour bucket: same ranges under a prefix-range planner"},
        ],
        "reject": [
            "metric + time unsalted: 5 write points for 200,000/s",
            "host first unsalted: metric = ? AND time becomes a full scan",
        ],
    },
    {
        "name": "noquery_event_uuid",
        "why": "No queries given: rank by write spread and point gets on the unique key. event_id "
               "(UUIDv4) is unique, short and already uniform; user + ts is not unique (client "
               "batches).",
        "header": ["event_id", "user", "ts", "type"],
        "gen": gen_noq_uuid,
        "queries": [],
        "options": {"servers": 16, "rate": 30000, "capacity": 10000},
        "expert": "fields event_id:str, user:u64, ts:ts, type:str; key event_id",
        "expert_parts": [F("event_id")],
        "reject": [
            "ts first: every write on the last region",
            "user + ts: not unique, batched events overwrite each other",
            "a salt over a UUIDv4: already uniform",
        ],
    },
    {
        "name": "noquery_device_readings",
        "why": "No queries given: device + ts is the unique field set; device first spreads every "
               "moment's writes over 10,000 devices, ts first would put them all on the last region.",
        "header": ["device", "ts", "value"],
        "gen": gen_noq_devices,
        "queries": [],
        "options": {"servers": 16, "rate": 50000, "capacity": 10000},
        "expert": "fields device:str, ts:ts, value:f64; key esc(device) i64(ts)",
        "expert_parts": [F("device"), F("ts")],
        "reject": [
            "ts + device: every write on the last region",
            "a salt in front: device already spreads the writes",
        ],
    },
    {
        "name": "noquery_low_rate_sequence",
        "why": "No queries given, 20 writes/s: the sequential id is the unique key; it rises, but one "
               "server takes 20/s, so no salt (rule 11) and ranges over the id stay single scans.",
        "header": ["seq_id", "ts", "account", "amount"],
        "gen": gen_noq_seq,
        "queries": [],
        "options": {"servers": 16, "rate": 20, "capacity": 10000},
        "expert": "fields seq_id:u64, ts:ts, account:u64, amount:f64; key u64(seq_id)",
        "expert_parts": [F("seq_id")],
        "reject": [
            "any salt or hash of seq_id: 20 writes/s fit one server",
            "account + ts: not unique (two postings of one transfer share a ms)",
        ],
    },
    {
        "name": "follows_two_directions",
        "why": "'Whom do I follow' (follower = ?) and 'who follows me' (followee = ?) bind different "
               "leading fields: the edge is written twice, follower + followee (main, heavier) and "
               "followee + follower (index). A celebrity's follower list is one long prefix; at "
               "2,000/s its inserts fit one server.",
        "header": ["follower", "followee", "ts"],
        "gen": gen_follows,
        "queries": [("follower = ?", 6), ("followee = ?", 4)],
        "options": {"servers": 16, "rate": 2000, "capacity": 10000},
        "expert": "fields follower:u64, followee:u64, ts:ts; key u64(follower) u64(followee)",
        "expert_parts": [F("follower"), F("followee")],
        "index_tables": [[F("followee"), F("follower")]],
        "index_schemas": ["fields follower:u64, followee:u64; key u64(followee) u64(follower)"],
        "reject": [
            "one table only: one of the two shapes is a full scan",
            "ts in the key: the edge is the identity; a re-follow must overwrite, not duplicate",
        ],
    },
    {
        "name": "session_uuidv7_point_gets",
        "why": "Session ids are UUIDv7: they start with the creation ms, so as a plain key they rise "
               "like a timestamp and 40,000 new sessions/s hit the last region; read only by id, a hash "
               "bucket of the id spreads them at no read price.",
        "header": ["session_id", "user", "created_ts", "ttl_s"],
        "gen": gen_uuid7,
        "queries": [("session_id = ?", 1)],
        "options": {"servers": 16, "rate": 40000, "capacity": 10000},
        "expert": "fields session_id:str, user:u64, created_ts:ts, ttl_s:u32; "
                  "key bucket(16, xxh3(session_id)) session_id",
        "expert_parts": [S(16, ["session_id"]), F("session_id")],
        "accept": [
            {"parts": [S(32, ["session_id"]), F("session_id")], "why": "32 buckets: one get either way"},
            {"parts": [S(256, ["session_id"]), F("session_id")], "why": "a full hash prefix: no range reads to lose"},
        ],
        "reject": [
            "plain session_id: time-ordered UUIDs rise, every insert on the last region",
            "random salt: each get becomes 16 gets",
        ],
    },
    {
        "name": "listings_category_price",
        "why": "A category's listings in a price band: category + price as an order-preserving f64 "
               "(never text: '10.99' < '9.99'), then listing_id because many listings share a .99 "
               "price. 500 writes/s: no salt.",
        "header": ["category", "price", "listing_id", "ts"],
        "gen": gen_listings,
        "queries": [("category = ? AND price >= ? AND price < ?", 1)],
        "options": {"servers": 16, "rate": 500, "capacity": 10000},
        "expert": "fields category:str, price:f64, listing_id:u64, ts:ts; key esc(category) f64(price) u64(listing_id)",
        "expert_parts": [F("category"), F("price"), F("listing_id")],
        "reject": [
            "price as text: numeric ranges become covering scans",
            "listing_id first: category queries become full scans",
            "category + price without listing_id: equal prices overwrite each other",
        ],
    },
]


# ---------------------------------------------------------------- self-check

def key_value_fields(parts):
    """Fields whose values the key carries (salts and time buckets are derived)."""
    out = []
    for p in parts:
        if p[0] in ("field", "desc", "reverse_labels", "reverse_num") and p[1] not in out:
            out.append(p[1])
    return out


def check_case(case, rnd):
    rows = case["gen"](rnd)
    header = case["header"]
    assert 500 <= len(rows) <= 40000, (case["name"], len(rows))
    assert all(len(r) == len(header) for r in rows), case["name"]
    tables = [case["expert_parts"]] + list(case.get("index_tables", []))
    for parts in tables:
        names = key_value_fields(parts)
        idx = []
        for n in names:
            if n == "seq" and case.get("needs_uniquifier"):
                idx.append(None)
            else:
                idx.append(header.index(n))
        keys = set()
        for i, r in enumerate(rows):
            keys.add(tuple(i if j is None else r[j] for j in idx))
        assert len(keys) == len(rows), (case["name"], names, len(rows) - len(keys), "duplicates")
    if case.get("needs_uniquifier"):
        assert len(set(rows)) < len(rows), (case["name"], "rows should repeat")
    return len(rows)


if __name__ == "__main__":
    import random
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names))
    for c in CASES:
        print("%-36s %6d rows  ok" % (c["name"], check_case(c, random.Random(1))))
    print(len(CASES), "cases")
