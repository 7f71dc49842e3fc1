#!/bin/sh
# schema_whitelist.sh - schemas/whitelist.schema.json agrees with the
# loader: what att-imagen writes and the Keylime-style corpus validate and
# load; documents the loader refuses are refused by the schema too.
set -u
B=${ATT_SAN_BUILD:?}
S="$ATT_SRC/schemas/whitelist.schema.json"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/tools/att-imagen" -o "$T/l" -n 50 --template mixed --whitelist "$T/gen.json" || exit 1
python3 - "$S" "$T/gen.json" "$ATT_SRC"/tests/fuzz/corpus/whitelist/*.json <<'PY' || exit 1
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
fails = 0
for f in sys.argv[2:]:
    errs = list(v.iter_errors(json.load(open(f))))
    print(("ok  " if not errs else "FAIL") + " valid: " + f)
    fails += bool(errs)
bad = [
    '{"digests": {"/a": ["xyz"]}}',
    '{"bogus": 1}',
    '{"ima": {"nope": 1}}',
    '{"attest": {"violations": "maybe"}}',
    '{"digests": []}',
    '{"excludes": [1]}',
]
for doc in bad:
    ok = v.is_valid(json.loads(doc))
    print(("FAIL" if ok else "ok  ") + " invalid: " + doc)
    fails += ok
sys.exit(1 if fails else 0)
PY
for doc in '{"digests": {"/a": ["xyz"]}}' '{"bogus": 1}' '{"ima": {"nope": 1}}' \
	'{"attest": {"violations": "maybe"}}' '{"digests": []}' '{"excludes": [1]}'; do
	printf '%s' "$doc" >"$T/bad.json"
	"$B/bin/attest-whitelist" check "$T/bad.json" "$T/l" >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] || { echo "FAIL loader accepted $doc (exit $rc)"; exit 1; }
	echo "ok   loader refuses $doc"
done
