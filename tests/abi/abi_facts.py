"""Turn the declarations and macros of one header directory into comparable facts.

Fact kinds (the first column of every difference line):
  macro            object-like / function(N[, ...])   every macro name and its parameter count
  macro.params     the parameter names of a function-like macro, as written
  macro.value      C type and value of an object-like macro (integer, floating or string);
                   "n/a" when it is not an expression (attributes, initialisers, guards)
  macro.const      for integer macros: usable as an integer constant expression and in #if
  macro.lang       a macro defined only when compiling as C, or only as C++
  static-init      the bytes of a static object initialised with a *_STATIC_INIT macro
  enum-const       C type and value of an enumerator
  typedef          spelled underlying type of every typedef
  typedef.size     sizeof / _Alignof of every typedef'd type
  typedef.canon    canonical type (C++ typeid, demangled): all typedefs resolved
  record.tag       the struct/union tag behind a typedef'd record (C++ mangling uses it)
  field            offset and size of every member (nested unnamed members as a.b)
  field.type       spelled type of every member
  field.canon      canonical type of every member
  function         spelled prototype type of every declared function
  function.decl    storage class, inline, defined-in-header, attributes (visibility, ...)
  function.canon   canonical prototype type
  function.linkage "C" when declared inside extern "C" when compiled as C++
  var / var.canon  declared variables (extern char **environ)
"""

import os
import re

import abi_extract
import abi_probe

C_PRELUDE_HELPERS = r"""
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static void abi_int_(const char *k, const char *t, long long s, unsigned long long u)
{
    if (t[0] == 'u' || t[0] == '_')
        printf("%s\t%s %llu\n", k, t, u);
    else
        printf("%s\t%s %lld\n", k, t, s);
}

static void abi_flt_(const char *k, const char *t, long double v)
{
    printf("%s\t%s %La\n", k, t, v);
}

static void abi_str_(const char *k, const char *t, const char *s, size_t n)
{
    printf("%s\t%s \"", k, t);
    for (size_t i = 0; i + 1 < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\' || c == '"')
            printf("\\%c", c);
        else if (c < 32 || c > 126)
            printf("\\x%02x", c);
        else
            putchar(c);
    }
    printf("\" (%zu bytes)\n", n);
}

static void abi_bytes_(const char *k, const char *t, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    printf("%s\t%s size=%zu nonzero=[", k, t, n);
    int first = 1;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && b[j] == b[i])
            ++j;
        if (b[i] != 0) {
            printf(first ? "%zu-%zu:%02x" : " %zu-%zu:%02x", i, j - 1, b[i]);
            first = 0;
        }
        i = j;
    }
    printf("]\n");
}

#define ABI_TNAME(x) _Generic((x), _Bool: "_Bool", char: "char", signed char: "signed char", \
    unsigned char: "unsigned char", short: "short", unsigned short: "unsigned short",       \
    int: "int", unsigned int: "unsigned int", long: "long", unsigned long: "unsigned long",  \
    long long: "long long", unsigned long long: "unsigned long long", float: "float",       \
    double: "double", long double: "long double", char *: "string", const char *: "string", \
    default: "other")
#define ABI_KIND(x) _Generic((x), float: 2, double: 2, long double: 2, char *: 3,            \
    const char *: 3, _Bool: 1, char: 1, signed char: 1, unsigned char: 1, short: 1,         \
    unsigned short: 1, int: 1, unsigned int: 1, long: 1, unsigned long: 1, long long: 1,    \
    unsigned long long: 1, default: 0)
#define ABI_AS_NUM(x) _Generic((x), char *: 0, const char *: 0, default: (x))
#define ABI_AS_STR(x) _Generic((x), char *: (x), const char *: (x), default: (const char *)0)
#define ABI_VALUE(k, x) do { switch (ABI_KIND(x)) {                                         \
    case 1: abi_int_(k, ABI_TNAME(x), (long long)ABI_AS_NUM(x),                             \
                     (unsigned long long)ABI_AS_NUM(x)); break;                             \
    case 2: abi_flt_(k, ABI_TNAME(x), (long double)ABI_AS_NUM(x)); break;                   \
    case 3: abi_str_(k, ABI_TNAME(x), ABI_AS_STR(x), sizeof(x)); break;                     \
    default: printf("%s\tother\n", k); } } while (0)
#define ABI_SIZE(k, T) printf("%s\tsize=%zu align=%zu\n", k, sizeof(T), _Alignof(T))
#define ABI_FIELD(k, T, m) printf("%s\toffset=%zu size=%zu\n", k, offsetof(T, m),            \
                                  sizeof(((T *)0)->m))
"""

