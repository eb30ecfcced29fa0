"""Generated-probe machinery for the ABI header comparer.

A probe is a C or C++ source made of a fixed prelude plus one *item* per fact we want. Some
items cannot compile on a given header set (sizeof of an incomplete type, a macro that is not
an expression, a name the headers lack). Rather than compiling each item alone (thousands of
compiler runs), we compile them all together, read the compiler's diagnostics, drop every item
whose lines the diagnostics mention, and try again. Dropped items are reported back so the
caller can turn them into "not available" facts, which compare like any other value.
"""

import os
import re
import subprocess

MAX_ROUNDS = 8


class Item:
    """One probe item: `key` identifies the fact, `text` is its source (one or more lines)."""

    def __init__(self, key, text):
        self.key = key
        self.text = text.rstrip("\n")


class ProbeResult:
    def __init__(self):
        self.ok = False            # the final source compiled (and ran, if asked)
        self.output = ""           # stdout of the probe binary
        self.dropped = {}          # key -> first diagnostic line that mentioned the item
        self.fatal = ""            # diagnostics we could not attribute to an item


def _layout(prelude, items, epilogue):
    """Return (source, ranges) where ranges[i] = (first_line, last_line) of items[i]."""
    lines = prelude.rstrip("\n").split("\n")
    ranges = []
    for item in items:
        first = len(lines) + 1
        lines.extend(item.text.split("\n"))
        ranges.append((first, len(lines)))
    lines.extend(epilogue.rstrip("\n").split("\n"))
    return "\n".join(lines) + "\n", ranges


DIAG_RE = re.compile(r"^(.*?):(\d+):(?:\d+:)? (fatal error|error|warning|note): ")


def _lines_blamed(stderr, basename):
    """Line numbers of our probe file named by an error or by the notes that follow it.

    gcc reports an error inside a header's macro at the header line and then adds
    "note: in expansion of macro ..." at our line, so notes count; warnings do not.
    """
    blamed, in_error = set(), False
    for line in stderr.splitlines():
        m = DIAG_RE.match(line)
        if not m:
            continue
        severity = m.group(3)
        if severity != "note":
            in_error = severity in ("error", "fatal error")
        if in_error and os.path.basename(m.group(1)) == basename:
            blamed.add(int(m.group(2)))
    return blamed


def _first_diag(stderr, basename, first, last):
    pat = re.compile(re.escape(basename) + r":(\d+):\d+: (.*)")
    for m in pat.finditer(stderr):
        if first <= int(m.group(1)) <= last:
            return m.group(2).strip()
    return "compile error"


def compile_source(cmd, cwd, timeout=120):
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, errors="replace", timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


def run_probe(workdir, name, compiler_cmd, prelude, items, epilogue, run):
    """Compile (and optionally run) a probe, dropping items that fail to compile.

    compiler_cmd: list of compiler arguments *without* the source and output paths.
    run: when True the probe is linked and executed, and its stdout returned.
    """
    res = ProbeResult()
    live = list(items)
    src_name = name
    src_path = os.path.join(workdir, src_name)
    exe_path = os.path.join(workdir, name + ".bin")
    for _ in range(MAX_ROUNDS):
        source, ranges = _layout(prelude, live, epilogue)
        with open(src_path, "w") as fh:
            fh.write(source)
        if run:
            cmd = compiler_cmd + [src_name, "-o", exe_path]
        else:
            cmd = compiler_cmd + ["-fsyntax-only", src_name]
        rc, diag = compile_source(cmd, workdir)
        if rc == 0:
            res.ok = True
            break
        blamed = _lines_blamed(diag, src_name)
        keep, dropped_any = [], False
        for item, (first, last) in zip(live, ranges):
            if any(first <= ln <= last for ln in blamed):
                res.dropped[item.key] = _first_diag(diag, src_name, first, last)
                dropped_any = True
            else:
                keep.append(item)
        if not dropped_any:
            # The headers themselves (or the prelude) fail: nothing we can attribute.
            res.fatal = diag[-4000:]
            return res
        live = keep
    if not res.ok:
        res.fatal = "probe still failing after %d rounds" % MAX_ROUNDS
        return res
    if run:
        proc = subprocess.run([exe_path], cwd=workdir, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, errors="replace", timeout=60)
        if proc.returncode != 0:
            res.ok = False
            res.fatal = "probe binary exited %d: %s" % (proc.returncode, proc.stderr[-2000:])
        res.output = proc.stdout
    return res


def parse_output(text):
    """Probe binaries print one `key<TAB>value` line per fact."""
    facts = {}
    for line in text.splitlines():
        if "\t" in line:
            key, value = line.split("\t", 1)
            facts[key] = value
    return facts
