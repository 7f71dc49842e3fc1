#!/usr/bin/env python3
"""imalist.py - host-side check of a slim list that starts with a gap record.

    imalist.py LIST --pcr 11 --expect sha1=HEX --expect sha256=HEX

Parses the binary ima-ng list, checks every template digest, replays it
from the values in the first entry's gap record (kernel/README.md, "The gap
entry") and compares with the expected PCR values. Exit 0 when they match,
1 when not, 2 on malformed input. This is an independent reader of the
documented format; libattest's verifier is the product's reader.
"""
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


def main(argv):
    path = argv[1]
    pcr_idx = 11
    expect = {}
    i = 2
    while i < len(argv):
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
        if tname != b"ima-ng" or len(fields) != 2:
            print("entry %d: not ima-ng" % n)
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
    if not gap:
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
