#!/usr/bin/env python3
"""imalist.py - host-side reader of slim.ko's lists, for the VM tests.

    imalist.py LIST --pcr 11 [--gap-optional] --expect sha1=HEX --expect sha256=HEX
    imalist.py events LIST

The first form parses the binary list (ima-ng entries and ima-buf event
records), checks every template digest, replays it from the values in the
first entry's gap record (kernel/README.md, "The gap entry"; from zero
with --gap-optional when there is none) and compares with the expected
PCR values. Exit 0 when they match, 1 when not, 2 on
malformed input.

The second decodes every slim_event record (docs/lattice-events.md) and
prints one JSON object per record: {"index", "seq", "time", "type", and
its fields by name}; it checks the record's d-ng digest, its layout and
that seq counts up by one from each load record, and exits 2 on any
violation. This is an independent reader of the documented formats;
libattest's verifier is the product's reader.
"""
import json
import hashlib
import struct
import sys


def entries(blob):
    off = 0
    while off < len(blob):
        pcr, = struct.unpack_from("<I", blob, off)
        tdig = blob[off + 4:off + 24]
        nlen, = struct.unpack_from("<I", blob, off + 24)
        tname = blob[off + 28:off + 28 + nlen]
        off += 28 + nlen
        dlen, = struct.unpack_from("<I", blob, off)
        data = blob[off + 4:off + 4 + dlen]
        if len(data) != dlen:
            raise ValueError("truncated entry")
        off += 4 + dlen
        fields = []
        p = 0
        while p < len(data):
            flen, = struct.unpack_from("<I", data, p)
            fields.append(data[p + 4:p + 4 + flen])
            p += 4 + flen
        yield pcr, tdig, tname, data, fields


EV_TYPES = {1: "load", 2: "mode", 3: "policy", 4: "evm_key", 5: "relabel",
            6: "demotion", 7: "dropped", 8: "refused"}
EV_TAGS = {1: ("version", "s"), 2: ("mode", 1), 3: ("old_mode", 1),
           4: ("pcr", 1), 5: ("lock", 1), 6: ("evm_demote", 1),
           7: ("default_label", "s"), 8: ("digest", "x"), 9: ("pid", 4),
           10: ("comm", "s"), 11: ("exe", "s"), 12: ("old_label", "s"),
           13: ("new_label", "s"), 14: ("path", "s"), 15: ("cause", 1),
           16: ("count", 8), 17: ("source", 1), 18: ("final", 1),
           19: ("action", "s"), 20: ("label", "s")}
EV_REQUIRED = {
    "load": ["version", "mode", "pcr", "lock", "evm_demote", "default_label"],
    "mode": ["old_mode", "mode", "pid", "comm"],
    "policy": ["digest", "source", "pid", "comm"],
    "evm_key": ["pid", "comm"],
    "relabel": ["path", "old_label", "new_label", "pid", "comm"],
    "demotion": ["pid", "comm", "exe", "old_label", "new_label", "cause"],
    "dropped": ["count", "final"],
    "refused": ["pid", "comm", "exe", "label", "action", "mode"],
}


def decode_event(buf):
    if len(buf) < 24 or buf[:4] != b"SLEV" or buf[4] != 1:
        raise ValueError("not a version 1 slim_event record")
    if buf[6:8] != b"\0\0":
        raise ValueError("reserved bytes set")
    typ = EV_TYPES.get(buf[5])
    if typ is None:
        raise ValueError("unknown type %d" % buf[5])
    seq, t = struct.unpack_from("<QQ", buf, 8)
    ev = {"seq": seq, "time": t, "type": typ}
    p = 24
    while p < len(buf):
        tag, ln = struct.unpack_from("<HH", buf, p)
        val = buf[p + 4:p + 4 + ln]
        if len(val) != ln:
            raise ValueError("field %d runs past the record" % tag)
        p += 4 + ln
        name, kind = EV_TAGS.get(tag, (None, None))
        if name is None:
            continue
        if name in ev:
            raise ValueError("field %s twice" % name)
        if kind == "s":
            if b"\0" in val:
                raise ValueError("NUL in %s" % name)
            ev[name] = val.decode("utf-8", "replace")
        elif kind == "x":
            if ln != 32:
                raise ValueError("digest of %d bytes" % ln)
            ev[name] = val.hex()
        else:
            if ln != kind:
                raise ValueError("%s of %d bytes" % (name, ln))
            ev[name] = int.from_bytes(val, "little")
    for f in EV_REQUIRED[typ]:
        if f not in ev:
            raise ValueError("%s record without %s" % (typ, f))
    if typ == "demotion" and ev["cause"] == 1 and "path" not in ev:
        raise ValueError("demotion by a file without its path")
    return ev


