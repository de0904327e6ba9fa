#!/usr/bin/env python3
"""Validates SBOM documents against the published JSON schemas vendored in tests/schemas/.

    validate_sbom.py spdx FILE...        SPDX 2.3 (spdx-2.3.schema.json)
    validate_sbom.py cyclonedx FILE...   CycloneDX 1.5 (bom-1.5.schema.json + spdx.schema.json + jsf-0.82.schema.json)

Offline: every schema is loaded from tests/schemas and registered under its $id, and a $ref that
would need the network fails instead of downloading. Formats (date-time, uri, ...) are checked
where jsonschema has a checker for them. Exit 0 when every file validates, 1 otherwise (each error
printed with its JSON path), 2 on bad usage.
"""
import json
import os
import sys
import warnings

import jsonschema

SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schemas")
MAIN = {"spdx": "spdx-2.3.schema.json", "cyclonedx": "bom-1.5.schema.json"}


def load(name):
    with open(os.path.join(SCHEMAS, name), encoding="utf-8") as f:
        return json.load(f)


def no_network(uri):
    raise RuntimeError(f"schema reference {uri} is not in tests/schemas; refusing to fetch it")


def validator_for(kind):
    store = {}
    for name in os.listdir(SCHEMAS):
        if name.endswith(".json"):
            schema = load(name)
            store[schema.get("$id", name)] = schema
    main = load(MAIN[kind])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # RefResolver: still there in 4.x
        resolver = jsonschema.RefResolver(main["$id"], main, store=store,
                                          handlers={"http": no_network, "https": no_network, "file": no_network})
    cls = jsonschema.validators.validator_for(main)
    cls.check_schema(main)
    return cls(main, resolver=resolver, format_checker=cls.FORMAT_CHECKER)


def main(argv):
    if len(argv) < 3 or argv[1] not in MAIN:
        print(__doc__, file=sys.stderr)
        return 2
    validator = validator_for(argv[1])
    bad = 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors:
            where = "/".join(str(p) for p in e.absolute_path) or "(document)"
            print(f"{path}: {where}: {e.message}", file=sys.stderr)
        if errors:
            bad += 1
        else:
            print(f"{path}: valid {argv[1]} ({MAIN[argv[1]]})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
