#!/usr/bin/env python3
"""dashboard_check.py - the checks of dashboard_chromium.sh (python3
standard library only):

  dom FILE SPEC          Chromium's --dump-dom of /dashboard against SPEC
                         (JSON: rows, counts, status, refresh, texts)
  png FILE W H           a real screenshot: W x H, not one colour
  serve DIR PORTFILE     a plain HTTP stand-in for the verifier on
                         loopback: DIR's dashboard assets (as the
                         verifier served them) and DIR/fleet.json as
                         GET /v1/fleet once, then 503 for ever
  grafana DASH METRICS   the Grafana dashboard against a /metrics scrape:
                         every series used is exported and every family
                         exported has a panel
Exit status 0 when every check passed; each check prints ok/FAIL lines.
"""
import html.parser
import http.server
import json
import os
import re
import struct
import sys
import zlib

FAILS = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.content = [], []  # content: text and nodes

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def all_text(self):
        out = [c if isinstance(c, str) else c.all_text()
               for c in self.content]
        return " ".join(" ".join(t for t in out if t).split())

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find(self, pred):
        return [n for n in self.walk() if pred(n)]


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}


class Tree(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.content.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.content.append(n)

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        if data.strip():
            self.cur.content.append(data.strip())


def by_id(root, i):
    found = root.find(lambda n: n.attrs.get("id") == i)
    return found[0] if found else None


def dom(path, spec_json):
    spec = json.loads(spec_json)
    t = Tree()
    t.feed(open(path, encoding="utf-8").read())
    root = t.root
    titles = root.find(lambda n: n.tag == "title")
    check(titles and titles[0].all_text() == "attest fleet",
          "title is 'attest fleet' (no script from the data changed it): %r"
          % (titles[0].all_text() if titles else None))
    body = by_id(root, "rows")
    check(body is not None, "the table body is there")
    if body is None:
        return
    rows = {n.attrs.get("data-agent"): n for n in body.find(
        lambda n: n.tag == "tr")}
    check(sorted(rows) == sorted(spec["rows"]),
          "rows are exactly %s: %s" % (sorted(spec["rows"]), sorted(rows)))
    for agent, want in spec["rows"].items():
        tr = rows.get(agent)
        if tr is None:
            continue
        check("state-" + want["state"] in tr.classes(),
              "%s: row class state-%s (%s)" % (agent, want["state"],
                                               tr.attrs.get("class")))
        st = tr.find(lambda n: "state" in n.classes() and n.tag == "span")
        check(bool(st) and st[0].all_text() == want["state"] and
              "state-" + want["state"] in st[0].classes(),
              "%s: state cell says %s" % (agent, want["state"]))
        text = tr.all_text()
        for s in want.get("text", []):
            check(s in text, "%s: shows %r" % (agent, s))
        reasons = [li.all_text() for li in tr.find(
            lambda n: n.tag == "li" and "reason" in n.classes())]
        for s in want.get("reasons", []):
            check(any(s in r for r in reasons),
                  "%s: a reason contains %r (%s)" % (agent, s, reasons))
        if want.get("no_reasons"):
            check(not reasons, "%s: no reasons" % agent)
    # Agent-supplied markup must be text: no element from it, anywhere.
    for tag in spec.get("forbidden_tags", []):
        check(not body.find(lambda n, t=tag: n.tag == t),
              "no <%s> element in the table (hostile text stayed text)" % tag)
    check(not root.find(lambda n: any(k.startswith("on") for k in n.attrs)),
          "no element has an on* attribute")
    for k, v in spec.get("counts", {}).items():
        c = root.find(lambda n, k=k: "count-" + k in n.classes())
        n = c[0].find(lambda x: "n" in x.classes()) if c else []
        check(bool(n) and n[0].all_text() == str(v),
              "summary %s = %s (%s)" % (k, v, n[0].all_text() if n else None))
    status = by_id(root, "status")
    check(status is not None and
          "status-" + spec["status"] in status.classes(),
          "status banner is status-%s: %s %r" % (
              spec["status"], status.attrs.get("class") if status else None,
              status.all_text() if status else None))
    for s in spec.get("status_text", []):
        check(status is not None and s in status.all_text(),
              "status banner says %r" % s)
    table = by_id(root, "fleet")
    check(table is not None and
          table.attrs.get("data-stale") == ("true" if spec.get("stale")
                                            else "false") and
          (("stale" in table.classes()) == bool(spec.get("stale"))),
          "table marked stale: %s" % bool(spec.get("stale")))
    note = by_id(root, "refresh-note")
    want = "every %d s" % spec["refresh"]
    check(note is not None and want in note.all_text(),
          "refresh note says %r: %r" % (want, note.all_text() if note
                                        else None))


def png(path, w, h):
    data = open(path, "rb").read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "%s is a PNG" % path)
    pos, idat, ihdr = 8, b"", None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    check(ihdr is not None and ihdr[0] == w and ihdr[1] == h,
          "screenshot is %dx%d: %s" % (w, h, ihdr[:2] if ihdr else None))
    if not ihdr:
        return
    pw, ph, depth, ctype = ihdr[0], ihdr[1], ihdr[2], ihdr[3]
    check(depth == 8 and ctype in (2, 6), "8-bit RGB(A)")
    if depth != 8 or ctype not in (2, 6):
        return
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = pw * bpp
    prev = bytearray(stride)
    colours = {}
    off = 0
    for _ in range(ph):
        f = raw[off]
        line = bytearray(raw[off + 1:off + 1 + stride])
        off += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        for i in range(0, stride, bpp * 7):
            k = bytes(line[i:i + 3])
            colours[k] = colours.get(k, 0) + 1
        prev = line
    total = sum(colours.values())
    top = max(colours.values())
    check(len(colours) >= 16, "screenshot has %d colours (>= 16)"
          % len(colours))
    check(top < 0.97 * total, "no colour covers 97%% of it (%.1f%%)"
          % (100.0 * top / total))
    # the state colours of dashboard.css are on screen
    for name, rgb in (("trusted", (0x1b, 0x7f, 0x3b)),
                      ("untrusted", (0xc6, 0x28, 0x28))):
        check(colours.get(bytes(rgb), 0) > 20,
              "%s colour #%02x%02x%02x is on screen" % ((name,) + rgb))