def event_records(path):
    """The decoded slim_event records of the list at path, checked."""
    blob = open(path, "rb").read()
    out = []
    want = None
    for n, (pcr, tdig, tname, data, fields) in enumerate(entries(blob)):
        if tname != b"ima-buf":
            continue
        if len(fields) != 3 or fields[1] != b"slim_event\0":
            raise ValueError("entry %d: ima-buf but not a slim_event" % n)
        if fields[0] != b"sha256:\0" + hashlib.sha256(fields[2]).digest():
            raise ValueError("entry %d: d-ng is not the record's sha256" % n)
        if hashlib.sha1(data).digest() != tdig:
            raise ValueError("entry %d: template digest mismatch" % n)
        ev = decode_event(fields[2])
        if ev["type"] == "load":
            if ev["seq"] != 0:
                raise ValueError("entry %d: load record with seq %d" % (n, ev["seq"]))
        elif ev["seq"] != want:
            raise ValueError("entry %d: seq %d, want %s" % (n, ev["seq"], want))
        want = ev["seq"] + 1
        ev["index"] = n
        out.append(ev)
    return out


def events(path):
    for ev in event_records(path):
        print(json.dumps(ev, sort_keys=True))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "events":
        return events(argv[2])
    path = argv[1]
    pcr_idx = 11
    expect = {}
    gap_optional = False
    i = 2
    while i < len(argv):
        if argv[i] == "--gap-optional":
            gap_optional = True
            i += 1
            continue
        if argv[i] == "--pcr":
            pcr_idx = int(argv[i + 1])
        elif argv[i] == "--expect":
            algo, val = argv[i + 1].split("=", 1)
            expect[algo] = val.lower()
        i += 2
    blob = open(path, "rb").read()
    banks = {a: bytes(hashlib.new(a).digest_size) for a in expect}
    n = 0
    gap = False
    for pcr, tdig, tname, data, fields in entries(blob):
        if not ((tname == b"ima-ng" and len(fields) == 2) or
                (tname == b"ima-buf" and len(fields) == 3)):
            print("entry %d: neither ima-ng nor ima-buf" % n)
            return 2
        name = fields[1].rstrip(b"\0").decode("utf-8", "replace")
        if n == 0 and name.startswith("slim_gap"):
            gap = True
            for tok in name.split()[1:]:
                algo, hexval = tok.split(":", 1)
                if algo in banks:
                    banks[algo] = bytes.fromhex(hexval)
            algo = fields[0].split(b":")[0].decode()
            if fields[0][len(algo) + 2:] != banks.get(algo, fields[0][len(algo) + 2:]):
                print("gap record: d-ng value differs from the %s bank" % algo)
                return 1
        violation = tdig == bytes(20)
        if not violation and hashlib.sha1(data).digest() != tdig:
            print("entry %d (%s): template digest mismatch" % (n, name))
            return 1
        if pcr == pcr_idx:
            for algo in banks:
                h = hashlib.new(algo)
                d = b"\xff" * h.digest_size if violation else hashlib.new(algo, data).digest()
                banks[algo] = hashlib.new(algo, banks[algo] + d).digest()
        n += 1
    if not gap and not gap_optional:
        print("the list does not start with a gap record")
        return 1
    ok = True
    for algo, want in expect.items():
        got = banks[algo].hex()
        print("%s: replay %s, PCR %s (%d entries)" % (algo, got, want, n))
        ok = ok and got == want
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (ValueError, struct.error, IndexError) as e:
        print("malformed list: %s" % e)
        sys.exit(2)
