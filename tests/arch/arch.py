#!/usr/bin/env python3
"""The dependency direction of allowed_edges.txt, checked two ways (ctest -L arch).

  arch.py includes --source DIR --edges FILE
      Reads every #include "..." of every C/C++ file of the tree, resolves it as the compiler
      would (the including file's folder first, then the folder names of the include roots), and
      fails naming file:line and the edge when it crosses an edge the table does not allow.

  arch.py build --source DIR --edges FILE --compile-commands FILE
      Proves the build refuses what the table forbids: for every target of compile_commands.json,
      with that target's own compile flags, a probe source including one header of each component
      the target's sources may not use must fail with "No such file or directory"; the same
      command on a probe without the include must succeed (so the flags themselves work).

Exit status 0 when everything holds, 1 otherwise (each violation printed on its own line).
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".h", ".hpp")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]')
# Folders that hold no sources of the project (build trees are recognised by their CMakeCache.txt).
SKIPPED_TOP = {".git", ".ci", "scripts", "cmake"}


class Table:
    """allowed_edges.txt: components (folders) and the components each may include."""

    def __init__(self, path, source):
        self.source = source
        self.components = {}  # folder -> set of components it may include
        self.file_extra = {}  # file -> extra components
        raw = {}
        for number, line in enumerate(open(path), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if ":" not in line:
                sys.exit(f"{path}:{number}: expected '<folder>: <folder> ...'")
            keys, deps = line.split(":", 1)
            for key in keys.split():
                raw.setdefault(key, []).extend(deps.split())
                if not os.path.exists(os.path.join(source, key)):
                    sys.exit(f"{path}:{number}: {key} does not exist in {source}")
        for key in raw:
            target = self.file_extra if os.path.isfile(os.path.join(source, key)) else self.components
            target[key] = self._expand(key, raw, set())
        for key, deps in list(self.components.items()) + list(self.file_extra.items()):
            for dep in deps:
                if dep not in self.components:
                    sys.exit(f"{path}: {key} names {dep}, which is not a component")

    def _expand(self, key, raw, seen):
        if key in seen:
            sys.exit(f"allowed_edges.txt: @ cycle through {key}")
        out = set()
        for dep in raw.get(key, []):
            if dep.startswith("@"):
                out |= self._expand(dep[1:], raw, seen | {key})
            else:
                out.add(dep)
        return out

    def component_of(self, rel):
        """The longest listed folder containing rel, or None."""
        best = None
        for comp in self.components:
            if rel == comp or rel.startswith(comp + "/"):
                if best is None or len(comp) > len(best):
                    best = comp
        return best

    def allowed(self, rel):
        comp = self.component_of(rel)
        return {comp, "include"} | self.components[comp] | self.file_extra.get(rel, set())

    def include_name(self, comp, header_rel):
        """How a header of comp is named in an #include (core/ parts are named without core/)."""
        return header_rel[len("core/"):] if comp.startswith("core/") else header_rel


def is_build_tree(path):
    return os.path.exists(os.path.join(path, "CMakeCache.txt")) or os.path.basename(path) == "build"


def source_files(source):
    for top in sorted(os.listdir(source)):
        full = os.path.join(source, top)
        if top in SKIPPED_TOP or top.startswith(".") or not os.path.isdir(full) or is_build_tree(full):
            continue
        for root, dirs, files in os.walk(full):
            dirs[:] = sorted(d for d in dirs if not is_build_tree(os.path.join(root, d)))
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(root, name), source)


def resolve(source, rel, name, quoted=True, folders=()):
    """The repository path an #include "name" in rel reaches, as the compiler searches: the
    including file's folder (quoted form only), then the folder names of the include roots (core/
    parts by their own name), then the public headers, then the given folders (a target may add
    one, say a test of launcher/ its folder). None when it names nothing in the tree."""
    candidates = [name, os.path.join("core", name), os.path.join("include", name)]
    if quoted:
        candidates.insert(0, os.path.join(os.path.dirname(rel), name))
        candidates += [os.path.join(folder, name) for folder in folders]
    for cand in candidates:
        cand = os.path.normpath(cand)
        if not cand.startswith("..") and os.path.isfile(os.path.join(source, cand)):
            return cand
    return None


