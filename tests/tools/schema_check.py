#!/usr/bin/env python3
"""A small JSON Schema checker (the subset kreport's schemas use: type,
properties, required, additionalProperties, items, enum, const, $ref to
#/$defs/*). Fails on undeclared keys when additionalProperties is false.
usage: schema_check.py SCHEMA JSON..."""
import json
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def type_ok(value, t):
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[t])


def check(schema, value, path, root, errors):
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        schema = root["$defs"][name]
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(type_ok(value, t) for t in types):
            errors.append(f"{path}: expected {'/'.join(types)}, got {type(value).__name__}")
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: expected {schema['const']!r}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing required key '{key}'")
        for key, sub in value.items():
            if key in props:
                check(props[key], sub, f"{path}.{key}", root, errors)
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: undeclared key '{key}'")
            elif isinstance(schema.get("additionalProperties"), dict):
                check(schema["additionalProperties"], sub, f"{path}.{key}", root, errors)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            check(schema["items"], item, f"{path}[{i}]", root, errors)


def main():
    schema = json.load(open(sys.argv[1]))
    bad = 0
    for name in sys.argv[2:]:
        errors = []
        check(schema, json.load(open(name)), "$", schema, errors)
        for e in errors[:50]:
            print(f"{name}: {e}")
        bad += bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
