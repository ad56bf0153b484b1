#!/usr/bin/env bash
# Lists every function longer than MAX lines (default 100) in cmd/ roles/ common/
# config/ report/ and fails when there is one. A simple pass over the text:
# comments and string/char literals are blanked, then a '{' that follows a ')'
# (and optional qualifiers, an initializer list or a trailing return type) at
# namespace or class depth opens a function, which ends at its matching '}'.
#   scripts/check_function_length.sh [SOURCE_DIR] [MAX]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
MAX=${2:-100}
python3 - "$MAX" cmd roles common config report <<'EOF_PY'
import os, re, sys
limit = int(sys.argv[1])

def blank(text):
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j])); i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j])); i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)

# Text between the last ')' and a '{' that makes the brace a function body.
TAIL = re.compile(r"\)\s*(const|noexcept|override|final|mutable|->\s*[\w:<>,\s*&]+|\s)*"
                  r"(:\s*[\w:]+\s*[({][^;{}]*[)}](\s*,\s*[\w:]+\s*[({][^;{}]*[)}])*\s*)?$")
CONTROL = re.compile(r"\b(if|for|while|switch|catch|return)\s*\($")

def functions(path):
    text = blank(open(path, encoding="utf-8", errors="replace").read())
    stack, found, names = [], [], {}  # stack of (kind, start index); function names by start
    for i, ch in enumerate(text):
        if ch == "{":
            inside_fn = any(k == "fn" for k, _ in stack)
            head = text[max(0, i - 400):i]
            kind = "block"
            if not inside_fn and TAIL.search(head):
                # the name before the parameter list: not a control statement or a lambda
                depth, j = 0, len(head) - 1
                while j >= 0:
                    if head[j] == ")": depth += 1
                    elif head[j] == "(":
                        depth -= 1
                        if depth == 0: break
                    j -= 1
                before = head[:j].rstrip()
                if j > 0 and re.search(r"[\w>~=]$", before) and not CONTROL.search(head[:j + 1]) and not before.endswith("]"):
                    kind = "fn"
                    names[i] = (re.findall(r"[\w:~<>=]+$", before) or ["?"])[0]
            stack.append((kind, i))
        elif ch == "}" and stack:
            kind, start = stack.pop()
            if kind == "fn":
                first = text.count("\n", 0, start) + 1
                last = text.count("\n", 0, i) + 1
                found.append((last - first + 1, first, names.get(start, "?")))
    return found

bad = 0
for top in sys.argv[2:]:
    for root, _, files in os.walk(top):
        for f in sorted(files):
            if f.endswith((".cpp", ".h")):
                path = os.path.join(root, f)
                for lines, first, name in functions(path):
                    if lines > limit:
                        print(f"{path}:{first}: {name}: {lines} lines (limit {limit})")
                        bad += 1
print(f"functions over {limit} lines: {bad}")
sys.exit(1 if bad else 0)
EOF_PY
