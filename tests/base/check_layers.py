#!/usr/bin/env python3
"""Include and call rules of the source tree (docs/architecture.md).

usage: check_layers.py [SOURCE_DIR]     (default: the repository holding this file)
       check_layers.py --self-test      (the checks find planted violations in a small tree)

Checks, over src/, tools/ and include/skinfit/:
  1. every public header include/skinfit/X.h belongs to one folder (HEADER_FOLDER below);
  2. every #include "..." of a file in folder F names a header of F itself or of a folder
     that F may use (ALLOWED below); a public header counts as a file of its folder;
  3. no cycle between source files: file a.c -> b.c when a.c uses a function that b.c
     defines (non-static) and a header declares; every strongly connected component
     with more than one file is reported;
  4. no string literal of the library (src/) names a command-line flag ("--max-sweeps"):
     library texts name option fields, tools/ maps them to flags;
  5. names (docs/conventions.md): a function src/ defines non-static is public (declared in
     include/skinfit/, prefix skf_) or an internal cross-file helper (prefix skfi_).
Prints one line per violation and exits 1 when there is any, 0 otherwise.
"""
import os
import re
import sys

# Which folder a public header belongs to: the folder whose sources define its functions.
HEADER_FOLDER = {
    "base.h": "base", "math.h": "base", "hash.h": "base",
    "gltf.h": "io", "meshseq.h": "io",
    "rig.h": "rig", "creature.h": "rig",
    "solve.h": "solve",
    "surface.h": "surface",
    "transfer.h": "transfer",
    "report.h": "report",
    "render.h": "render", "image.h": "render",
    "decompose.h": "decompose",
    "svg.h": "svg",
    "batch.h": "batch",
    "skinfit.h": "umbrella",   # everything; for programs (tools/, tests/), never for the library
}