CXX_PRELUDE_HELPERS = r"""
#include <cstdio>
#include <cstdlib>
#include <typeinfo>
#include <cxxabi.h>

static void abi_t_(const char *k, const std::type_info &ti)
{
    int st = 0;
    char *d = abi::__cxa_demangle(ti.name(), nullptr, nullptr, &st);
    std::printf("%s\t%s\n", k, (st == 0 && d) ? d : ti.name());
    std::free(d);
}
"""


def _key(kind, name):
    return "%s %s" % (kind, name)


def _split_key(key):
    kind, name = key.split(" ", 1)
    return kind, name


def static_init_type(macro, typedefs):
    """The struct type a *_STATIC_INIT macro initialises, or None when unknown."""
    if macro in abi_extract.STATIC_INIT_TYPES:
        return abi_extract.STATIC_INIT_TYPES[macro]
    stem = macro[len("PMIX_"):-len("_STATIC_INIT")].lower()
    guess = "pmix_%s_t" % stem
    return guess if guess in typedefs else None


# Defects of the reference headers that would otherwise hide a fact. Each entry patches the
# macro *for probing only*, and only when the defective text is actually present, so a fixed
# implementation is compared against what the reference evidently intended.
REFERENCE_FIXUPS = [
    ("PMIX_PROC_STATS_STATIC_INIT", r"(\.peak_vsize = 0\.0)\s+(\.processor)", r"\1, \2",
     "OpenPMIx 4.2.2 lacks the comma after .peak_vsize, so the macro does not compile"),
]


