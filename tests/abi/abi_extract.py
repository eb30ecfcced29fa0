"""Extract ABI/API facts from one directory of PMIx headers.

A *fact* is a `(kind, name) -> value` pair, e.g. ("field", "pmix_value_t.data.string") ->
"offset=8 size=8". Two header directories are compatible when they yield the same facts.

Where the facts come from:
  * names of macros and their parameter lists: the preprocessor (`cc -E -dD`), keeping only
    definitions whose line markers point into the header directory;
  * declarations (typedefs, records and their fields, enumerators, functions, variables) and
    their spelled types: clang's JSON AST, again filtered by file;
  * C linkage: clang's JSON AST of the same headers compiled as C++ (extern "C" blocks);
  * values, sizes, offsets, initialiser bytes: generated C probes built and run with gcc;
  * canonical (typedef-free) types: a generated C++ probe printing demangled typeid names.
"""

import json
import os
import re
import subprocess
import sys

PREFERRED_ORDER = ["pmix.h", "pmix_server.h", "pmix_tool.h"]

# *_STATIC_INIT macros whose struct type is not pmix_<lowercased stem>_t.
STATIC_INIT_TYPES = {
    "PMIX_LOOKUP_STATIC_INIT": "pmix_pdata_t",
    "PMIX_DEVICE_DIST_STATIC_INIT": "pmix_device_distance_t",
}

UNNAMED_RE = re.compile(r"\((unnamed|anonymous) (struct|union|enum) at [^)]*\)")


def norm_type(spelled):
    """Spelled type with whitespace collapsed and file positions of unnamed tags removed."""
    if spelled is None:
        return None
    text = UNNAMED_RE.sub(lambda m: "(unnamed %s)" % m.group(2), spelled)
    # clang prints C's boolean as "bool" or "_Bool" depending on internal printing-policy
    # state, not on the headers; both name the same type.
    text = re.sub(r"\b_Bool\b", "bool", text)
    return re.sub(r"\s+", " ", text).strip()


def header_list(incdir):
    names = sorted(n for n in os.listdir(incdir)
                   if n.endswith(".h") and os.path.isfile(os.path.join(incdir, n)))
    first = [n for n in PREFERRED_ORDER if n in names]
    return first + [n for n in names if n not in first]


def umbrella(headers):
    return "".join("#include <%s>\n" % h for h in headers)


class Tools:
    def __init__(self, cc="gcc", cxx="g++", clang="clang"):
        self.cc, self.cxx, self.clang = cc, cxx, clang


class Facts:
    """The facts of one header directory plus what went wrong while extracting them."""

    def __init__(self):
        self.values = {}      # (kind, name) -> value
        self.why = {}         # (kind, name) -> diagnostic explaining an "n/a" value
        self.problems = []    # extraction problems that are not facts
        self.notes = []       # informational remarks (patched reference defects, ...)
        self.failed = {}      # probe label -> (fact kinds it would have produced, first error)

    def put(self, kind, name, value):
        self.values[(kind, name)] = value


# --------------------------------------------------------------------------- preprocessor

DEFINE_RE = re.compile(r"#define (\w+)(\(([^)]*)\))?(?: (.*))?$")
MARKER_RE = re.compile(r'# \d+ "([^"]*)"')


def _in_dir(path, incdir):
    if not path or path.startswith("<"):
        return False
    return os.path.realpath(path).startswith(incdir + os.sep)


def macros(tools, incdir, workdir, headers, cxx=False):
    """name -> (params or None, body) for every macro the header directory defines."""
    src = os.path.join(workdir, "umbrella_pp.cpp" if cxx else "umbrella_pp.c")
    with open(src, "w") as fh:
        fh.write(umbrella(headers))
    cmd = [tools.cxx if cxx else tools.cc, "-E", "-dD", "-I", incdir,
           "-std=c++17" if cxx else "-std=gnu11", src]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace", timeout=120)
    found, current = {}, None
    for line in proc.stdout.splitlines():
        m = MARKER_RE.match(line)
        if m:
            current = m.group(1)
            continue
        if not _in_dir(current, incdir):
            continue
        if line.startswith("#define "):
            d = DEFINE_RE.match(line)
            if d:
                params = None
                if d.group(2) is not None:
                    params = [p.strip() for p in d.group(3).split(",") if p.strip()]
                found[d.group(1)] = (params, (d.group(4) or "").strip())
        elif line.startswith("#undef "):
            found.pop(line.split()[1], None)
    return found, proc.returncode, proc.stderr


def macro_signature(params):
    if params is None:
        return "object-like"
    variadic = bool(params) and params[-1].endswith("...")
    fixed = len(params) - (1 if variadic else 0)
    return "function(%d%s)" % (fixed, ", ..." if variadic else "")


# --------------------------------------------------------------------------- clang AST

class AstDecl:
    def __init__(self, node, file, c_linkage):
        self.node, self.file, self.c_linkage = node, file, c_linkage
        self.kind, self.name = node.get("kind"), node.get("name")


