#!/usr/bin/env python3
"""Size limits of the sources (docs/architecture.md, "Sizes"): no file of models/, simulator/ or
tools/ over 500 lines, and no function over 80 lines, apart from declared tables: a function whose
definition is preceded by a comment line containing "fleetsim-lint: table" (a list of declarations,
one per entry, that reads better whole than cut into pieces).

A function is found without a compiler: comments, strings and character literals are blanked, then
braces are matched; a brace block is a function body when the text before it, since the last ';',
'{' or '}', ends with a parameter list (and optional qualifiers) and is not a control statement or
an initialiser. Lambdas and local classes count toward the function that holds them.

    python3 tests/lint/check_source_size.py [ROOT]      exit 1 and a list when a limit is broken
    python3 tests/lint/check_source_size.py --self-test
"""
import os
import re
import sys

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
FOLDERS = ("models", "simulator", "tools")
TABLE_MARK = "fleetsim-lint: table"
HEAD = re.compile(r"\)\s*(?:const|override|final|noexcept|mutable|->[^{;]*|\s)*$")
CONTROL = re.compile(r"^(?:if|else|for|while|switch|catch|do|try)\b")


def blank(src):
    """The source with comments, strings and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif src.startswith('R"', i) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', src[i:])
            end = src.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif src[i] == '"' or (src[i] == "'" and not (i > 0 and src[i - 1].isalnum())):
            q, j = src[i], i + 1
            while j < n and src[j] != q and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j += 1
            out.append(q + " " * max(0, j - i - 2) + q)
            i = j
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


def functions(text):
    """(first line, lines, head) of every outermost function body in `text`."""
    src = blank(text)
    found, stack, last = [], [], 0
    for i, c in enumerate(src):
        if c == "{":
            head = " ".join(src[last:i].split())
            if any(kind == "function" for kind, _, _ in stack):
                kind = "inner"
            elif HEAD.search(head) and not CONTROL.match(head) and "=" not in head.split("(")[0]:
                kind = "function"
            else:
                kind = "block"
            stack.append((kind, i, head))
            last = i + 1
        elif c == "}":
            if stack:
                kind, start, head = stack.pop()
                if kind == "function":
                    first = src.count("\n", 0, start)
                    found.append((first + 1, src.count("\n", 0, i) - first + 1, head))
            last = i + 1
        elif c == ";":
            last = i + 1
    return found


def is_table(lines, body_line):
    """True when a comment line just above the function's head carries the table mark."""
    k = body_line - 2  # 0-based index of the line above the opening brace
    while k >= 0 and lines[k].strip() and not lines[k].strip().startswith("//"):
        k -= 1  # up through the head's own lines
    while k >= 0 and lines[k].strip().startswith("//"):
        if TABLE_MARK in lines[k]:
            return True
        k -= 1
    return False


def problems(root):
    out = []
    for folder in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                text = open(path, encoding="utf-8").read()
                lines = text.split("\n")
                count = len(lines) - (1 if text.endswith("\n") else 0)
                if count > MAX_FILE_LINES:
                    out.append(f"{rel}: {count} lines (limit {MAX_FILE_LINES})")
                for first, length, head in functions(text):
                    if length > MAX_FUNCTION_LINES and not is_table(lines, first):
                        out.append(f"{rel}:{first}: a function of {length} lines (limit {MAX_FUNCTION_LINES}): "
                                   f"{head[-80:]}")
    return out


def self_test():
    body = "\n".join(["  x += 1;"] * 85)
    long_fn = "int f(int x)\n{\n" + body + "\n  return x;\n}\n"
    assert [l for _, l, _ in functions(long_fn)] == [88], functions(long_fn)
    # Control blocks, lambdas and classes inside a function are part of it; a class body is not a function.
    nested = "struct S {\n  int g() const\n  {\n    if (a) {\n      auto l = [](int y) { return y; };\n    }\n    return 1;\n  }\n};\n"
    assert [(f, l) for f, l, _ in functions(nested)] == [(3, 6)], functions(nested)
    # Braces inside strings and comments do not count.
    tricky = 'void h()\n{\n  const char* s = "}{";  // }\n  /* { */ char c = \'{\';\n}\n'
    assert [(f, l) for f, l, _ in functions(tricky)] == [(2, 4)], functions(tricky)
    # An initialiser list is not a function.
    assert functions("std::vector<int> v = {1, 2};\n") == []
    # The table mark exempts the function under it.
    marked = ("// The table. fleetsim-lint: table\n" + long_fn).split("\n")
    assert is_table(marked, 3)
    assert not is_table(long_fn.split("\n"), 2)
    print("self-test ok")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    found = problems(root)
    for p in found:
        print(p)
    if found:
        print(f"{len(found)} size limit(s) broken: split the function by responsibility, or mark a declared "
              f"table with a '{TABLE_MARK}' comment above it")
        return 1
    print(f"no file over {MAX_FILE_LINES} lines, no function over {MAX_FUNCTION_LINES} lines outside declared tables")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