def includes_of(source, rel, planted):
    """(line number, quoted?, name) of every #include of rel, plus the planted ones (line 0)."""
    with open(os.path.join(source, rel), errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE_RE.match(line)
            if m:
                yield number, m.group(1) == '"', m.group(2)
    for name in planted.get(rel, []):
        yield 0, True, name


def check_includes(table, source, planted):
    problems = []
    files = 0
    edges = {}
    for rel in source_files(source):
        files += 1
        comp = table.component_of(rel)
        if comp is None:
            problems.append(f"{rel}: in no component of allowed_edges.txt (add its folder)")
            continue
        allowed = table.allowed(rel)
        # Allowed folders first: a name found there and in a forbidden one is the allowed one.
        folders = sorted(table.components, key=lambda c: (c not in allowed, c))
        for number, quoted, name in includes_of(source, rel, planted):
            target = resolve(source, rel, name, quoted, folders)
            if target is None:
                if quoted:  # <...> naming nothing here is a system or third-party header
                    problems.append(f'{rel}:{number}: #include "{name}" names no file of the tree '
                                    '(headers are named by their folder: "wire/x.h", "data/x.h")')
                continue
            dep = table.component_of(target)
            if dep is None:
                problems.append(f'{rel}:{number}: #include "{name}" reaches {target}, in no '
                                "component")
            elif dep not in allowed:
                problems.append(f'{rel}:{number}: #include "{name}": edge {comp} -> {dep} is not '
                                "allowed (tests/arch/allowed_edges.txt)")
            elif dep != comp:
                edges[(comp, dep)] = edges.get((comp, dep), 0) + 1
    print(f"arch includes: {files} files, {len(edges)} distinct edges between components:")
    for (a, b), n in sorted(edges.items()):
        print(f"  {a} -> {b} ({n})")
    return problems


# ---- the build ---------------------------------------------------------------------------------
def representative_headers(table, source):
    """One header per component that has headers, as an #include would name it."""
    out = {}
    for rel in source_files(source):
        if rel.endswith(".h"):
            comp = table.component_of(rel)
            if comp and comp != "include" and os.path.dirname(rel) == comp and comp not in out:
                out[comp] = table.include_name(comp, rel)
    return out


def target_of(entry):
    """CMake's Ninja generator writes objects to <dir>/CMakeFiles/<target>.dir/..."""
    m = re.search(r"CMakeFiles/([^/]+)\.dir/", entry.get("output", "") or entry["command"])
    return m.group(1) if m else None


def probe_command(entry, probe):
    """The entry's compiler command, compiling probe with -fsyntax-only and writing nothing."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    if os.path.basename(args[0]) in ("ccache", "sccache"):
        args = args[1:]
    out, skip = [], 0
    for i, arg in enumerate(args):
        if skip:
            skip -= 1
        elif arg in ("-o", "-MF", "-MT", "-MQ"):
            skip = 1
        elif arg in ("-c", "-MD", "-MMD"):
            if arg == "-c":
                skip = 1
        elif os.path.normpath(os.path.join(entry["directory"], arg)) == os.path.normpath(
                os.path.join(entry["directory"], entry["file"])):
            continue
        else:
            out.append(arg)
    return out + ["-fsyntax-only", probe]


class Prober:
    """Compiles probes; targets with the same flags (the examples, say) share each result."""

    def __init__(self, pool, workdir):
        self.pool, self.workdir, self.jobs = pool, workdir, {}

    def submit(self, entry, header):
        suffix = os.path.splitext(entry["file"])[1]
        flags = tuple(probe_command(entry, ""))
        key = (entry["directory"], suffix, flags, header)
        if key not in self.jobs:
            probe = os.path.join(self.workdir, f"probe_{len(self.jobs)}{suffix}")
            with open(probe, "w") as f:
                if header:
                    f.write(f'#include "{header}"\n')
                f.write("typedef int pmix_arch_probe;\n")
            self.jobs[key] = self.pool.submit(self._run, entry, probe)
        return self.jobs[key]

    @staticmethod
    def _run(entry, probe):
        proc = subprocess.run(probe_command(entry, probe), cwd=entry["directory"], text=True,
                              capture_output=True, timeout=120)
        return proc.returncode, proc.stdout + proc.stderr


DEPENDENT_RE = re.compile(r"-DPMIX_ARCH_COMPONENT=(\S+)")


def collect_targets(table, source, entries):
    """target -> [first entry, components its sources may include, its own components]. The
    dependents of tests/arch/CMakeLists.txt stand for their library's component."""
    targets = {}
    for entry in entries:
        target = target_of(entry)
        command = " ".join(entry.get("arguments", [])) or entry["command"]
        dependent = DEPENDENT_RE.search(command)
        if dependent:
            comp = dependent.group(1)
            targets[target] = [entry, {"include"} | table.components[comp], {comp}]
            continue
        for path in sources_of(entry):
            rel = os.path.relpath(os.path.realpath(path), os.path.realpath(source))
            comp = table.component_of(rel)
            if comp is None or target is None:
                continue  # generated sources (core/text's attribute table) are in the build tree
            first, allowed, own = targets.setdefault(target, [entry, set(), set()])
            allowed |= table.allowed(rel)
            own.add(comp)
    return targets


UNITY_RE = re.compile(r"/Unity/unity_[^/]*\.(cxx|c)$")


def sources_of(entry):
    """The source files an entry compiles: its file, or, for a CMake unity batch
    (CMAKE_UNITY_BUILD), every file the batch includes."""
    path = os.path.join(entry["directory"], entry["file"])
    if not UNITY_RE.search(entry["file"]):
        return [path]
    with open(path) as f:
        return [os.path.join(entry["directory"], m.group(1))
                for m in re.finditer(r'^#include\s+"([^"]+)"', f.read(), re.M)]


def submit_probes(table, source, targets, prober):
    """(target, kind, header, component, future) for every probe: "empty" and "own" must compile,
    "forbidden" must fail for want of the header."""
    headers = representative_headers(table, source)
    jobs = []
    for target, (entry, allowed, own) in sorted(targets.items()):
        jobs.append((target, "empty", None, None, prober.submit(entry, None)))
        for comp, header in sorted(headers.items()):
            if comp not in allowed and comp not in own:
                jobs.append((target, "forbidden", header, comp, prober.submit(entry, header)))
        if DEPENDENT_RE.search(" ".join(entry.get("arguments", [])) or entry["command"]):
            (comp,) = own
            for rel in source_files(source):
                if rel.endswith(".h") and table.component_of(rel) == comp:
                    header = table.include_name(comp, rel)
                    jobs.append((target, "own", header, comp, prober.submit(entry, header)))
    return jobs


def judge(target, kind, header, comp, status, output):
    """None when the probe did what it must, else the problem."""
    if kind == "empty" and status != 0:
        return f"{target}: its own compile command fails on an empty probe:\n{output[:800]}"
    if kind == "own" and status != 0:
        return (f'{target}: "{header}" does not compile for a dependent of {comp} (a dependency '
                f"its headers use is not PUBLIC, or the header is not self-contained):\n"
                f"{output[:800]}")
    if kind == "forbidden" and not (status != 0 and f"{header}: No such file" in output):
        return (f'{target}: #include "{header}" ({comp}) is not refused with the target\'s flags '
                f"(exit {status})\n{output[:800]}")
    return None


def check_build(table, source, compile_commands):
    targets = collect_targets(table, source, json.load(open(compile_commands)))
    problems, counts = [], {"empty": 0, "own": 0, "forbidden": 0}
    with tempfile.TemporaryDirectory() as workdir, \
            concurrent.futures.ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0))) as pool:
        prober = Prober(pool, workdir)
        for target, kind, header, comp, job in submit_probes(table, source, targets, prober):
            problem = judge(target, kind, header, comp, *job.result())
            if problem:
                problems.append(problem)
            else:
                counts[kind] += 1
        runs = len(prober.jobs)
    print(f"arch build: {len(targets)} targets; {counts['forbidden']} forbidden includes refused, "
          f"{counts['own']} library headers compiled as their dependents see them; {runs} "
          "distinct compiler runs")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["includes", "build"])
    parser.add_argument("--source", required=True)
    parser.add_argument("--edges", required=True)
    parser.add_argument("--compile-commands")
    parser.add_argument("--plant", action="append", default=[], metavar="FILE:HEADER",
                        help="includes: check as if FILE also included HEADER (proves the check "
                             "fails on a forbidden edge)")
    args = parser.parse_args()
    source = os.path.abspath(args.source)
    table = Table(args.edges, source)
    if args.mode == "includes":
        planted = {}
        for spec in args.plant:
            rel, name = spec.split(":", 1)
            if not os.path.isfile(os.path.join(source, rel)):
                sys.exit(f"--plant: {rel} is not a file of {source}")
            planted.setdefault(rel, []).append(name)
        problems = check_includes(table, source, planted)
    else:
        if not args.compile_commands or not os.path.exists(args.compile_commands):
            sys.exit("arch build: --compile-commands names no file (CMAKE_EXPORT_COMPILE_COMMANDS)")
        problems = check_build(table, source, args.compile_commands)
    for p in problems:
        print("FAIL " + p)
    print(f"arch {args.mode}: {'FAILED, ' + str(len(problems)) + ' problem(s)' if problems else 'ok'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