class _AstWalker:
    """Walks clang's JSON AST in document order.

    clang writes a location's "file" only when it differs from the previously written one,
    so the file of a node is only known by replaying every location in order.
    """

    def __init__(self, incdir):
        self.incdir = incdir
        self.last_file = None
        self.decls = []

    def _track(self, obj):
        if isinstance(obj, dict):
            for key, val in obj.items():
                if key == "includedFrom":
                    continue
                if key == "file":
                    self.last_file = val
                elif key != "inner":
                    self._track(val)
        elif isinstance(obj, list):
            for val in obj:
                self._track(val)

    def walk(self, node, depth, c_linkage):
        self._track(node.get("loc"))
        file = self.last_file
        self._track(node.get("range"))
        top = depth == 1
        if top and node.get("kind") != "LinkageSpecDecl" and _in_dir(file, self.incdir):
            self.decls.append(AstDecl(node, file, c_linkage))
        inner = node.get("inner")
        if isinstance(inner, list):
            is_spec = node.get("kind") == "LinkageSpecDecl"
            child_depth = depth if is_spec else depth + 1
            child_c = (node.get("language") == "C") if is_spec else c_linkage
            for child in inner:
                self.walk(child, child_depth, child_c)


def ast_decls(tools, incdir, workdir, headers, cxx=False):
    src = os.path.join(workdir, "umbrella_ast.cpp" if cxx else "umbrella_ast.c")
    with open(src, "w") as fh:
        fh.write(umbrella(headers))
    lang = ["-x", "c++", "-std=c++17"] if cxx else ["-x", "c", "-std=gnu11"]
    cmd = [tools.clang, "-fsyntax-only", "-Xclang", "-ast-dump=json", "-I", incdir] + lang + [src]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace", timeout=120)
    try:
        tree = json.loads(proc.stdout)
    except ValueError:
        return [], "clang produced no AST: " + proc.stderr[-2000:]
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20000))
    walker = _AstWalker(incdir)
    try:
        walker.walk(tree, 0, False)
    finally:
        sys.setrecursionlimit(old)
    err = proc.stderr[-2000:] if proc.returncode != 0 else ""
    return walker.decls, err


def _tag_target(node):
    """The RecordDecl/EnumDecl id a typedef names directly (not through a pointer)."""
    for child in node.get("inner", []) or []:
        for key in ("ownedTagDecl", "decl"):
            ref = child.get(key)
            if isinstance(ref, dict) and ref.get("kind") in ("RecordDecl", "EnumDecl"):
                return ref.get("id")
        if child.get("kind") in ("ElaboratedType", "RecordType", "EnumType"):
            got = _tag_target(child)
            if got:
                return got
    return None


def _fields(record, prefix, out):
    """(path, spelled type) of every member, descending into unnamed nested records."""
    nested = None
    for child in record.get("inner", []) or []:
        kind = child.get("kind")
        if kind == "RecordDecl":
            nested = child
        elif kind == "FieldDecl":
            name = child.get("name", "")
            spelled = child.get("type", {}).get("qualType", "")
            path = prefix + name if name else prefix.rstrip(".")
            if name:
                out.append((path, norm_type(spelled)))
            if nested is not None and UNNAMED_RE.search(spelled or ""):
                _fields(nested, (path + ".") if path else "", out)
            nested = None
    return out


class Decls:
    """Declarations of one header directory, organised for fact extraction."""

    def __init__(self):
        self.typedefs = {}    # name -> spelled underlying type
        self.records = {}     # display name -> list of (path, spelled)
        self.record_tags = {} # display name -> "struct tag" or "" for unnamed
        self.enum_consts = []
        self.functions = {}   # name -> dict(type, storage, attrs)
        self.variables = {}   # name -> spelled type


def organise(decls):
    out = Decls()
    tag_nodes, typedef_target = {}, {}
    for d in decls:
        node = d.node
        if d.kind == "TypedefDecl":
            out.typedefs[d.name] = norm_type(node.get("type", {}).get("qualType"))
            spelled = out.typedefs[d.name] or ""
            if re.match(r"(struct|union|enum) ", spelled):
                tid = _tag_target(node)
                if tid and tid not in typedef_target:
                    typedef_target[tid] = d.name
        elif d.kind == "RecordDecl" and node.get("completeDefinition"):
            tag_nodes[node["id"]] = node
        elif d.kind == "EnumDecl":
            for child in node.get("inner", []) or []:
                if child.get("kind") == "EnumConstantDecl":
                    out.enum_consts.append(child["name"])
        elif d.kind == "FunctionDecl":
            _add_function(out, node)
        elif d.kind == "VarDecl":
            out.variables[d.name] = "%s %s" % (node.get("storageClass", "none"),
                                               norm_type(node.get("type", {}).get("qualType")))
    for rid, node in tag_nodes.items():
        tag = "%s %s" % (node.get("tagUsed", "struct"), node["name"]) if node.get("name") else ""
        display = typedef_target.get(rid) or tag
        if not display:
            continue
        out.records[display] = _fields(node, "", [])
        out.record_tags[display] = tag
    return out


def _add_function(out, node):
    name = node["name"]
    inner = node.get("inner", []) or []
    attrs = sorted({c["kind"][:-4] for c in inner if c.get("kind", "").endswith("Attr")})
    has_body = any(c.get("kind") == "CompoundStmt" for c in inner)
    prev = out.functions.get(name)
    info = prev or {"type": norm_type(node.get("type", {}).get("qualType")),
                    "storage": node.get("storageClass", "extern"), "inline": False,
                    "defined": False, "attrs": set(), "variadic": node.get("variadic", False)}
    info["inline"] = info["inline"] or bool(node.get("inline"))
    info["defined"] = info["defined"] or has_body
    info["attrs"].update(attrs)
    out.functions[name] = info
