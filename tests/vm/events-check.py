#!/usr/bin/env python3
"""events-check.py - host-side judge of the lattice event scenarios.

    events-check.py events|limit LIST CONSOLE

LIST is a dumped binary list, CONSOLE the guest's console (its "@@VAL key
value" lines carry what the guest did). The records are decoded by
imalist.py (an independent reader of docs/lattice-events.md), then:
  events: the load and default policy records open the list (the digest
    is the sha256 of the policy the guest read back after the load); both
    mode changes, the written and the restored policy (digests as the
    guest computed them with sha256sum), the relabel, and exactly the four
    demotions of SYSTEM tasks of /lab/evdaemon are there; no record
    describes a task that was not at SYSTEM integrity.
  limit:  the burst (2) passed and every other demotion the guest caused
    is counted in events_dropped; a dropped record reported the rate
    limit; the cap (events_max=4) ended with one final dropped record,
    the last one.
Prints what failed and exits 1, or exits 0.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import imalist  # noqa: E402


def vals(console):
    out = {}
    for line in open(console, errors="replace"):
        line = line.strip()
        if line.startswith("@@VAL "):
            parts = line.split(None, 2)
            if len(parts) == 3:
                out[parts[1]] = parts[2]
    return out


def check_events(recs, v):
    errs = []
    if not recs or recs[0]["type"] != "load":
        return ["the first record is not a load record"]
    ld = recs[0]
    want = {"seq": 0, "mode": 2, "pcr": 11, "lock": 0, "evm_demote": 0,
            "default_label": "SYSTEM PUBLIC", "version": "0.2"}
    for k, w in want.items():
        if ld.get(k) != w:
            errs.append("load record: %s is %r, want %r" % (k, ld.get(k), w))
    if ld["index"] > 2:
        errs.append("load record at entry %d, not right after boot_aggregate" % ld["index"])
    if len(recs) < 2 or recs[1]["type"] != "policy" or recs[1]["source"] != 0 \
            or recs[1]["pid"] != 0 or recs[1]["digest"] != v.get("policy_at_load"):
        errs.append("second record is not the default policy with digest %s" %
                    v.get("policy_at_load"))
    modes = [(r["old_mode"], r["mode"], r["comm"]) for r in recs if r["type"] == "mode"]
    if (2, 1, "slimctl") not in modes or (1, 2, "slimctl") not in modes or \
            modes.index((2, 1, "slimctl")) > modes.index((1, 2, "slimctl")):
        errs.append("mode records enforce->permissive->enforce by slimctl missing: %r" % modes)
    pols = [r["digest"] for r in recs if r["type"] == "policy" and r["source"] == 1]
    if pols[-2:] != [v.get("policy_written"), v.get("policy_before")]:
        errs.append("written policies %r, want the scenario's then the default" % pols)
    rel = [r for r in recs if r["type"] == "relabel" and r["path"] == "/lab/evfile"]
    if len(rel) != 1 or rel[0]["old_label"] != "SYSTEM PUBLIC" or \
            rel[0]["new_label"] != "USER PUBLIC" or rel[0]["comm"] != "slimctl":
        errs.append("relabel of /lab/evfile: %r" % rel)
    dem = sorted((r["old_label"], r["new_label"], r["cause"], r.get("path"))
                 for r in recs if r["type"] == "demotion" and r["comm"] == "evdaemon"
                 and r["exe"] == "/lab/evdaemon")
    want_dem = sorted([
        ("SYSTEM PUBLIC", "UNTRUSTED PUBLIC", 1, "/lab/untrusted"),
        ("SYSTEM PUBLIC", "UNTRUSTED PUBLIC", 2, None),
        ("SYSTEM PUBLIC", "USER PUBLIC", 1, "/lab/user"),
        ("SYSTEM PUBLIC", "SYSTEM SYSTEM_SENSITIVE", 1, "/lab/secret"),
    ], key=lambda t: (t[0], t[1], t[2], t[3] or ""))
    dem.sort(key=lambda t: (t[0], t[1], t[2], t[3] or ""))
    if dem != want_dem:
        errs.append("demotions of /lab/evdaemon: %r, want %r" % (dem, want_dem))
    low = [r for r in recs if r["type"] == "demotion" and not r["old_label"].startswith("SYSTEM ")]
    if low:
        errs.append("%d demotion records of tasks that were not SYSTEM, e.g. %r" % (len(low), low[0]))
    return errs


def check_limit(recs, v):
    errs = []
    loads = [i for i, r in enumerate(recs) if r["type"] == "load"]
    if not loads:
        return ["no load record"]
    recs = recs[loads[-1]:]
    lim = [r for r in recs if r["type"] in ("relabel", "demotion", "dropped")]
    dem = [r for r in lim if r["type"] == "demotion"]
    drop = [r for r in lim if r["type"] == "dropped"]
    n = int(v.get("limit_demotions", "-1"))
    c = int(v.get("limit_counter_dropped", "-1"))
    if len(dem) + c != n:
        errs.append("%d demotion records + %d counted as dropped != %d demotions caused" %
                    (len(dem), c, n))
    if len(dem) != 2:
        errs.append("%d demotion records, want the burst (events_burst=2, events_rate=0)" %
                    len(dem))
    if len(lim) != 4:
        errs.append("%d relabel/demotion/dropped records, want events_max=4" % len(lim))
    finals = [r for r in drop if r["final"] == 1]
    if len(finals) != 1 or not lim or lim[-1] is not finals[0]:
        errs.append("the cap did not end with one final dropped record: %r" % drop)
    if not any(r["final"] == 0 for r in drop):
        errs.append("no dropped record reported the rate limit before the cap")
    s = sum(r["count"] for r in drop)
    if s < 1 or s > c:
        errs.append("dropped records count %d, events_dropped is %d" % (s, c))
    return errs


def main(argv):
    if len(argv) != 4 or argv[1] not in ("events", "limit"):
        print(__doc__)
        return 2
    try:
        recs = imalist.event_records(argv[2])
    except (ValueError, KeyError, IndexError) as e:
        print("malformed records: %s" % e)
        return 1
    v = vals(argv[3])
    errs = (check_events if argv[1] == "events" else check_limit)(recs, v)
    for e in errs:
        print(e)
    print("%d records, %d problems" % (len(recs), len(errs)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