class Extractor:
    """Runs every extraction step for one include directory."""

    def __init__(self, tools, incdir, workdir):
        self.tools = tools
        self.incdir = os.path.realpath(incdir)
        self.workdir = workdir
        self.headers = abi_extract.header_list(self.incdir)
        self.facts = abi_extract.Facts()
        os.makedirs(workdir, exist_ok=True)

    # ------------------------------------------------------------------ driver
    def run(self):
        if not self.headers:
            self.facts.problems.append("no headers in %s" % self.incdir)
            return self.facts
        self._macros()
        self._declarations()
        self._c_probe()
        self._const_checks()
        self._cxx_probe()
        return self.facts

    def _c_flags(self):
        return [self.tools.cc, "-std=gnu11", "-I", self.incdir, "-fmax-errors=0", "-w"]

    def _cxx_flags(self):
        return [self.tools.cxx, "-std=c++17", "-I", self.incdir, "-fmax-errors=0", "-w"]

    # ------------------------------------------------------------------ macros
    def _macros(self):
        tools, inc, wd = self.tools, self.incdir, self.workdir
        self.macros, rc, err = abi_extract.macros(tools, inc, wd, self.headers)
        if rc != 0:
            self.facts.problems.append("C preprocessing failed: " + err[-1500:])
        cxx_macros, rc, err = abi_extract.macros(tools, inc, wd, self.headers, cxx=True)
        if rc != 0:
            self.facts.problems.append("C++ preprocessing failed: " + err[-1500:])
        for name, (params, _body) in self.macros.items():
            self.facts.put("macro", name, abi_extract.macro_signature(params))
            if params is not None:
                self.facts.put("macro.params", name, "(%s)" % ", ".join(params))
        for name in set(self.macros) - set(cxx_macros):
            self.facts.put("macro.lang", name, "C only")
        for name in set(cxx_macros) - set(self.macros):
            self.facts.put("macro.lang", name, "C++ only")

    # ------------------------------------------------------------------ declarations
    def _declarations(self):
        decls, err = abi_extract.ast_decls(self.tools, self.incdir, self.workdir, self.headers)
        if err:
            self.facts.problems.append("clang (C) reported errors: " + err)
        self.decls = abi_extract.organise(decls)
        f = self.facts
        for name, spelled in self.decls.typedefs.items():
            f.put("typedef", name, spelled)
        for name, tag in self.decls.record_tags.items():
            f.put("record.tag", name, tag or "(unnamed)")
        for rec, fields in self.decls.records.items():
            for path, spelled in fields:
                f.put("field.type", "%s.%s" % (rec, path), spelled)
        for name, info in self.decls.functions.items():
            f.put("function", name, info["type"])
            words = [info["storage"]]
            if info["inline"]:
                words.append("inline")
            if info["defined"]:
                words.append("defined-in-header")
            words += sorted(info["attrs"])
            f.put("function.decl", name, " ".join(words))
        for name, spelled in self.decls.variables.items():
            f.put("var", name, spelled)
        cdecls, err = abi_extract.ast_decls(self.tools, self.incdir, self.workdir,
                                            self.headers, cxx=True)
        if err:
            self.facts.problems.append("clang (C++) reported errors: " + err)
        for d in cdecls:
            if d.kind in ("FunctionDecl", "VarDecl") and d.name:
                kind = "function.linkage" if d.kind == "FunctionDecl" else "var.linkage"
                f.put(kind, d.name, "C" if d.c_linkage else "C++")

    # ------------------------------------------------------------------ C probe
    def _c_items(self):
        items = []
        for name, (params, body) in sorted(self.macros.items()):
            if params is not None or not body:
                continue
            if name.endswith("_STATIC_INIT"):
                tname = static_init_type(name, self.decls.typedefs)
                if tname:
                    items.append(abi_probe.Item(_key("static-init", name),
                        '{ static %s abi_v_ = %s; abi_bytes_("static-init %s", "%s", &abi_v_, '
                        'sizeof abi_v_); }' % (tname, name, name, tname)))
                else:
                    self.facts.put("static-init", name, "type unknown")
                continue
            items.append(abi_probe.Item(_key("macro.value", name),
                                        'ABI_VALUE("macro.value %s", %s);' % (name, name)))
        for name in self.decls.enum_consts:
            items.append(abi_probe.Item(_key("enum-const", name),
                                        'ABI_VALUE("enum-const %s", %s);' % (name, name)))
        for name in sorted(self.decls.typedefs):
            items.append(abi_probe.Item(_key("typedef.size", name),
                                        'ABI_SIZE("typedef.size %s", %s);' % (name, name)))
        for rec, fields in sorted(self.decls.records.items()):
            for path, _spelled in fields:
                full = "%s.%s" % (rec, path)
                items.append(abi_probe.Item(_key("field", full),
                             'ABI_FIELD("field %s", %s, %s);' % (full, rec, path)))
        return items

    def _fixups(self):
        """#undef/#define lines repairing known reference defects present in these headers."""
        text = ""
        for name, pattern, repl, reason in REFERENCE_FIXUPS:
            params, body = self.macros.get(name, (None, ""))
            if params is None and re.search(pattern, body):
                text += "#undef %s\n#define %s %s\n" % (name, name, re.sub(pattern, repl, body))
                self.patched[name] = reason
        return text

    def _c_probe(self):
        self.patched = {}
        prelude = (C_PRELUDE_HELPERS + abi_extract.umbrella(self.headers) + self._fixups() +
                   "int main(void)\n{\n")
        items = self._c_items()
        res = abi_probe.run_probe(self.workdir, "probe_c.c", self._c_flags(), prelude, items,
                                  "return 0;\n}\n", run=True)
        self._absorb(res, items, "C value probe")
        for name, reason in self.patched.items():
            self.facts.notes.append("reference defect in %s patched for probing: %s"
                                    % (name, reason))
            self.facts.why[("static-init", name)] = "patched: " + reason

    def _probe_failed(self, label, fatal, kinds):
        """A probe that failed as a whole: its facts are unknown, not different."""
        self.facts.problems.append("%s failed: %s" % (label, fatal))
        first = next((ln.strip() for ln in fatal.splitlines() if "error" in ln), "")
        first = first.replace(self.incdir + "/", "")
        self.facts.failed[label] = (set(kinds), first or fatal.strip()[:200])

    def _absorb(self, res, items, label):
        if res.fatal and not res.ok:
            self._probe_failed(label, res.fatal, {_split_key(i.key)[0] for i in items})
            return {}
        if res.fatal:
            self.facts.problems.append("%s failed: %s" % (label, res.fatal))
        got = abi_probe.parse_output(res.output)
        for item in items:
            kind, name = _split_key(item.key)
            if item.key in got:
                self.facts.put(kind, name, got[item.key])
            elif item.key in res.dropped:
                self.facts.put(kind, name, "n/a")
                self.facts.why[(kind, name)] = res.dropped[item.key]
            elif res.ok:
                self.facts.put(kind, name, "no output")
        return got

    # ------------------------------------------------------------------ ICE / #if checks
    def _const_checks(self):
        if "C value probe" in self.facts.failed:
            # these checks start from the values that probe would have found
            self.facts.failed["C value probe"][0].add("macro.const")
            return
        items = []
        for (kind, name), value in sorted(self.facts.values.items()):
            if kind != "macro.value":
                continue
            ctype, _, number = value.rpartition(" ")
            if ctype in ("", "string", "other", "float", "double", "long double") or \
                    not number.lstrip("-").isdigit():
                continue
            unsigned = ctype.startswith("unsigned") or ctype == "_Bool"
            literal = "%sULL" % number if unsigned else "(%sLL)" % number
            items.append(abi_probe.Item("ice " + name,
                "enum { abi_ice_%s = (int)((%s) ? 1 : 0) };" % (name, name)))
            items.append(abi_probe.Item("pp " + name,
                "#if !((%s) == %s)\n#error ABI_PP_MISMATCH\n#endif" % (name, literal)))
        if not items:
            return
        prelude = abi_extract.umbrella(self.headers) + '#pragma GCC diagnostic error "-Wpedantic"\n'
        flags = [self.tools.cc, "-std=gnu11", "-I", self.incdir, "-fmax-errors=0"]
        res = abi_probe.run_probe(self.workdir, "probe_const.c", flags, prelude, items, "",
                                  run=False)
        if res.fatal:
            self._probe_failed("constant-expression probe", res.fatal, {"macro.const"})
            return
        names = sorted({it.key.split(" ", 1)[1] for it in items})
        for name in names:
            ice = ("ice " + name) not in res.dropped
            pp = ("pp " + name) not in res.dropped
            value = {(True, True): "ICE, #if", (True, False): "ICE only",
                     (False, True): "#if only", (False, False): "neither"}[(ice, pp)]
            self.facts.put("macro.const", name, value)
            if not (ice and pp):
                self.facts.why[("macro.const", name)] = res.dropped.get(
                    "pp " + name, res.dropped.get("ice " + name, ""))

    # ------------------------------------------------------------------ C++ canonical types
    def _cxx_items(self):
        items = []
        for name in sorted(self.decls.typedefs):
            items.append(abi_probe.Item(_key("typedef.canon", name),
                         'abi_t_("typedef.canon %s", typeid(%s));' % (name, name)))
        for rec, fields in sorted(self.decls.records.items()):
            for path, _spelled in fields:
                full = "%s.%s" % (rec, path)
                items.append(abi_probe.Item(_key("field.canon", full),
                    'abi_t_("field.canon %s", typeid(decltype(((%s *)nullptr)->%s)));'
                    % (full, rec, path)))
        for name in sorted(self.decls.functions):
            items.append(abi_probe.Item(_key("function.canon", name),
                         'abi_t_("function.canon %s", typeid(decltype(%s)));' % (name, name)))
        for name in sorted(self.decls.variables):
            items.append(abi_probe.Item(_key("var.canon", name),
                         'abi_t_("var.canon %s", typeid(decltype(%s)));' % (name, name)))
        return items

    def _cxx_probe(self):
        prelude = CXX_PRELUDE_HELPERS + abi_extract.umbrella(self.headers) + "int main()\n{\n"
        items = self._cxx_items()
        res = abi_probe.run_probe(self.workdir, "probe_cxx.cpp", self._cxx_flags(), prelude,
                                  items, "return 0;\n}\n", run=True)
        self._absorb(res, items, "C++ canonical-type probe")


def extract(tools, incdir, workdir):
    return Extractor(tools, incdir, workdir).run()