class Stand(http.server.BaseHTTPRequestHandler):
    served = 0
    dir = "."
    csp = ""

    def log_message(self, fmt, *args):
        sys.stderr.write("serve: " + (fmt % args) + "\n")

    def do_GET(self):
        path = self.path.split("?")[0]
        files = {"/dashboard": ("dashboard.html", "text/html"),
                 "/dashboard.js": ("dashboard.js", "text/javascript"),
                 "/dashboard.css": ("dashboard.css", "text/css")}
        if path in files:
            name, ctype = files[path]
            body, status = open(os.path.join(Stand.dir, name), "rb").read(), 200
        elif path == "/v1/fleet" and Stand.served == 0:
            Stand.served += 1
            body = open(os.path.join(Stand.dir, "fleet.json"), "rb").read()
            ctype, status = "application/json", 200
        elif path == "/v1/fleet":
            Stand.served += 1
            body = b'{"code": "storage_unavailable", "message": "stand-in down"}'
            ctype, status = "application/json", 503
        else:
            body, ctype, status = b'{"code": "not_found"}', "application/json", 404
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Cache-Control", "no-store")
        if Stand.csp:
            self.send_header("Content-Security-Policy", Stand.csp)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(d, portfile):
    Stand.dir = d
    if os.path.exists(os.path.join(d, "csp")):
        Stand.csp = open(os.path.join(d, "csp")).read().strip()
    srv = http.server.HTTPServer(("127.0.0.1", 0), Stand)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    srv.serve_forever()


def grafana(dash_path, metrics_path):
    d = json.load(open(dash_path))
    check(d.get("schemaVersion", 0) >= 36, "schemaVersion %s"
          % d.get("schemaVersion"))
    tvars = [v["name"] for v in d.get("templating", {}).get("list", [])]
    check("DS_PROMETHEUS" in tvars, "datasource variable DS_PROMETHEUS")
    families, types = set(), {}
    for line in open(metrics_path):
        m = re.match(r"# TYPE (\S+) (\S+)", line)
        if m:
            families.add(m.group(1))
            types[m.group(1)] = m.group(2)
    check(len(families) >= 5, "the scrape has %d families" % len(families))
    ids, used = set(), {}
    panels = []
    for p in d["panels"]:
        panels.append(p)
        panels.extend(p.get("panels", []))
    for p in panels:
        check(p["id"] not in ids, "panel id %d unique" % p["id"])
        ids.add(p["id"])
        gp = p.get("gridPos", {})
        check(all(k in gp for k in "xywh") and gp["x"] + gp["w"] <= 24,
              "panel %d has a gridPos within 24 columns" % p["id"])
        if p["type"] == "row":
            continue
        check(p.get("datasource", {}).get("uid") == "${DS_PROMETHEUS}",
              "panel %d '%s' uses ${DS_PROMETHEUS}" % (p["id"], p["title"]))
        check(bool(p.get("targets")), "panel %d has queries" % p["id"])
        for t in p.get("targets", []):
            for name in re.findall(r"\battest_[a-z0-9_]+", t["expr"]):
                used.setdefault(name, []).append(p["title"])
    used_families = set()
    for name in sorted(used):
        fam = name
        for suf in ("_bucket", "_sum", "_count"):
            if name.endswith(suf) and types.get(name[:-len(suf)]) == \
                    "histogram":
                fam = name[:-len(suf)]
        check(fam in families, "%s (in %s) is exported by /metrics"
              % (name, ", ".join(sorted(set(used[name])))))
        if fam in families and types[fam] == "histogram":
            check(name != fam, "histogram %s used through _bucket/_sum/"
                  "_count, not by its bare name" % fam)
        used_families.add(fam)
    for fam in sorted(families):
        check(fam in used_families, "family %s (%s) has a panel"
              % (fam, types[fam]))
    for fam, ty in types.items():
        if ty == "histogram":
            check(any("histogram_quantile" in t["expr"] and fam in t["expr"]
                      for p in panels for t in p.get("targets", [])),
                  "histogram %s has a histogram_quantile panel" % fam)


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "dom" and len(sys.argv) == 4:
        dom(sys.argv[2], sys.argv[3])
    elif cmd == "png" and len(sys.argv) == 5:
        png(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "serve" and len(sys.argv) == 4:
        serve(sys.argv[2], sys.argv[3])
    elif cmd == "grafana" and len(sys.argv) == 4:
        grafana(sys.argv[2], sys.argv[3])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