# Folder -> the folders it may include (besides itself). Calls go down, never up:
#   base < io < rig < {solve, surface} < transfer < report < tools,
#   with render, decompose, svg and batch beside the chain.
ALLOWED = {
    "base": [],
    "io": ["base"],
    "rig": ["base", "io"],
    "solve": ["base"],
    "surface": ["base"],
    "transfer": ["base", "io", "rig", "solve", "surface"],
    "report": ["base", "io", "rig", "solve", "surface", "transfer", "render"],
    "render": ["base"],
    "decompose": ["base", "io", "rig", "solve"],
    "svg": ["base", "render"],
    "batch": ["base", "io"],
    "tools": ["base", "io", "rig", "solve", "surface", "transfer", "report", "render",
              "decompose", "svg", "batch", "umbrella"],
    "umbrella": ["base", "io", "rig", "solve", "surface", "transfer", "report", "render",
                 "decompose", "svg", "batch"],
}

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def folder_of(rel):
    """Folder of a repository-relative path, or None when the rules do not cover it."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] == "tools":
        return "tools"
    if parts[0] == "include" and len(parts) == 3:
        return HEADER_FOLDER.get(parts[2], "?")
    return None


def resolve(root, rel, name):
    """Repository-relative path of an included header: next to the includer, then src/,
    include/ (the build's include directories)."""
    for base in (os.path.dirname(rel), "src", "include"):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def strip_code(text, literals=None):
    """C text without comments, string/char literals and preprocessor lines; the string
    literals (with their line numbers) are appended to literals when given."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if c == '"' and literals is not None:
                literals.append((text.count("\n", 0, i) + 1, text[i + 1:j]))
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    lines = "".join(out).split("\n")
    keep, cont = [], False
    for line in lines:   # drop preprocessor lines (with continuations)
        is_pp = cont or line.lstrip().startswith("#")
        cont = is_pp and line.endswith("\\")
        keep.append("" if is_pp else line)
    return "\n".join(keep)


TOKEN = re.compile(r"[A-Za-z_]\w*|\S")


def definitions_and_uses(code):
    """(non-static function names defined at file scope, identifiers used inside bodies)."""
    defined, used = set(), set()
    toks = TOKEN.findall(code)
    depth, paren, decl = 0, 0, []
    i = 0
    while i < len(toks):
        t = toks[i]
        if depth == 0:
            if t == "{" and paren == 0:
                # a function body when the declaration reads "name ( ... )" at its end
                if decl and decl[-1] == ")":
                    k, p = len(decl) - 1, 0
                    while k >= 0:
                        p += decl[k] == ")"
                        p -= decl[k] == "("
                        if p == 0:
                            break
                        k -= 1
                    if k > 0 and re.match(r"[A-Za-z_]\w*$", decl[k - 1]) and "static" not in decl \
                            and "=" not in decl:
                        defined.add(decl[k - 1])
                depth = 1
                decl = []
            elif t in ";}" and paren == 0:
                decl = []
            else:
                paren += (t == "(") - (t == ")")
                decl.append(t)
        else:
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0:
                    decl = []
            elif re.match(r"[A-Za-z_]\w*$", t):
                used.add(t)
        i += 1
    return defined, used


def sources(root):
    for top in ("src", "tools", "include"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h", ".def")):
                    yield os.path.relpath(os.path.join(d, f), root)


def strongly_connected(graph):
    """Tarjan's algorithm (iterative); returns the components with more than one node."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def check(root):
    """Violation lines for the tree at root, and the number of files and call edges."""
    bad = []
    for comp in strongly_connected({k: set(v) for k, v in ALLOWED.items()}):
        bad.append("ALLOWED has a cycle between folders: " + ", ".join(comp))
    for f in sorted(os.listdir(os.path.join(root, "include", "skinfit"))):
        if f.endswith(".h") and f not in HEADER_FOLDER:
            bad.append(f"include/skinfit/{f}: public header not in HEADER_FOLDER (tests/base/check_layers.py)")

    files = list(sources(root))
    declared = set()   # function names declared in any header
    defs, uses = {}, {}
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        src = folder_of(rel)
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            if rel.endswith(".def") or name.endswith(".def"):
                continue
            target = resolve(root, rel, name)
            line = text.count("\n", 0, m.start()) + 1
            if target is None:
                bad.append(f"{rel}:{line}: #include \"{name}\": not found in the tree")
                continue
            dst = folder_of(target)
            if src is None or dst is None or dst == src:
                continue
            if src not in ALLOWED:
                bad.append(f"{rel}:{line}: folder '{src}' has no row in ALLOWED")
            elif dst not in ALLOWED[src]:
                bad.append(f"{rel}:{line}: #include \"{name}\": {src} may not use {dst} "
                           f"(allowed: {', '.join(ALLOWED[src]) or 'nothing'})")
        literals = []
        code = strip_code(text, literals)
        if src not in (None, "tools"):
            for line, lit in literals:
                flag = FLAG.search(lit)
                if flag:
                    bad.append(f"{rel}:{line}: library text names the command-line flag '{flag.group(0)}' "
                               f"(name the option field; tools/ maps it to the flag)")
        if rel.endswith(".h"):
            declared |= set(re.findall(r"([A-Za-z_]\w*)\s*\(", code))
        elif rel.endswith(".c"):
            defs[rel], uses[rel] = definitions_and_uses(code)

    public = set()
    for f in sorted(os.listdir(os.path.join(root, "include", "skinfit"))):
        if f.endswith(".h"):
            with open(os.path.join(root, "include", "skinfit", f), encoding="utf-8", errors="replace") as fh:
                public |= set(re.findall(r"([A-Za-z_]\w*)\s*\(", strip_code(fh.read())))
    for rel, names in sorted(defs.items()):
        if not rel.startswith("src/"):
            continue
        for n in sorted(names):
            if n in public and not n.startswith("skf_"):
                bad.append(f"{rel}: public function {n} lacks the prefix skf_")
            elif n not in public and not n.startswith("skfi_"):
                bad.append(f"{rel}: {n} is neither public (include/skinfit/) nor named skfi_ "
                           f"(internal cross-file helper) nor static")

    definer = {}
    for rel, names in defs.items():
        for n in names & declared:
            definer.setdefault(n, rel)
    graph = {rel: set() for rel in defs}
    why = {}
    for rel, names in uses.items():
        for n in names:
            d = definer.get(n)
            if d and d != rel:
                graph[rel].add(d)
                why.setdefault((rel, d), n)
    for comp in strongly_connected(graph):
        members = set(comp)
        edges = [f"{a} -> {b} ({why[(a, b)]})" for a in comp for b in sorted(graph[a]) if b in members]
        bad.append("cycle between source files: " + "; ".join(edges))

    return bad, len(files), sum(len(g) for g in graph.values())


def self_test():
    """Plant one violation of each kind in a temporary tree; each must be reported."""
    import tempfile
    tree = {
        "include/skinfit/base.h": "int skf_base(void);\n",
        "include/skinfit/gltf.h": '#include "skinfit/base.h"\nint skf_gltf(void);\n',
        "include/skinfit/solve.h": '#include "skinfit/base.h"\nint skf_solve(void);\n',
        "include/skinfit/odd.h": "int skf_odd(void);\n",
        "src/base/base.c": '#include "skinfit/base.h"\nint skf_base(void) { return 0; }\n',
        "src/io/gltf.c": '#include "skinfit/gltf.h"\nint skf_gltf(void) { return skf_base(); }\n',
        "src/solve/a.c": '#include "solve_internal.h"\n#include "skinfit/gltf.h"  /* planted */\n'
                         'int skf_solve(void) { return sv_b() + skf_gltf(); }\n'
                         'static int helper(void) { return 1; }\nint sv_a(void) { return helper(); }\n',
        "src/solve/b.c": '#include "solve_internal.h"\n/* sv_a() in a comment is no use */\n'
                         'int sv_b(void) { return sv_a(); }\nint skfi_ok(void) { return 0; }\n',
        "src/solve/c.c": '#include "solve_internal.h"\nint sv_c(void) { return sv_b(); }\n'
                         'const char *sv_msg = "raise it with --max-sweeps N"; /* "--in-comment" */\n',
        "src/solve/solve_internal.h": '#include "skinfit/solve.h"\nint sv_a(void);\nint sv_b(void);\n'
                                      'int sv_c(void);\n',
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in tree.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as fh:
                fh.write(text)
        bad, _, _ = check(root)
    want = [
        "include/skinfit/odd.h: public header not in HEADER_FOLDER",
        'src/solve/a.c:2: #include "skinfit/gltf.h": solve may not use io',
        "cycle between source files: src/solve/a.c -> src/solve/b.c (sv_b); src/solve/b.c -> src/solve/a.c (sv_a)",
        "src/solve/c.c:3: library text names the command-line flag '--max-sweeps'",
        "src/solve/a.c: sv_a is neither public",
        "src/solve/b.c: sv_b is neither public",
        "src/solve/c.c: sv_c is neither public",
    ]
    missing = [w for w in want if not any(b.startswith(w) for b in bad)]
    extra = [b for b in bad if not any(b.startswith(w) for w in want)]
    for m in missing:
        print("self-test: not reported:", m)
    for e in extra:
        print("self-test: reported wrongly:", e)
    print(f"check_layers self-test: {len(want) - len(missing)}/{len(want)} planted violations found, "
          f"{len(extra)} false")
    return 1 if missing or extra else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    bad, nfiles, nedges = check(root)
    for line in bad:
        print(line)
    print(f"check_layers: {nfiles} files, {nedges} file-to-file call edges, {len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
