#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""make-slim-seeds.py - writes the seed corpus of fuzz_slim_event
(tests/fuzz/corpus/slim_event/): sequences of slim.ko lattice records built
from docs/lattice-events.md, and slim_gap names. Deterministic; rerun after
a format change and commit the result.

    python3 tests/fuzz/corpus/make-slim-seeds.py
"""
import hashlib
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "slim_event")

TAG = dict(version=1, mode=2, old_mode=3, pcr=4, lock=5, evm_demote=6,
           default_label=7, digest=8, pid=9, comm=10, exe=11, old_label=12,
           new_label=13, path=14, cause=15, count=16, source=17, final=18)
U8 = {"mode", "old_mode", "pcr", "lock", "evm_demote", "cause", "source", "final"}


def record(rtype, seq, **fields):
    out = b"SLEV" + struct.pack("<BBHQQ", 1, rtype, 0, seq, 1700000000)
    for name, v in fields.items():
        if name in U8:
            b = struct.pack("<B", v)
        elif name == "pid":
            b = struct.pack("<I", v)
        elif name == "count":
            b = struct.pack("<Q", v)
        elif isinstance(v, bytes):
            b = v
        else:
            b = v.encode()
        out += struct.pack("<HH", TAG[name], len(b)) + b
    return out


def seq_input(recs):
    return b"\0" + b"".join(struct.pack("<H", len(r)) + r for r in recs)


def main():
    os.makedirs(OUT, exist_ok=True)
    load = lambda mode: record(1, 0, version="0.2", mode=mode, pcr=11, lock=1,
                               evm_demote=0, default_label="SYSTEM PUBLIC")
    pol = record(3, 1, digest=hashlib.sha256(b"rules").digest(), source=0,
                 pid=0, comm="insmod")
    seeds = {
        "load-only": [load(2)],
        "full": [
            load(1), pol,
            record(2, 2, old_mode=1, mode=2, pid=77, comm="sh"),
            record(4, 3, pid=1, comm="init"),
            record(5, 4, path="/opt/input/x", old_label="SYSTEM PUBLIC",
                   new_label="UNTRUSTED PUBLIC", pid=1, comm="init"),
            record(6, 5, pid=42, comm="cat", exe="/bin/cat",
                   old_label="SYSTEM PUBLIC", new_label="UNTRUSTED PUBLIC",
                   cause=1, path="/srv/in/f"),
            record(6, 6, pid=43, comm="sshd", exe="/usr/sbin/sshd",
                   old_label="SYSTEM PUBLIC", new_label="UNTRUSTED PUBLIC",
                   cause=2),
            record(7, 7, count=12, final=0),
            record(7, 8, count=1, final=1),
        ],
        "mode-leaves": [load(2), pol,
                        record(2, 2, old_mode=2, mode=1, pid=9, comm="sh")],
        "bad-seq": [load(2), record(4, 5, pid=1, comm="init")],
        # causes 3 to 7 (process, pipe, unix, shm, msg: no path), then an
        # unknown cause 8
        "ipc-causes": [load(2), pol] + [
            record(6, 2 + i, pid=50 + i, comm="svc", exe="/usr/sbin/svc",
                   old_label="SYSTEM PUBLIC", new_label="UNTRUSTED PUBLIC",
                   cause=c)
            for i, c in enumerate((3, 4, 5, 6, 7))
        ] + [record(6, 7, pid=60, comm="svc", exe="/usr/sbin/svc",
                    old_label="SYSTEM PUBLIC", new_label="UNTRUSTED PUBLIC",
                    cause=8)],
    }
    for name, recs in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(seq_input(recs))
    h = hashlib.sha256(b"before").hexdigest()
    s = hashlib.sha1(b"before").hexdigest()
    for name, text in {
        "gap": "slim_gap sha1:%s sha256:%s" % (s, "0" * 64),
        "gap-unknown-bank": "slim_gap tpm_alg_0012:%s sha256:%s" % (h, "0" * 64),
        "gap-bad": "slim_gap sha256:%s" % h[:10],
    }.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(b"\1" + text.encode())


main()
