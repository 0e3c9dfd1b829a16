/**
 * tests/check.py, written into every generated task that compares outputs with /tests/expected/: one
 * small checker so that each family's assertions are one line each. Verbs (exit 0 = passed):
 *   same FILE EXPECTED            text equal, ignoring trailing spaces and trailing blank lines
 *   lines FILE EXPECTED           the same lines in any order (blank lines ignored)
 *   json FILE EXPECTED [KEYS] [TOL]  JSON equal (only KEYS, comma-separated, when given and not "-");
 *                                 numbers within TOL (absolute or relative), default 1e-9
 *   num FILE VALUE TOL            the file holds one number within TOL of VALUE
 *   sha FILE HEX                  the file's sha256
 *   gone PATH...                  none of the paths exists
 */
export const CHECK_PY = String.raw`#!/usr/bin/env python3
"""Output checks for generated tasks (T1 Lab task families). Outputs are read, never executed."""
import hashlib
import json
import math
import os
import sys


def text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def norm(s):
    lines = [line.rstrip() for line in s.replace("\r\n", "\n").split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def close(a, b, tol):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=tol, abs_tol=tol)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b))
    return a == b


def main(argv):
    verb, args = argv[1], argv[2:]
    if verb == "same":
        got, want = norm(text(args[0])), norm(text(args[1]))
        if got != want:
            sys.exit(f"{args[0]} differs from the expected text ({len(got)} vs {len(want)} lines)")
    elif verb == "lines":
        got = sorted(l for l in norm(text(args[0])) if l.strip())
        want = sorted(l for l in norm(text(args[1])) if l.strip())
        if got != want:
            sys.exit(f"{args[0]}: lines differ; unexpected {sorted(set(got) - set(want))[:3]}, missing {sorted(set(want) - set(got))[:3]}")
    elif verb == "json":
        got, want = json.loads(text(args[0])), json.loads(text(args[1]))
        keys = args[2] if len(args) > 2 and args[2] != "-" else None
        tol = float(args[3]) if len(args) > 3 else 1e-9
        if keys:
            for k in keys.split(","):
                if not isinstance(got, dict) or k not in got:
                    sys.exit(f"{args[0]}: missing key {k!r}")
                if not close(got[k], want[k], tol):
                    sys.exit(f"{args[0]}: {k!r} is {got[k]!r}, expected something else")
        elif not close(got, want, tol):
            sys.exit(f"{args[0]}: JSON differs from the expected value")
    elif verb == "num":
        got = float(text(args[0]).strip())
        if not math.isclose(got, float(args[1]), rel_tol=float(args[2]), abs_tol=float(args[2])):
            sys.exit(f"{args[0]}: {got} is not within {args[2]} of the expected value")
    elif verb == "sha":
        with open(args[0], "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != args[1]:
                sys.exit(f"{args[0]}: content differs")
    elif verb == "gone":
        left = [p for p in args if os.path.lexists(p)]
        if left:
            sys.exit(f"still there: {left[:3]}")
    else:
        sys.exit(f"unknown verb {verb}")


if __name__ == "__main__":
    try:
        main(sys.argv)
    except (OSError, ValueError, IndexError, KeyError, TypeError) as e:
        sys.exit(f"check failed: {e}")
`;
