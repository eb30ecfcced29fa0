#!/usr/bin/env python3
"""Check that every PMIx_* function OpenPMIx 4.2.2 exports is defined exactly once in capi/*.cpp,
that capi/README.md lists each one under the file that defines it, and that each body runs
inside a guard of capi/shim_support.h (guarded, guarded_or, guarded_void) unless it has no
statement at all.

Usage: check_capi_map.py --capi DIR [--reference LIB] [--print]
  --print   write the README table for the current sources instead of checking.

Exit status: 0 consistent, 1 a mismatch (each printed), 77 reference library not installed.
The linker already refuses duplicates and tests/abi checks the exported symbols; this test keeps
the ownership table honest as helpers move functions between files.
"""

import argparse
import os
import re
import subprocess
import sys

REFERENCE = "/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2"
# A definition starts in column 0 with its return type, names the function and reaches '{'
# before any ';' (a declaration or a call ends at ';' first).
DEF_RE = re.compile(r"^[A-Za-z_][^\n;{}()]*?\b(PMIx_\w+)\s*\(([^;{]*?)\)\s*\{", re.M)
ROW_RE = re.compile(r"^\|\s*`([\w./-]+\.cpp)`\s*\|(.*)\|\s*$")


def reference_names(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    return {parts[2].split("@")[0] for parts in (l.split() for l in out.splitlines())
            if len(parts) >= 3 and parts[1] == "T" and parts[2].startswith("PMIx_")}


def shim_definitions(capi):
    """(file name, file text, match) for every PMIx_* definition in capi/*.cpp."""
    for name in sorted(os.listdir(capi)):
        if not name.endswith(".cpp"):
            continue
        with open(os.path.join(capi, name)) as fh:
            text = fh.read()
        for m in DEF_RE.finditer(text):
            yield name, text, m


def definitions(capi):
    found = {}
    for name, _, m in shim_definitions(capi):
        found.setdefault(m.group(1), []).append(name)
    return found


def body_of(text, open_brace):
    depth = 0
    for i in range(open_brace, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[open_brace + 1:i]
    return text[open_brace + 1:]


def unguarded(capi):
    """Shims with a statement outside any guard: (file, function)."""
    found = []
    guard = re.compile(r"^(return\s+)?(pmix::capi::)?guarded(_or|_void)?\b")
    for name, text, m in shim_definitions(capi):
        body = re.sub(r"//[^\n]*", "", body_of(text, m.end() - 1)).strip()
        if body and not guard.match(body):
            found.append((name, m.group(1)))
    return found


def readme_rows(path):
    rows = {}
    with open(path) as fh:
        for line in fh:
            m = ROW_RE.match(line.strip())
            if m:
                rows[m.group(1)] = set(re.findall(r"`(PMIx_\w+)`", m.group(2)))
    return rows


def table(by_file):
    lines = ["| File | Functions |", "|---|---|"]
    for name in sorted(by_file):
        funcs = ", ".join(f"`{f}`" for f in sorted(by_file[name]))
        lines.append(f"| `{name}` | {funcs} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capi", required=True)
    ap.add_argument("--reference", default=REFERENCE)
    ap.add_argument("--print", action="store_true")
    args = ap.parse_args()

    defs = definitions(args.capi)
    by_file = {}
    for func, files in defs.items():
        for f in files:
            by_file.setdefault(f, set()).add(func)
    if args.print:
        print(table(by_file))
        return 0
    if not os.path.exists(args.reference):
        print(f"SKIP: reference library {args.reference} not installed")
        return 77

    problems = []
    ref = reference_names(args.reference)
    for func in sorted(ref):
        files = defs.get(func, [])
        if len(files) != 1:
            problems.append(f"{func}: defined {len(files)} times {files}")
    for func in sorted(set(defs) - ref):
        problems.append(f"{func}: defined in {defs[func]} but not exported by OpenPMIx 4.2.2")

    listed = readme_rows(os.path.join(args.capi, "README.md"))
    for name in sorted(set(by_file) | set(listed)):
        have, says = by_file.get(name, set()), listed.get(name, set())
        for func in sorted(have - says):
            problems.append(f"README.md: {func} is defined in {name} but not listed there")
        for func in sorted(says - have):
            problems.append(f"README.md: lists {func} under {name}, which does not define it")

    for name, func in unguarded(args.capi):
        problems.append(f"{name}: {func} has a statement outside guarded()/guarded_or()/guarded_void()")

    total = sum(len(v) for v in defs.values())
    if problems:
        print("\n".join(problems))
        print(f"\n{len(problems)} problem(s). Current table (check_capi_map.py --print):\n")
        print(table(by_file))
        return 1
    print(f"{len(ref)} reference functions, {total} definitions in {len(by_file)} files: "
          "each defined once and guarded, README table matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
