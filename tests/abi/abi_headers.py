#!/usr/bin/env python3
"""Compare our PMIx headers with the reference (Debian's OpenPMIx 4.2.2) fact by fact.

Usage:
  abi_headers.py --ours DIR --theirs DIR [--cc gcc] [--cxx g++] [--clang clang]
                 [--min-facts N] [--allow FILE] [--dump DIR] [--keep] [--cache DIR]
  abi_headers.py --selfcheck [--theirs DIR]     (reference against itself, >= 3000 facts)

Every difference is printed on one line:
  DIFF <kind> <name> | ours: <value> | theirs: <value>
followed by a count per kind and the summary line "N facts compared, M differences".
The exit status is 1 when M > 0 or fewer than --min-facts facts were compared.

Names come from both sides. A name only the reference has is a difference; a name only we
have is a difference unless it is listed in the allowlist (extra_names.txt next to this
script by default; one name per line, '#' starts a comment; "pmix_foo_t" also covers its
fields "pmix_foo_t.x").

Besides facts, our headers must compile: each header alone (C11 and C++17), and all of them
together under -std=c99/c11/c17/gnu11 (gcc) and c++11/14/17/20 (g++), with
-Wall -Wextra -Werror. A failure is a difference of kind "compile". The reference's own
compile results are printed as INFO only.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import abi_extract  # noqa: E402
import abi_facts  # noqa: E402

DEBIAN_INCLUDE = "/usr/lib/x86_64-linux-gnu/pmix2/include"
SELFCHECK_MIN_FACTS = 3000
C_STDS = ["c99", "c11", "c17", "gnu11"]
CXX_STDS = ["c++11", "c++14", "c++17", "c++20"]
WARN = ["-Wall", "-Wextra", "-Werror"]

# kind -> (entity family, kind that proves the entity exists)
FAMILY = {
    "macro": ("macro", True), "macro.params": ("macro", False), "macro.value": ("macro", False), "macro.const": ("macro", False),
    "macro.lang": ("macro", False), "static-init": ("macro", False),
    "enum-const": ("enum-const", True),
    "typedef": ("typedef", True), "typedef.size": ("typedef", False),
    "typedef.canon": ("typedef", False), "record.tag": ("typedef", False),
    "field.type": ("field", True), "field": ("field", False), "field.canon": ("field", False),
    "function": ("function", True), "function.decl": ("function", False),
    "function.canon": ("function", False), "function.linkage": ("function", False),
    "var": ("var", True), "var.canon": ("var", False), "var.linkage": ("var", False),
}


# --------------------------------------------------------------------------- compile checks

def _compile_one(compiler, std, incdir, text, workdir, tag):
    ext = ".cpp" if compiler.endswith("++") else ".c"
    src = os.path.join(workdir, "compile_%s%s" % (tag, ext))
    with open(src, "w") as fh:
        fh.write(text)
    cmd = [compiler, "-std=" + std] + WARN + ["-I", incdir, "-fsyntax-only", src]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace", timeout=120)
    diag = (proc.stdout + proc.stderr).strip()
    first = next((ln for ln in diag.splitlines() if "error" in ln or "warning" in ln), diag[:300])
    return proc.returncode == 0, first.replace(incdir + "/", "")


def compile_checks(tools, incdir, workdir):
    """[(check name, ok, first diagnostic)] for one include directory."""
    headers = abi_extract.header_list(incdir)
    jobs = []
    for i, h in enumerate(headers):
        text = "#include <%s>\n" % h
        jobs.append(("%s alone, gcc -std=c11" % h, tools.cc, "c11", text, "alone%d" % i))
        jobs.append(("%s alone, g++ -std=c++17" % h, tools.cxx, "c++17", text, "alone%d" % i))
    every = abi_extract.umbrella(headers) + "int abi_compile_check_anchor;\n"
    for std in C_STDS:
        jobs.append(("all headers, gcc -std=%s" % std, tools.cc, std, every, "all_" + std))
    for std in CXX_STDS:
        tag = "all_" + std.replace("+", "x")
        jobs.append(("all headers, g++ -std=%s" % std, tools.cxx, std, every, tag))
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futs = [(name, pool.submit(_compile_one, cc, std, incdir, text, workdir, tag))
                for name, cc, std, text, tag in jobs]
        for name, fut in futs:
            ok, first = fut.result()
            results.append((name, ok, first))
    return results


# --------------------------------------------------------------------------- comparison

def load_allowlist(path):
    names = set()
    if path and os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                line = line.split("#", 1)[0].strip()
                if line:
                    names.add(line)
    return names


def _allowed(name, allow):
    return name in allow or name.split(".", 1)[0] in allow


def _show(value, why):
    if value is None:
        return "absent"
    return "%s (%s)" % (value, why) if why else value


def compare(ours, theirs, allow):
    """Returns (facts compared, difference lines as (kind, name, ours, theirs), allowed)."""
    diffs, unknown = [], set()
    # A probe that failed as a whole on either side makes its facts unknown: report the failure
    # once instead of as thousands of absent values.
    for label in sorted(set(ours.failed) | set(theirs.failed)):
        for side, facts in (("ours", ours), ("theirs", theirs)):
            if label in facts.failed:
                kinds, first = facts.failed[label]
                unknown |= kinds
                o = "FAILED: " + first if side == "ours" else "ran"
                t = "FAILED: " + first if side == "theirs" else "ran"
                diffs.append(("probe", label, o, t))
    keys = {k for k in set(ours.values) | set(theirs.values) if k[0] not in unknown}
    present = {"ours": set(), "theirs": set()}
    for side, facts in (("ours", ours), ("theirs", theirs)):
        for (kind, name) in facts.values:
            fam, primary = FAMILY.get(kind, (kind, True))
            if primary:
                present[side].add((fam, name))
    allowed = 0
    for fam, name in sorted(present["ours"] ^ present["theirs"]):
        in_ours = (fam, name) in present["ours"]
        if in_ours and _allowed(name, allow):
            allowed += 1
            continue
        kinds = sorted({k for (k, n) in set(ours.values) | set(theirs.values)
                        if n == name and FAMILY.get(k, (k,))[0] == fam})
        summary = "present (%s)" % ", ".join(kinds)
        diffs.append(("missing" if not in_ours else "extra", "%s %s" % (fam, name),
                      summary if in_ours else "absent", "absent" if in_ours else summary))
    one_sided = present["ours"] ^ present["theirs"]
    for key in sorted(keys):
        kind, name = key
        fam = FAMILY.get(kind, (kind, True))[0]
        if (fam, name) in one_sided:
            continue
        o, t = ours.values.get(key), theirs.values.get(key)
        if o == t:
            continue
        if t is None and _allowed(name, allow):
            allowed += 1
            continue
        diffs.append((kind, name, _show(o, ours.why.get(key)), _show(t, theirs.why.get(key))))
    return len(keys), diffs, allowed


# --------------------------------------------------------------------------- reporting

def report(facts_n, diffs, compile_ours, compile_theirs, selfcheck, ours, theirs, allowed):
    for facts, label in ((theirs, "theirs"), (ours, "ours")):
        for p in facts.problems:
            print("PROBLEM (%s): %s" % (label, p.strip().replace("\n", "\n    ")))
        for n in facts.notes:
            print("NOTE (%s): %s" % (label, n))
    for name, ok, first in compile_theirs:
        if not ok:
            print("INFO reference does not compile cleanly: %s: %s" % (name, first))
    compile_fail = []
    reference = {name: ok for name, ok, _first in compile_theirs}
    for name, ok, first in compile_ours:
        if ok or selfcheck:
            continue
        ref = {True: "compiles", False: "fails too (informational)"}.get(reference.get(name),
                                                                         "not checked")
        compile_fail.append(("compile", name, "FAILS: " + first, ref))
    lines = diffs + compile_fail
    for kind, name, o, t in lines:
        print("DIFF %s %s | ours: %s | theirs: %s" % (kind, name, o, t))
    by_kind = collections.Counter(kind for kind, _n, _o, _t in lines)
    if by_kind:
        print("differences by kind: " + ", ".join("%s=%d" % kv for kv in by_kind.most_common()))
    if allowed:
        print("allowlisted extra facts on our side: %d" % allowed)
    checks = len(compile_ours)
    print("%d compile checks on our headers, %d failed" % (checks, len(compile_fail)))
    print("%d facts compared, %d differences" % (facts_n + checks, len(lines)))
    return len(lines)


# --------------------------------------------------------------------------- reference cache

def cache_key(tools, incdir):
    """Changes whenever the reference headers, this tool or the compilers change."""
    digest = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    files = [os.path.join(incdir, h) for h in abi_extract.header_list(incdir)]
    files += sorted(os.path.join(here, f) for f in os.listdir(here)
                    if f.startswith("abi_") and f.endswith(".py"))
    for path in files:
        digest.update(path.encode())
        with open(path, "rb") as fh:
            digest.update(fh.read())
    for tool in (tools.cc, tools.cxx, tools.clang):
        proc = subprocess.run([tool, "--version"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        digest.update(proc.stdout.encode())
    return digest.hexdigest()[:20]


def facts_to_dict(facts):
    join = "\x1f".join
    return {"values": {join(k): v for k, v in facts.values.items()},
            "why": {join(k): v for k, v in facts.why.items()},
            "problems": facts.problems, "notes": facts.notes,
            "failed": {k: [sorted(kinds), first] for k, (kinds, first) in facts.failed.items()}}


def facts_from_dict(data):
    facts = abi_extract.Facts()
    facts.values = {tuple(k.split("\x1f", 1)): v for k, v in data["values"].items()}
    facts.why = {tuple(k.split("\x1f", 1)): v for k, v in data["why"].items()}
    facts.problems, facts.notes = data["problems"], data["notes"]
    facts.failed = {k: (set(kinds), first) for k, (kinds, first) in data["failed"].items()}
    return facts


def dump(path, label, facts):
    os.makedirs(path, exist_ok=True)
    data = {"%s %s" % k: v for k, v in sorted(facts.values.items())}
    with open(os.path.join(path, label + ".json"), "w") as fh:
        json.dump({"facts": data, "problems": facts.problems, "notes": facts.notes}, fh,
                  indent=1, sort_keys=True)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ours")
    ap.add_argument("--theirs", default=DEBIAN_INCLUDE)
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--cxx", default=None, help="C++ compiler (default: derived from --cc)")
    ap.add_argument("--clang", default="clang")
    ap.add_argument("--min-facts", type=int, default=0)
    ap.add_argument("--allow", default=os.path.join(here, "extra_names.txt"))
    ap.add_argument("--selfcheck", action="store_true")
    ap.add_argument("--dump", help="write ours.json / theirs.json facts into this directory")
    ap.add_argument("--keep", action="store_true", help="keep the generated probes")
    ap.add_argument("--cache", help="directory caching the reference's facts between runs "
                    "(ignored by --selfcheck)")
    args = ap.parse_args(argv)
    if args.selfcheck:
        args.ours = args.theirs
        args.cache = None
        args.min_facts = max(args.min_facts, SELFCHECK_MIN_FACTS)
    if not args.ours:
        ap.error("--ours is required (or use --selfcheck)")
    for d in (args.ours, args.theirs):
        if not os.path.isdir(d):
            print("error: %s is not a directory" % d)
            return 2
    cxx = args.cxx or ("clang++" if "clang" in os.path.basename(args.cc) else
                       args.cc.replace("gcc", "g++") if "gcc" in args.cc else "g++")
    tools = abi_extract.Tools(args.cc, cxx, args.clang)
    work = tempfile.mkdtemp(prefix="abi_headers_")
    try:
        return run(args, tools, work)
    finally:
        if args.keep:
            print("probes kept in " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


def _reference(args, tools, work, theirs_dir):
    """Facts and compile results of the reference, from the cache when it is still valid."""
    key = cache_key(tools, theirs_dir) if args.cache else None
    path = os.path.join(args.cache, "reference-%s.json" % key) if key else None
    if path and os.path.exists(path):
        with open(path) as fh:
            data = json.load(fh)
        return facts_from_dict(data["facts"]), [tuple(c) for c in data["compile"]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        f_t = pool.submit(abi_facts.extract, tools, theirs_dir, os.path.join(work, "theirs"))
        c_t = pool.submit(compile_checks, tools, theirs_dir, _mk(work, "cc_theirs"))
        theirs, comp_t = f_t.result(), c_t.result()
    if path and not theirs.failed:
        os.makedirs(args.cache, exist_ok=True)
        tmp = path + ".%d.tmp" % os.getpid()
        with open(tmp, "w") as fh:
            json.dump({"facts": facts_to_dict(theirs), "compile": comp_t}, fh)
        os.replace(tmp, path)
    return theirs, comp_t


def run(args, tools, work):
    ours_dir, theirs_dir = os.path.realpath(args.ours), os.path.realpath(args.theirs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        f_o = pool.submit(abi_facts.extract, tools, ours_dir, os.path.join(work, "ours"))
        # The self-check extracts twice (a fact that differs between two runs over the same
        # headers would be noise in every real comparison) but compiles once.
        c_o = None if args.selfcheck else pool.submit(compile_checks, tools, ours_dir,
                                                      _mk(work, "cc_ours"))
        theirs, comp_t = _reference(args, tools, work, theirs_dir)
        ours = f_o.result()
        comp_o = comp_t if c_o is None else c_o.result()
    if args.dump:
        dump(args.dump, "ours", ours)
        dump(args.dump, "theirs", theirs)
    allow = set() if args.selfcheck else load_allowlist(args.allow)
    facts_n, diffs, allowed = compare(ours, theirs, allow)
    ndiff = report(facts_n, diffs, comp_o, comp_t, args.selfcheck, ours, theirs, allowed)
    status = 0
    if ndiff:
        status = 1
    if facts_n < args.min_facts:
        print("FAIL: only %d facts extracted, expected at least %d" % (facts_n, args.min_facts))
        status = 1
    return status


def _mk(base, name):
    path = os.path.join(base, name)
    os.makedirs(path, exist_ok=True)
    return path


if __name__ == "__main__":
    sys.exit(main())
