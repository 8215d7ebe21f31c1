"""Runs one lab notebook headless, top to bottom, with `jupyter nbconvert --execute`, and checks
that the numbers its text quotes are the ones its run printed (docs/labs/README.md).

A quoted number is written in a markdown cell as
    <span data-q="EXPR" data-f="SPEC">TEXT</span>
EXPR is a Python expression in the notebook's namespace after its last cell, SPEC a format spec
(default: fixed-point with TEXT's decimals), and format(eval(EXPR), SPEC) must equal TEXT. The
notebook's metadata "fleetsim" -> "challenge" names its check function and answers that must
pass and fail it, so that the design challenge's criterion is tested too.

usage: python3 check_lab.py NOTEBOOK.ipynb    (exit 0 when everything holds)
"""

import json
import os
import re
import subprocess
import sys

import nbformat

QUOTE = re.compile(r'<span data-q="([^"]+)"(?: data-f="([^"]*)")?>([^<]*)</span>')
MARKER = "__FLEETSIM_LAB_CHECK__"
SECTIONS = ("Predict", "Run", "Why", "Design challenge")
# The jupyter of this Python (Debian's /usr/bin/jupyter for /usr/bin/python3), whatever is on PATH.
JUPYTER = os.path.join(os.path.dirname(sys.executable), "jupyter")


# The Debian package that gives each third-party module a lab may import. A fresh Debian 12 has none
# of them: tools/setup.sh must install every one a lab imports (a machine with clang-tidy, say,
# already has python3-yaml, so running the notebook here would not catch a missing one).
DEBIAN_PACKAGE = {"pandas": "python3-pandas", "matplotlib": "python3-matplotlib", "yaml": "python3-yaml",
                  "numpy": "python3-numpy", "nbformat": "python3-nbformat"}
IMPORT = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_]\w*)", re.M)


def setup_packages():
    """The Debian packages tools/setup.sh installs (FLEETSIM_PACKAGES)."""
    setup = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "setup.sh")
    with open(setup, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"#[^\n]*", "", text)      # comments first: they may hold parentheses
    return set(re.search(r"^FLEETSIM_PACKAGES=\((.*?)\)", text, re.M | re.S).group(1).split())


def missing_packages(nb):
    """The modules the notebook imports that no package of tools/setup.sh provides."""
    installed = setup_packages()
    problems = []
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        for module in IMPORT.findall(c.source):
            if module in sys.stdlib_module_names or module == "fleetsim" or module.startswith("_"):
                continue
            package = DEBIAN_PACKAGE.get(module)
            if package is None:
                problems.append(f"imports '{module}': name its Debian package in check_lab.py's DEBIAN_PACKAGE "
                                "and install it in tools/setup.sh")
            elif package not in installed:
                problems.append(f"imports '{module}', but tools/setup.sh does not install {package}")
    return problems


def default_spec(text):
    digits = text.replace(",", "")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return f".{decimals}f"


def main(path):
    nb = nbformat.read(path, as_version=4)
    failures = missing_packages(nb)
    headings = " ".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for section in SECTIONS:
        if section not in headings:
            failures.append(f"no '{section}' section: every lab has the same shape")
    def quoted(where, markdown):
        """The <span data-q> quotes of a markdown text, and a failure for each span not in that form."""
        found = [(where, expr, spec or default_spec(text), text) for expr, spec, text in QUOTE.findall(markdown)]
        if markdown.count("data-q=") != len(found):
            failures.append(f"{where}: {markdown.count('data-q=') - len(found)} quoted number(s) not in the form "
                            "<span data-q=\"EXPR\">TEXT</span> (no double quotes inside EXPR): they would go unchecked")
        return found

    quotes = quoted("the notebook", "\n".join(c.source for c in nb.cells if c.cell_type == "markdown"))
    if not quotes:
        failures.append("the text quotes no number from the run (<span data-q=...>)")
    challenge = nb.metadata.get("fleetsim", {}).get("challenge")
    if not challenge:
        failures.append("no design challenge in the metadata (fleetsim.challenge: check, pass, fail)")
        challenge = {"check": "None", "pass": [], "fail": []}
    # The instructors' page gives the challenge's answer in the lab's own section, and the figures
    # it quotes there are checked against this lab's run as the notebook's own are.
    answer = challenge.get("answer_text")
    guide = os.path.join(os.path.dirname(os.path.abspath(path)), "instructors.md")
    number = os.path.basename(path).split("_", 1)[0].lstrip("0")
    if os.path.exists(guide):
        with open(guide, encoding="utf-8") as f:
            text = f.read()
        start = text.find(f"## Lab {number} ")
        section = text[start:text.find("\n## ", start + 1)] if start >= 0 else ""
        if not section:
            failures.append(f"instructors.md has no section '## Lab {number} '")
        if not answer:
            failures.append("no answer_text in fleetsim.challenge: the instructors' page must give the answer")
        elif answer not in section:
            failures.append(f"instructors.md's section '## Lab {number}' does not give the answer {answer}")
        quotes += quoted("instructors.md", section)
    else:
        failures.append("no docs/labs/instructors.md beside the lab")
    probe = f"""
import json as _json
_values = {{}}
for _expr in {json.dumps(sorted({q[1] for q in quotes}))}:
    _v = eval(_expr)
    _values[_expr] = _v.item() if hasattr(_v, "item") else _v
_check = {challenge["check"]}
_challenge = {{"pass": [bool(_check(a, verbose=False)) for a in {challenge["pass"]!r}],
               "fail": [bool(_check(a, verbose=False)) for a in {challenge["fail"]!r}]}}
print("{MARKER}" + _json.dumps({{"values": _values, "challenge": _challenge}}))
"""
    nb.cells.append(nbformat.v4.new_code_cell(probe))
    env = dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1")
    run = subprocess.run(
        [JUPYTER, "nbconvert", "--to", "notebook", "--execute", "--stdin", "--stdout",
         "--ExecutePreprocessor.timeout=900"],
        input=nbformat.writes(nb), capture_output=True, text=True, cwd=os.path.dirname(os.path.abspath(path)),
        env=env)
    if run.returncode != 0:
        print(run.stderr[-4000:], file=sys.stderr)
        print(f"{path}: the notebook did not run to the end (exit {run.returncode})", file=sys.stderr)
        for f in failures:
            print(f"{path}: {f}", file=sys.stderr)
        return 1
    executed = nbformat.reads(run.stdout, as_version=4)
    report = None
    for o in executed.cells[-1].get("outputs", []):
        if o.get("output_type") == "stream" and MARKER in o.get("text", ""):
            report = json.loads(o["text"].split(MARKER, 1)[1])
    if report is None:
        print(f"{path}: the check cell printed nothing", file=sys.stderr)
        return 1
    for where, expr, spec, text in quotes:
        value = report["values"][expr]
        shown = str(value) if isinstance(value, str) else format(value, spec)
        status = "ok" if shown == text else "DRIFTED"
        print(f"  {status:7s} {where}: {expr} = {value!r}: the text says {text}, the run gives {shown}")
        if shown != text:
            failures.append(f"{where} quotes {text} for {expr}, the run gives {shown}")
    passes, fails = report["challenge"]["pass"], report["challenge"]["fail"]
    print(f"  challenge {challenge['check']}: {challenge['pass']} -> {passes}, {challenge['fail']} -> {fails}")
    if not all(passes):
        failures.append(f"an answer that should pass the challenge fails it: {challenge['pass']} -> {passes}")
    if any(fails):
        failures.append(f"an answer that should fail the challenge passes it: {challenge['fail']} -> {fails}")
    for f in failures:
        print(f"{path}: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
