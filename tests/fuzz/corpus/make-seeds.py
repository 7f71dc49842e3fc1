#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""make-seeds.py - writes the seed corpora of fuzz_rest and fuzz_ek_cert and
the fixtures header both targets are built with (tests/fuzz/fuzz_fixtures.h).

    python3 tests/fuzz/corpus/make-seeds.py [--swtpm]

Everything is made here with python3-cryptography: a throwaway EK CA (root,
EC P-256, and an RSA intermediate; only the root's certificate goes into
the header, no private key is kept anywhere), RSA and ECC EK certificates
with their TPM2B_PUBLIC areas, an ECDSA AK whose quote over the fixture
nonce is in the evidence seeds, IMA lists (ima on PCR 10, slim on PCR 11)
that replay to the quoted PCRs, and the whitelist that judges them trusted.
Keys are new on every run: commit the header, both corpora and the two
regression inputs it writes (regressions/rest/enroll-ek-*) together.

--swtpm also runs swtpm_setup --create-ek-cert (swtpm-localca) in a
temporary directory and adds its two real EK certificates to the ek_cert
seeds (they do not chain to the fuzz CA: parsing and the profile checks
only).

The rest seed format is documented at the top of tests/fuzz/fuzz_rest.c.
"""
import base64
import datetime
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import \
    decode_dss_signature
from cryptography.x509.oid import NameOID, ObjectIdentifier, ExtendedKeyUsageOID

HERE = os.path.dirname(os.path.abspath(__file__))
FUZZ = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(FUZZ))

# --- fixtures shared with fuzz_rest.c (through fuzz_fixtures.h) ---
FZ_NONCE = bytes(range(0x40, 0x60))  # the fixture nonce of fz-agent
FZ_NONCE_OLD = bytes(range(0x60, 0x80))  # expired
FZ_NONCE_OTHER = bytes(range(0x80, 0xa0))  # issued to fz-untrusted
FZ_TOKEN = "fz-token-0123456789abcdef"
FZ_TOKEN_OLD = "fz-token-expired"
FZ_SECRET = bytes([0x5e] * 32)  # fz-enrolling's pending credential secret
SEL_MASK = 0xfff  # sha256 PCRs 0-9 (boot) + 10 (ima) + 11 (slim)
TCG_KP_EK = ObjectIdentifier("2.23.133.8.1")
POLICY_A = bytes.fromhex(
    "837197674484b3f81a90cc8d46a5d724fd52d76e06520b64f2a1da1b331469aa")

# methods, routes and peers: indexes into fuzz_rest.c's tables; the byte
# written is '0' + index (48 is a multiple of 6, 8 and 16)
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"]
ROUTES = ["/healthz", "/metrics", "/v1/whitelists", "/v1/whitelists/fz-wl",
          "/v1/agents", "/v1/agents/fz-agent",
          "/v1/agents/fz-agent/whitelist", "/v1/enrollment/tokens",
          "/v1/enroll", "/v1/enroll/activate", "/v1/attestation/challenge",
          "/v1/attestation/evidence", "/v1/fleet", "/v1/check", "/v1/", ""]
PEERS = ["none", "admin", "fz-agent", "fz-agent-stale-cert", "fz-enrolling",
         "fz-untrusted", "fz-ghost", "fz-stale"]
SEP = b"\n@@\n"


def u8(v):
    return struct.pack(">B", v)


def u16(v):
    return struct.pack(">H", v)


def u32(v):
    return struct.pack(">I", v)


def u64(v):
    return struct.pack(">Q", v)


def tpm2b(b):
    return u16(len(b)) + b


def b64(b):
    return base64.b64encode(b).decode()


def ibytes(n, size):
    return n.to_bytes(size, "big")


# --- TPM structures ---
def ak_public_ecc(key):
    """TPM2B_PUBLIC of a restricted ECDSA-SHA256 signing key (like swtpm's)."""
    nums = key.public_key().public_numbers()
    t = (u16(0x0023) + u16(0x000b) + u32(0x00050072) + tpm2b(b"") +
         u16(0x0010) + u16(0x0018) + u16(0x000b) + u16(0x0003) +
         u16(0x0010) + tpm2b(ibytes(nums.x, 32)) + tpm2b(ibytes(nums.y, 32)))
    return tpm2b(t), u16(0x000b) + hashlib.sha256(t).digest()


def ek_public_rsa(pub, bits=2048):
    """TPM2B_PUBLIC of the TCG default RSA EK (template L-1)."""
    n = pub.public_numbers().n
    t = (u16(0x0001) + u16(0x000b) + u32(0x000300b2) + tpm2b(POLICY_A) +
         u16(0x0006) + u16(0x0080) + u16(0x0043) + u16(0x0010) + u16(bits) +
         u32(0) + tpm2b(ibytes(n, bits // 8)))
    return tpm2b(t)


def ek_public_ecc(pub):
    """TPM2B_PUBLIC of an ECC EK (template L-2 on P-256, H-3 on P-384)."""
    nums = pub.public_numbers()
    if pub.curve.name == "secp384r1":
        size, curve, name_alg, sym = 48, 0x0004, 0x000c, 0x0100
        policy = hashlib.sha384(b"policy B (placeholder)").digest()
        attrs = 0x000300f2
    else:
        size, curve, name_alg, sym = 32, 0x0003, 0x000b, 0x0080
        policy, attrs = POLICY_A, 0x000300b2
    t = (u16(0x0023) + u16(name_alg) + u32(attrs) + tpm2b(policy) +
         u16(0x0006) + u16(sym) + u16(0x0043) + u16(0x0010) + u16(curve) +
         u16(0x0010) + tpm2b(ibytes(nums.x, size)) +
         tpm2b(ibytes(nums.y, size)))
    return tpm2b(t)


def quote(ak, ak_name, nonce, pcrs, clock=123456, resets=3, restarts=0):
    """TPMS_ATTEST (quote of sha256 PCRs in SEL_MASK) and its signature."""
    sel = bytes([SEL_MASK & 0xff, (SEL_MASK >> 8) & 0xff,
                 (SEL_MASK >> 16) & 0xff])
    digest = hashlib.sha256(b"".join(
        pcrs[i] for i in range(24) if SEL_MASK & (1 << i))).digest()
    attest = (u32(0xff544347) + u16(0x8018) + tpm2b(ak_name) +
              tpm2b(nonce) + u64(clock) + u32(resets) + u32(restarts) +
              u8(1) + u64(0x2019102300163636) + u32(1) + u16(0x000b) +
              u8(3) + sel + tpm2b(digest))
    r, s = decode_dss_signature(ak.sign(attest, ec.ECDSA(hashes.SHA256())))
    sig = (u16(0x0018) + u16(0x000b) + tpm2b(ibytes(r, 32)) +
           tpm2b(ibytes(s, 32)))
    return attest, sig


# --- IMA lists (binary_runtime_measurements, ima-ng) ---
def ima_entry(pcr, digest, path):
    d = b"sha256:\0" + digest
    p = (path if isinstance(path, bytes) else path.encode()) + b"\0"
    td = struct.pack("<I", len(d)) + d + struct.pack("<I", len(p)) + p
    name = b"ima-ng"
    raw = (struct.pack("<I", pcr) + hashlib.sha1(td).digest() +
           struct.pack("<I", len(name)) + name + struct.pack("<I", len(td)) +
           td)
    return raw, hashlib.sha256(td).digest()


def extend(pcr, d):
    return hashlib.sha256(pcr + d).digest()


def ima_list(pcr, boot, files):
    out, value = b"", bytes(32)
    if boot is not None:
        raw, t = ima_entry(pcr, boot, "boot_aggregate")
        out += raw
        value = extend(value, t)
    for path, digest in files:
        raw, t = ima_entry(pcr, digest, path)
        out += raw
        value = extend(value, t)
    return out, value


# --- X.509 ---
NOT_BEFORE = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
FOREVER = datetime.datetime(9999, 12, 31, 23, 59, 59,
                            tzinfo=datetime.timezone.utc)


def name(cn, org=None):
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    if org:
        attrs.insert(0, x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(attrs)


def ca_cert(key, subject, issuer=None, issuer_key=None, serial=1):
    issuer = issuer or subject
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
         .public_key(key.public_key()).serial_number(serial)
         .not_valid_before(NOT_BEFORE).not_valid_after(FOREVER)
         .add_extension(x509.BasicConstraints(ca=True, path_length=None),
                        critical=True)
         .add_extension(x509.KeyUsage(False, False, False, False, False,
                                      True, True, False, False),
                        critical=True))
    return b.sign(issuer_key or key, hashes.SHA256())


def ek_cert(pub, issuer_cert, issuer_key, serial, eku=(TCG_KP_EK,),
            ca=False, not_after=FOREVER, rsa_key=True, san=True):
    b = (x509.CertificateBuilder().subject_name(x509.Name([]))
         .issuer_name(issuer_cert.subject).public_key(pub)
         .serial_number(serial).not_valid_before(NOT_BEFORE)
         .not_valid_after(not_after)
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None),
                        critical=True))
    if san:
        b = b.add_extension(x509.SubjectAlternativeName([x509.DirectoryName(
            x509.Name([
                x509.NameAttribute(ObjectIdentifier("2.23.133.2.1"),
                                   "id:00001014"),
                x509.NameAttribute(ObjectIdentifier("2.23.133.2.2"),
                                   "fuzz"),
                x509.NameAttribute(ObjectIdentifier("2.23.133.2.3"),
                                   "id:20240101")]))]), critical=True)
    if eku is not None:
        b = b.add_extension(x509.ExtendedKeyUsage(list(eku)), critical=False)
    b = b.add_extension(x509.KeyUsage(False, False, rsa_key, False,
                                      not rsa_key, ca, False, False, False),
                        critical=True)
    return b.sign(issuer_key, hashes.SHA256())


def der(c):
    return c.public_bytes(serialization.Encoding.DER)


# --- C header ---
def c_bytes(name_, data):
    lines = []
    for i in range(0, len(data), 12):
        lines.append("\t" + " ".join("0x%02x," % x for x in data[i:i + 12]))
    return ("static const unsigned char %s[%d] = {\n%s\n};\n" %
            (name_, len(data), "\n".join(lines)))


def c_string(name_, s):
    body = "".join("\t\"%s\\n\"\n" % line.replace("\\", "\\\\")
                   .replace("\"", "\\\"") for line in s.rstrip("\n")
                   .split("\n"))
    return "static const char %s[] =\n%s\t;\n" % (name_, body.rstrip("\n"))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def req(method, route, peer, tail="", body=b""):
    if isinstance(body, (dict, list)):
        body = json.dumps(body, separators=(",", ":"))
    if isinstance(body, str):
        body = body.encode()
    return (bytes([48 + METHODS.index(method), 48 + ROUTES.index(route),
                   48 + PEERS.index(peer)]) + tail.encode() + b"\n" + body)


def seq(*reqs):
    return SEP.join(reqs)


def swtpm_certs():
    d = tempfile.mkdtemp(prefix="fz-swtpm.")
    try:
        os.mkdir(os.path.join(d, "certs"))
        subprocess.run(["swtpm_setup", "--tpm2", "--tpmstate", d,
                        "--create-ek-cert", "--pcr-banks", "sha256",
                        "--write-ek-cert-files", os.path.join(d, "certs"),
                        "--overwrite", "--logfile",
                        os.path.join(d, "setup.log")], check=True,
                       stdout=subprocess.DEVNULL)
        out = {}
        for f in sorted(os.listdir(os.path.join(d, "certs"))):
            with open(os.path.join(d, "certs", f), "rb") as fh:
                out[f] = fh.read()
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    use_swtpm = "--swtpm" in sys.argv[1:]
    rest = os.path.join(HERE, "rest")
    ekd = os.path.join(HERE, "ek_cert")
    for d in (rest, ekd):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

    # EK PKI: root (EC P-256) -> intermediate (RSA 2048) -> RSA EK;
    # root -> ECC EK directly.
    root_key = ec.generate_private_key(ec.SECP256R1())
    root = ca_cert(root_key, name("attest fuzz EK root CA", "attest fuzz"))
    mid_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    mid = ca_cert(mid_key, name("attest fuzz EK issuing CA", "attest fuzz"),
                  root.subject, root_key, serial=2)
    ek_rsa_key = rsa.generate_private_key(public_exponent=65537,
                                          key_size=2048)
    ek_rsa = ek_cert(ek_rsa_key.public_key(), mid, mid_key, 10)
    ek_rsa_pub = ek_public_rsa(ek_rsa_key.public_key())
    ek_ecc_key = ec.generate_private_key(ec.SECP256R1())
    ek_ecc = ek_cert(ek_ecc_key.public_key(), root, root_key, 11,
                     rsa_key=False)
    ek_ecc_pub = ek_public_ecc(ek_ecc_key.public_key())

    # the AK of fz-agent (and fz-enrolling, fz-untrusted)
    ak_key = ec.generate_private_key(ec.SECP256R1())
    ak_pub, ak_name = ak_public_ecc(ak_key)
    other_ak_key = ec.generate_private_key(ec.SECP256R1())
    other_ak_pub, _ = ak_public_ecc(other_ak_key)

    # PCRs 0-9, the lists and the whitelist
    pcrs = [hashlib.sha256(b"fuzz boot pcr %d" % i).digest()
            for i in range(10)] + [bytes(32)] * 14
    boot = hashlib.sha256(b"".join(pcrs[:10])).digest()
    files = [("/usr/bin/fz-a", hashlib.sha256(b"a").digest()),
             ("/usr/lib/fz/libfz.so", hashlib.sha256(b"b").digest()),
             ("/etc/fz.conf", hashlib.sha256(b"c").digest())]
    ima, pcrs[10] = ima_list(10, boot, files)
    slim, pcrs[11] = ima_list(11, None, files[:2])
    bad_ima, _ = ima_list(10, boot, files + [(
        "/root/unknown-tool", hashlib.sha256(b"evil").digest())])
    wl = {"meta": {"version": 1, "generator": "make-seeds.py"},
          "digests": {p: [d.hex()] for p, d in files},
          "ima-buf": {}, "ima": {"ignored_keyrings": []}}
    legacy = "".join("%s  %s\n" % (d.hex(), p) for p, d in files)
    keylime = {"meta": {"version": 1, "generator": 1}, "release": 0,
               "digests": {p: [d.hex()] for p, d in files},
               "excludes": ["/tmp/.*"], "keyrings": {},
               "ima": {"ignored_keyrings": [], "log_hash_alg": "sha1",
                       "dm_policy": None},
               "ima-buf": {}, "verification-keys": ""}
    pcr_json = {"sha256": {str(i): pcrs[i].hex() for i in range(12)}}

    attest, sig = quote(ak_key, ak_name, FZ_NONCE, pcrs)

    # --- the header ---
    wl_req = json.dumps({"whitelist": wl}, separators=(",", ":"))
    legacy_req = json.dumps({"legacy": legacy, "excludes": "^/tmp/\n"},
                            separators=(",", ":"))
    keylime_req = json.dumps({"whitelist": keylime}, separators=(",", ":"))
    h = ["/* SPDX-License-Identifier: Apache-2.0 */",
         "/*",
         " * fuzz_fixtures.h - written by tests/fuzz/corpus/make-seeds.py "
         "with the seed",
         " * corpora of fuzz_rest and fuzz_ek_cert (regenerate all three "
         "together):",
         " * the fuzz EK CA, fz-agent's AK (its quote over FZ_NONCE is in "
         "the",
         " * evidence seeds), the fixture whitelists and the PCR values the "
         "seeds",
         " * quote. Test data only.",
         " */",
         "#ifndef ATTEST_FUZZ_FIXTURES_H",
         "#define ATTEST_FUZZ_FIXTURES_H",
         "",
         "#define FZ_NONCE_HEX       \"%s\"" % FZ_NONCE.hex(),
         "#define FZ_NONCE_OLD_HEX   \"%s\"" % FZ_NONCE_OLD.hex(),
         "#define FZ_NONCE_OTHER_HEX \"%s\"" % FZ_NONCE_OTHER.hex(),
         "#define FZ_TOKEN           \"%s\"" % FZ_TOKEN,
         "#define FZ_TOKEN_OLD       \"%s\"" % FZ_TOKEN_OLD,
         "#define FZ_SECRET_BYTE     0x%02x" % FZ_SECRET[0],
         "#define FZ_SEL_JSON        \"{\\\"sha256\\\":%u}\"" % SEL_MASK,
         "#define FZ_LOGS            \"ima:10,slim:11\"",
         "",
         c_string("fz_ek_ca_pem",
                  root.public_bytes(serialization.Encoding.PEM).decode()),
         c_bytes("fz_ak_pub", ak_pub),
         c_bytes("fz_other_ak_pub", other_ak_pub),
         c_bytes("fz_pcr0", pcrs[0]),
         c_string("fz_wl_req", wl_req),
         c_string("fz_legacy_req", legacy_req),
         c_string("fz_keylime_req", keylime_req),
         "#endif", ""]
    write(os.path.join(FUZZ, "fuzz_fixtures.h"), "\n".join(h))

    # --- ek_cert seeds: DER EK certificate, intermediates, TPM2B_PUBLIC ---
    ek = {}
    ek["rsa-chain-ekpub"] = der(ek_rsa) + der(mid) + ek_rsa_pub
    ek["rsa-noint-ekpub"] = der(ek_rsa) + ek_rsa_pub
    ek["ecc-ekpub"] = der(ek_ecc) + ek_ecc_pub
    ek["ecc-nvpad"] = der(ek_ecc) + bytes(64)
    ek["ecc-trailing"] = der(ek_ecc) + b"\x01\x02"
    ek["ecc-mismatch"] = der(ek_ecc) + ek_rsa_pub
    ek["rsa-only"] = der(ek_rsa)
    ek["ecc-only"] = der(ek_ecc)
    k = ec.generate_private_key(ec.SECP256R1())
    ek["no-eku"] = der(ek_cert(k.public_key(), root, root_key, 20, eku=None,
                               rsa_key=False)) + ek_public_ecc(k.public_key())
    ek["server-eku"] = der(ek_cert(
        k.public_key(), root, root_key, 21,
        eku=(ExtendedKeyUsageOID.SERVER_AUTH,), rsa_key=False))
    ek["ca-as-ek"] = der(ek_cert(k.public_key(), root, root_key, 22, ca=True,
                                 rsa_key=False))
    ek["expired"] = der(ek_cert(
        k.public_key(), root, root_key, 23, rsa_key=False,
        not_after=datetime.datetime(2021, 1, 1,
                                    tzinfo=datetime.timezone.utc)))
    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    ek["weak-rsa1024"] = der(ek_cert(weak.public_key(), mid, mid_key, 24)) + \
        der(mid) + ek_public_rsa(weak.public_key(), 1024)
    weak_ec = ec.generate_private_key(ec.SECP224R1())
    ek["weak-p224"] = der(ek_cert(weak_ec.public_key(), root, root_key, 25,
                                  rsa_key=False))
    selfk = ec.generate_private_key(ec.SECP256R1())
    ek["self-signed"] = der(ca_cert(selfk, name("self")))
    bad = bytearray(der(ek_ecc))
    bad[-5] ^= 0x55
    ek["bad-signature"] = bytes(bad) + ek_ecc_pub
    ek["truncated"] = der(ek_rsa)[:300]
    ek["unknown-ca"] = der(ek_cert(ek_rsa_key.public_key(), ca_cert(
        selfk, name("other CA")), selfk, 26)) + ek_rsa_pub
    ek["no-san"] = der(ek_cert(k.public_key(), root, root_key, 27,
                               rsa_key=False, san=False))
    if use_swtpm:
        for f, data in swtpm_certs().items():
            c = x509.load_der_x509_certificate(data)
            pub = c.public_key()
            tp = (ek_public_rsa(pub) if isinstance(pub, rsa.RSAPublicKey)
                  else ek_public_ecc(pub))
            ek["swtpm-" + f.replace(".crt", "")] = data + tp
    for n, data in ek.items():
        write(os.path.join(ekd, n), data)

    # --- rest seeds ---
    R = {}
    R["healthz"] = req("GET", "/healthz", "none")
    R["healthz-post"] = req("POST", "/healthz", "admin", body="{}")
    R["metrics"] = req("GET", "/metrics", "admin")
    R["metrics-anonymous"] = req("GET", "/metrics", "none")
    R["not-found"] = seq(req("GET", "", "admin", "/v2/x"),
                         req("GET", "/v1/", "admin", "../etc"),
                         req("GET", "/v1/whitelists", "admin", "/a/b"),
                         req("GET", "/v1/", "admin", "agents/"),
                         req("GET", "/v1/", "admin", "a/b/c/d"))
    # whitelists
    R["wl-list"] = req("GET", "/v1/whitelists", "admin")
    R["wl-create-json"] = seq(
        req("POST", "/v1/whitelists", "admin",
            body={"name": "new", "whitelist": wl}),
        req("GET", "/v1/whitelists", "admin", "/new"),
        req("PUT", "/v1/whitelists", "admin", "/new",
            body={"whitelist": keylime, "expected_version": 1}),
        req("GET", "/v1/whitelists", "admin", "/new?version=1"),
        req("DELETE", "/v1/whitelists", "admin", "/new"))
    R["wl-create-legacy"] = req(
        "POST", "/v1/whitelists", "admin",
        body={"name": "leg", "legacy": legacy, "excludes": "^/tmp/\n"})
    R["wl-create-keylime"] = req("POST", "/v1/whitelists", "admin",
                                 body={"name": "kl", "whitelist": keylime})
    R["wl-get"] = seq(req("GET", "/v1/whitelists/fz-wl", "admin"),
                      req("GET", "/v1/whitelists/fz-wl", "admin",
                          "?version=2"),
                      req("GET", "/v1/whitelists", "admin", "/fz-legacy"),
                      req("GET", "/v1/whitelists", "admin", "/fz-keylime"))
    R["wl-get-bad-version"] = req("GET", "/v1/whitelists/fz-wl", "admin",
                                  "?version=abc")
    R["wl-put-conflict"] = req("PUT", "/v1/whitelists/fz-wl", "admin",
                               body={"whitelist": wl, "expected_version": 1})
    R["wl-put-legacy"] = req("PUT", "/v1/whitelists", "admin", "/fz-legacy",
                             body={"legacy": legacy})
    R["wl-delete"] = seq(req("DELETE", "/v1/whitelists/fz-wl", "admin"),
                         req("DELETE", "/v1/whitelists", "admin",
                             "/fz-keylime"),
                         req("GET", "/v1/whitelists", "admin"))
    R["wl-anonymous"] = seq(req("GET", "/v1/whitelists", "none"),
                            req("POST", "/v1/whitelists", "fz-agent",
                                body={"name": "x", "whitelist": {}}))
    wl_errors = [
        '{"name":1,"whitelist":{}}', '{"name":"a/b","whitelist":{}}',
        '{"name":"ok","extra":true,"whitelist":{}}',
        '{"name":"ok","whitelist":[]}', '{"name":"ok"}',
        '{"name":"ok","whitelist":{},"legacy":""}',
        '{"name":"x","name":"y","whitelist":{}}',
        '{"name":"h","whitelist":{"excludes":["("]}}',
        '{"name":"ok","whitelist":{},"expected_version":1}', '[1,2]', '',
        '{"name":"ok","whitelist":{"digests":{"/bin/sh":["zz"]}}}']
    R["wl-errors"] = seq(*[req("POST", "/v1/whitelists", "admin", body=b)
                           for b in wl_errors])
    # agents
    R["agents-list"] = req("GET", "/v1/agents", "admin")
    R["agent-get"] = seq(req("GET", "/v1/agents/fz-agent", "admin"),
                         req("GET", "/v1/agents", "admin", "/fz-untrusted"),
                         req("GET", "/v1/agents", "admin", "/fz-stale"),
                         req("GET", "/v1/agents", "admin", "/fz-ghost"))
    R["agent-delete"] = seq(req("DELETE", "/v1/agents/fz-agent", "admin"),
                            req("DELETE", "/v1/whitelists/fz-wl", "admin"),
                            req("GET", "/v1/fleet", "admin"))
    R["agent-assign"] = seq(
        req("PUT", "/v1/agents/fz-agent/whitelist", "admin",
            body={"name": "fz-legacy", "version": 1}),
        req("PUT", "/v1/agents", "admin", "/fz-stale/whitelist",
            body={"name": "fz-keylime"}),
        req("GET", "/v1/agents/fz-agent", "admin"))
    R["agent-assign-errors"] = seq(*[
        req("PUT", "/v1/agents/fz-agent/whitelist", "admin", body=b)
        for b in ['{"name":"nope"}', '{"name":"fz-wl","version":"1"}',
                  '{"name":"fz-wl","colour":1}', '{"name":"fz-wl",'
                  '"version":99}', '{"name":"fz-wl","version":-1}']])
    # enrollment
    R["tokens"] = seq(req("POST", "/v1/enrollment/tokens", "admin",
                          body={"ttl": 600}),
                      req("POST", "/v1/enrollment/tokens", "admin"),
                      req("POST", "/v1/enrollment/tokens", "admin",
                          body={"ttl": -5}),
                      req("GET", "/v1/enrollment/tokens", "admin"))
    enroll_rsa = {"agent_id": "fz-new", "token": FZ_TOKEN,
                  "ek_public": b64(ek_rsa_pub), "ek_cert": b64(der(ek_rsa)),
                  "ek_chain": [b64(der(mid))], "ak_public": b64(ak_pub)}
    enroll_ecc = {"agent_id": "fz-new-ecc", "token": FZ_TOKEN,
                  "ek_public": b64(ek_ecc_pub), "ek_cert": b64(der(ek_ecc)),
                  "ak_public": b64(other_ak_pub)}
    R["enroll-rsa"] = seq(req("POST", "/v1/enroll", "none", body=enroll_rsa),
                          req("GET", "/v1/agents", "admin", "/fz-new"))
    R["enroll-ecc"] = req("POST", "/v1/enroll", "none", body=enroll_ecc)
    e = dict(enroll_rsa, agent_id="fz-agent")
    R["enroll-existing-other-ek"] = req("POST", "/v1/enroll", "none", body=e)
    e = dict(enroll_rsa, ek_chain=[])
    R["enroll-no-chain"] = req("POST", "/v1/enroll", "none", body=e)
    e = dict(enroll_ecc, ek_public=b64(ek_rsa_pub))
    R["enroll-mismatch"] = req("POST", "/v1/enroll", "none", body=e)
    e = dict(enroll_ecc, token=FZ_TOKEN_OLD)
    R["enroll-expired-token"] = req("POST", "/v1/enroll", "none", body=e)
    R["enroll-twice"] = seq(
        req("POST", "/v1/enroll", "none", body=enroll_ecc),
        req("POST", "/v1/enroll", "none",
            body=dict(enroll_ecc, agent_id="fz-other")))
    R["enroll-errors"] = seq(*[
        req("POST", "/v1/enroll", "none", body=b) for b in [
            '{"agent_id":"../x","token":"t","ek_public":"AAAA",'
            '"ek_cert":"AAAA","ak_public":"AAAA"}',
            '{"agent_id":"h","token":"t","ek_public":"!!",'
            '"ek_cert":"AAAA","ak_public":"AAAA"}',
            json.dumps(dict(enroll_rsa, ek_chain="x")),
            json.dumps(dict(enroll_rsa, ek_chain=["AAAA"])),
            json.dumps(dict(enroll_rsa, ak_public=b64(ek_rsa_pub))),
            '{}']])
    csr_key = ec.generate_private_key(ec.SECP256R1())
    csr = (x509.CertificateSigningRequestBuilder()
           .subject_name(name("fz-enrolling"))
           .sign(csr_key, hashes.SHA256())
           .public_bytes(serialization.Encoding.PEM).decode())
    act = {"agent_id": "fz-enrolling", "secret": b64(FZ_SECRET), "csr": csr}
    R["activate"] = seq(req("POST", "/v1/enroll/activate", "none", body=act),
                        req("GET", "/v1/agents/fz-agent", "admin",
                            "/../fz-enrolling"),
                        req("GET", "/v1/agents", "admin", "/fz-enrolling"))
    R["activate-wrong-secret"] = seq(
        req("POST", "/v1/enroll/activate", "none",
            body=dict(act, secret=b64(bytes(32)))),
        req("POST", "/v1/enroll/activate", "none", body=act))
    R["activate-bad-csr"] = req("POST", "/v1/enroll/activate", "none",
                                body=dict(act, csr="-----BEGIN CERTIFICATE "
                                          "REQUEST-----\nAAAA\n-----END "
                                          "CERTIFICATE REQUEST-----\n"))
    # attestation
    R["challenge"] = seq(req("POST", "/v1/attestation/challenge", "fz-agent",
                             body={"agent_id": "fz-agent"}),
                         req("POST", "/v1/attestation/challenge",
                             "fz-untrusted",
                             body={"agent_id": "fz-untrusted"}))
    R["challenge-errors"] = seq(*[
        req("POST", "/v1/attestation/challenge", p, body=b) for p, b in [
            ("fz-agent", '{"agent_id":1}'),
            ("fz-agent", '{"agent_id":"fz-agent","extra":1}'),
            ("fz-agent", '{"agent_id":"fz-untrusted"}'),
            ("fz-agent-stale-cert", '{"agent_id":"fz-agent"}'),
            ("fz-enrolling", '{"agent_id":"fz-enrolling"}'),
            ("fz-ghost", '{"agent_id":"fz-ghost"}'),
            ("none", '{"agent_id":"fz-agent"}'),
            ("fz-agent", '{"agent_id":"fz-agent","agent_id":"fz-agent"}')]])
    ev = {"agent_id": "fz-agent", "nonce": FZ_NONCE.hex(),
          "quote": b64(attest), "signature": b64(sig), "pcrs": pcr_json,
          "logs": [{"name": "ima", "start": 0, "entries": b64(ima)},
                   {"name": "slim", "start": 0, "entries": b64(slim)}]}
    R["evidence-trusted"] = seq(
        req("POST", "/v1/attestation/evidence", "fz-agent", body=ev),
        req("GET", "/v1/agents/fz-agent", "admin"),
        req("GET", "/v1/fleet", "admin"),
        req("POST", "/v1/attestation/challenge", "fz-agent",
            body={"agent_id": "fz-agent"}),
        req("GET", "/metrics", "admin"))
    # a host that ran files whose names are not UTF-8, or long: the
    # failures are in the quoted prefix, so they are reported
    pcrs2 = list(pcrs)
    odd = files + [(b"/tmp/\xff\xfe-not-utf8", hashlib.sha256(b"x").digest()),
                   ("/opt/" + "\u00e9" * 150, hashlib.sha256(b"y").digest())]
    ima2, pcrs2[10] = ima_list(10, boot, odd)
    attest2, sig2 = quote(ak_key, ak_name, FZ_NONCE, pcrs2)
    R["evidence-odd-paths"] = seq(
        req("POST", "/v1/attestation/evidence", "fz-agent",
            body=dict(ev, quote=b64(attest2), signature=b64(sig2),
                      pcrs={"sha256": {str(i): pcrs2[i].hex()
                                       for i in range(12)}},
                      logs=[{"name": "ima", "start": 0,
                             "entries": b64(ima2)},
                            ev["logs"][1]])),
        req("GET", "/v1/agents/fz-agent", "admin"),
        req("GET", "/v1/fleet", "admin"))
    R["evidence-untrusted-log"] = seq(
        req("POST", "/v1/attestation/evidence", "fz-agent",
            body=dict(ev, logs=[{"name": "ima", "start": 0,
                                 "entries": b64(bad_ima)}])),
        req("GET", "/v1/fleet", "admin"))
    uefi_path = os.path.join(HERE, "uefi_log", "agile-12")
    if os.path.exists(uefi_path):
        with open(uefi_path, "rb") as fh:
            R["evidence-uefi"] = req("POST", "/v1/attestation/evidence",
                                     "fz-agent",
                                     body=dict(ev, uefi_log=b64(fh.read())))
    R["evidence-no-wl"] = seq(
        req("DELETE", "/v1/agents", "admin", "/fz-stale"),
        req("PUT", "/v1/agents/fz-agent/whitelist", "admin",
            body={"name": "fz-wl", "version": 1}),
        req("POST", "/v1/attestation/evidence", "fz-agent",
            body=dict(ev, logs=[{"name": "ima", "start": 3,
                                 "entries": ""}])))
    R["evidence-nonces"] = seq(
        req("POST", "/v1/attestation/evidence", "fz-agent",
            body=dict(ev, nonce=FZ_NONCE_OLD.hex())),
        req("POST", "/v1/attestation/evidence", "fz-agent",
            body=dict(ev, nonce=FZ_NONCE_OTHER.hex())),
        req("POST", "/v1/attestation/evidence", "fz-untrusted",
            body=dict(ev, agent_id="fz-untrusted",
                      nonce=FZ_NONCE_OTHER.hex())),
        req("POST", "/v1/attestation/evidence", "fz-agent", body=ev),
        req("POST", "/v1/attestation/evidence", "fz-agent", body=ev))
    R["evidence-errors"] = seq(*[
        req("POST", "/v1/attestation/evidence", "fz-agent", body=b)
        for b in [
            dict(ev, nonce="zz"), dict(ev, pcrs=[10]),
            dict(ev, pcrs={"sha256": {"99": "00"}}),
            dict(ev, logs=[]), dict(ev, logs=[{"name": "nope", "start": 0,
                                              "entries": ""}]),
            dict(ev, logs=ev["logs"] + ev["logs"][:1]),
            dict(ev, quote="AAAA"), dict(ev, signature="!!!!"),
            dict(ev, uefi_log="AAAA")]])
    # fleet and check
    R["fleet"] = seq(req("GET", "/v1/fleet", "admin"),
                     req("POST", "/v1/fleet", "admin"),
                     req("GET", "/v1/fleet", "fz-agent"))
    R["check"] = seq(
        req("POST", "/v1/check", "admin",
            body={"whitelist": {"name": "fz-wl"}, "log": b64(ima),
                  "pcrs": {"sha256": {"10": pcrs[10].hex()}}}),
        req("POST", "/v1/check", "admin",
            body={"whitelist": {"name": "fz-keylime", "version": 1},
                  "log": b64(bad_ima)}),
        req("POST", "/v1/check", "admin",
            body={"whitelist": {"name": "fz-legacy"}, "log": b64(ima),
                  "pcrs": {"sha256": {"10": bytes(32).hex()}}}))
    R["check-errors"] = seq(*[
        req("POST", "/v1/check", "admin", body=b) for b in [
            {"whitelist": {"name": "nope"}, "log": b64(ima)},
            {"whitelist": {"name": "fz-wl"}, "log": b64(ima[:-3])},
            {"whitelist": "fz-wl", "log": b64(ima)},
            {"whitelist": {"name": "fz-wl"}, "log": b64(ima), "pcrs": [1]},
            {"whitelist": {"name": "fz-wl"}}]])
    for n, data in R.items():
        write(os.path.join(rest, n), data)
    # regression inputs that need this run's keys: an EK area whose key
    # the certificate binds but which is no EK (was a 500 MakeCredential)
    reg = os.path.join(FUZZ, "regressions", "rest")
    for n, off, val in (("enroll-ek-not-aes-cfb", 2 + 2 + 2 + 4 + 34 + 4,
                         u16(0x0042)),
                        ("enroll-ek-sha1-name", 2 + 2, u16(0x0004))):
        e = bytearray(ek_rsa_pub)
        e[off:off + 2] = val
        write(os.path.join(reg, n),
              req("POST", "/v1/enroll", "none",
                  body=dict(enroll_rsa, ek_public=b64(bytes(e)))))
    print("wrote %d rest seeds, %d ek_cert seeds and fuzz_fixtures.h" %
          (len(R), len(ek)))


if __name__ == "__main__":
    main()
