#!/usr/bin/env python3
"""Check the dynamic symbol table of our libpmix.so.2 against what its users need.

Usage: abi_symbols.py --lib PATH/libpmix.so.2 [--reference PATH] [--ompi FILE] [--python FILE]

Requirements (each failure is one "DIFF" line; exit status 1 if there is any):
  * the SONAME is libpmix.so.2;
  * every symbol Open MPI 4.1.4 imports (compat/ompi-4.1.4/symbols.txt), every symbol
    python3-pmix 4.2.2 imports (compat/python3-pmix-4.2.2-symbols.txt) and every PMIx_*
    function the reference library exports is exported by ours as a defined function (T);
  * nothing else is exported: every defined dynamic symbol of ours must be a PMIx_*/pmix_*
    name that the reference also exports *as public API* (declared in its public headers).
    OpenPMIx-internal pmix_* names are reported separately so they stand out.
"""

import argparse
import os
import re
import subprocess
import sys

REFERENCE_LIB = "/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2"
REFERENCE_INCLUDE = "/usr/lib/x86_64-linux-gnu/pmix2/include"
# The symbols Debian's Open MPI 4.1.4 and python3-pmix 4.2.2 import from libpmix.so.2, recorded
# next to this script (the Open MPI list says how it was made).
HERE = os.path.dirname(os.path.abspath(__file__))
OMPI_LIST = os.path.join(HERE, "ompi-4.1.4-symbols.txt")
PYTHON_LIST = os.path.join(HERE, "python3-pmix-4.2.2-symbols.txt")
SONAME = "libpmix.so.2"
# Symbols some linkers define in every shared object; harmless, reported as INFO only.
LINKER_SYMBOLS = {"_init", "_fini", "_edata", "_end", "__bss_start"}
PUBLIC_RE = re.compile(r"^(PMIx_|pmix_)")


def read_list(path):
    """First token of every non-comment, non-blank line (both compat formats)."""
    names = []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            names.append(re.split(r"\s+", line, 1)[0])
    return names


def exported(lib):
    """name -> nm type letter of every defined dynamic symbol."""
    out = subprocess.run(["nm", "-D", "--defined-only", lib], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, check=True).stdout
    table = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            table[parts[2].split("@")[0]] = parts[1]
    return table


def soname(lib):
    out = subprocess.run(["readelf", "-d", lib], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    return (m.group(1) if m else None), needed


def versions(lib):
    out = subprocess.run(["readelf", "--version-info", lib], stdout=subprocess.PIPE,
                         text=True).stdout
    return "Version definition section" in out


def public_header_names(incdir):
    """Identifiers that appear in the reference's public (top-level) headers."""
    words = set()
    for name in os.listdir(incdir):
        path = os.path.join(incdir, name)
        if name.endswith(".h") and os.path.isfile(path):
            with open(path, errors="replace") as fh:
                words.update(re.findall(r"\b(?:PMIx|pmix)_\w+", fh.read()))
    return words


def check(args):
    diffs, infos = [], []
    name, needed = soname(args.lib)
    if name != SONAME:
        diffs.append(("soname", "SONAME", str(name), SONAME))
    infos.append("our NEEDED: " + ", ".join(needed))
    if versions(args.lib):
        infos.append("our library defines symbol versions (the reference defines none)")
    ours, ref = exported(args.lib), exported(args.reference)
    required = {}
    for label, path in (("ompi-4.1.4", args.ompi), ("python3-pmix", args.python)):
        for sym in read_list(path):
            required.setdefault(sym, []).append(label)
    for sym, kind in ref.items():
        if sym.startswith("PMIx_") and kind == "T":
            required.setdefault(sym, []).append("reference")
    for sym in sorted(required):
        who = ",".join(required[sym])
        if sym not in ours:
            diffs.append(("missing-symbol", sym, "not exported", "T (needed by %s)" % who))
        elif ours[sym] != "T":
            diffs.append(("symbol-type", sym, ours[sym], "T (needed by %s)" % who))
    public = public_header_names(args.reference_include)
    for sym in sorted(ours):
        if sym in required:
            continue
        if sym in LINKER_SYMBOLS:
            infos.append("linker-defined symbol exported: " + sym)
        elif not PUBLIC_RE.match(sym):
            diffs.append(("extra-symbol", sym, ours[sym], "not a PMIx name"))
        elif sym not in ref:
            diffs.append(("extra-symbol", sym, ours[sym], "not exported by the reference"))
        elif sym not in public:
            diffs.append(("extra-symbol", sym, ours[sym],
                          "OpenPMIx-internal (exported by the reference, not public API)"))
    return len(required) + len(ours) + 1, diffs, infos


def main(argv=None):
    ap = argparse.ArgumentParser(description="check libpmix.so.2 exports")
    ap.add_argument("--lib", required=True)
    ap.add_argument("--reference", default=REFERENCE_LIB)
    ap.add_argument("--reference-include", default=REFERENCE_INCLUDE)
    ap.add_argument("--ompi", default=OMPI_LIST)
    ap.add_argument("--python", default=PYTHON_LIST)
    args = ap.parse_args(argv)
    for path in (args.lib, args.reference, args.ompi, args.python):
        if not os.path.exists(path):
            print("error: %s does not exist" % path)
            return 2
    checked, diffs, infos = check(args)
    for line in infos:
        print("INFO " + line)
    for kind, name, ours, theirs in diffs:
        print("DIFF %s %s | ours: %s | expected: %s" % (kind, name, ours, theirs))
    print("%d symbols checked, %d differences" % (checked, len(diffs)))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
