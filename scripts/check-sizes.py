#!/usr/bin/env python3
"""Checks the house limits on size: no source file over 600 lines, no function over 120 lines.

A function is a block opened at namespace or class level by a signature (text with a parameter list, or a
lambda's capture list, before the `{`); TEST_CASE bodies count as functions too. Its length runs from the
line of its `{` to the line of its matching `}`. Braces in comments, strings, character literals and
preprocessor lines are ignored; the heuristic needs no compiler.

A function may stay longer when the comment just above it (or above its template line) says why with the
words "stays one function"; a file may stay longer when one of its comments says "stays one file". The
reason belongs in the same sentence.

  scripts/check-sizes.py [ROOT]     ROOT: the source tree (default: the repository of this script)

Exit status: 0 when nothing is over, 1 when a file or function is over and not exempt, 2 on a usage error.
"""
import os
import re
import sys

FOLDERS = ["api", "base", "cluster", "core", "db", "include", "kernels", "output", "profile", "python", "search",
           "statistics", "tests", "tools", "bench", "examples"]
SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh")
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 120
FUNCTION_MARKER = "stays one function"
FILE_MARKER = "stays one file"

CONTAINER = re.compile(r"^(template\s*<.*>\s*)?(namespace\b|extern\s*\"C\"|class\b|struct\b|union\b)", re.S)
LAMBDA_END = re.compile(r"[=(,]\s*\[[^\]]*\]\s*(mutable\s*)?$")
CTOR_INIT_LIST = re.compile(r"\)\s*(noexcept\s*)?:(?!:)")
DECORATION = re.compile(r"\b(__attribute__|__launch_bounds__|alignas|__declspec)\s*\(")
NAME_BEFORE_PAREN = re.compile(r"((?:[A-Za-z_~]\w*\s*::\s*)*~?(?:operator\s*[^\s(]+|operator\s*\(\s*\)|[A-Za-z_]\w*))"
                               r"\s*(?:<[^()]*>)?\s*\($")


class Block:
    """An open brace: its kind (container, function, member-init or other) and where it opened."""

    def __init__(self, kind, line, statement_line, name):
        self.kind = kind
        self.line = line
        self.statement_line = statement_line
        self.name = name


def strip_code(lines):
    """Each line with comments, string and character literals blanked and preprocessor lines emptied;
    and each line's comment text, for the exemption markers."""
    code, comments = [], []
    in_block_comment = False
    raw_end = None  # the closing delimiter of a raw string literal that spans lines
    continued_directive = False
    for line in lines:
        out, comment = [], []
        if not in_block_comment and raw_end is None:
            if continued_directive or line.lstrip().startswith("#"):
                continued_directive = line.rstrip().endswith("\\")
                code.append("")
                comments.append("")
                continue
        i, n = 0, len(line)
        while i < n:
            if raw_end is not None:
                end = line.find(raw_end, i)
                if end < 0:
                    i = n
                    break
                i = end + len(raw_end)
                raw_end = None
                out.append('""')
                continue
            if in_block_comment:
                end = line.find("*/", i)
                if end < 0:
                    comment.append(line[i:])
                    i = n
                    break
                comment.append(line[i:end])
                i = end + 2
                in_block_comment = False
                continue
            c = line[i]
            if line.startswith("//", i):
                comment.append(line[i + 2:])
                break
            if line.startswith("/*", i):
                in_block_comment = True
                i += 2
                continue
            raw = re.match(r'(?:u8|[uUL])?R"([^(\s]*)\(', line[i:])
            if raw and (i == 0 or not (line[i - 1].isalnum() or line[i - 1] == "_")):
                raw_end = ")" + raw.group(1) + '"'
                i += raw.end()
                continue
            if c == '"' or (c == "'" and not (i > 0 and line[i - 1].isalnum())):
                j = i + 1
                while j < n and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                out.append(c + c)
                i = j + 1
                continue
            out.append(c)
            i += 1
        code.append("".join(out))
        comments.append(" ".join(comment))
    return code, comments


def function_name(statement, raw_first_line):
    """A readable name for the function whose signature is `statement` (code with literals blanked)."""
    if statement.lstrip().startswith(("TEST_CASE", "SCENARIO", "TEMPLATE_TEST_CASE")):
        literal = re.search(r'"([^"]*)"', raw_first_line)
        return "TEST_CASE " + (f'"{literal.group(1)}"' if literal else "(name on a later line)")
    text = statement
    while True:
        match = DECORATION.search(text)
        if not match:
            break
        depth, j = 0, match.end() - 1
        while j < len(text):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
            if depth == 0:
                break
        text = text[:match.start()] + text[j:]
    paren = text.find("(")
    while paren >= 0:
        match = NAME_BEFORE_PAREN.search(text[:paren + 1])
        if match:
            return re.sub(r"\s+", "", match.group(1))
        paren = text.find("(", paren + 1)
    if "[" in text:
        return "lambda"
    return " ".join(text.split())[:60]


def marker_above(comments, code, statement_line, marker):
    """Whether the comment lines just above the statement that starts at `statement_line` (0-based)
    contain `marker` (a phrase may wrap across comment lines)."""
    text = []
    i = statement_line - 1
    while i >= 0 and not code[i].strip() and comments[i].strip():
        text.insert(0, comments[i])
        i -= 1
    return marker in " ".join(" ".join(text).split())


def functions_in(code):
    """(name, first statement line, `{` line, `}` line), 0-based, for every function body in the file."""
    found = []
    stack = []
    statement, statement_line = [], None
    for number, line in enumerate(code):
        for column, c in enumerate(line):
            at_top = all(block.kind == "container" for block in stack)
            if c == "{":
                text = "".join(statement).strip()
                if not at_top:
                    stack.append(Block("other", number, statement_line, None))
                    continue
                before = text.rstrip()
                if CONTAINER.match(text) and "(" not in re.sub(r"^template\s*<.*?>", "", text, flags=re.S):
                    kind = "container"
                elif CTOR_INIT_LIST.search(text) and before and (before[-1].isalnum() or before[-1] in "_>"):
                    kind = "member-init"  # a brace initializer in a constructor's initializer list
                elif before.endswith("=") or "(" not in text and not LAMBDA_END.search(before):
                    kind = "other"
                else:
                    kind = "function"
                name = function_name(text, "") if kind == "function" else None
                stack.append(Block(kind, number, statement_line, name))
                if kind == "member-init":
                    statement.append("{")
                elif kind != "function":
                    statement, statement_line = [], None
                continue
            if c == "}":
                if not stack:
                    continue  # unbalanced (an #if with a brace in each branch): keep going
                block = stack.pop()
                if block.kind == "function":
                    found.append((block.name, block.statement_line, block.line, number))
                if block.kind == "member-init":
                    statement.append("}")
                elif all(b.kind == "container" for b in stack):
                    statement, statement_line = [], None
                continue
            if not at_top:
                continue
            if c == ";":
                statement, statement_line = [], None
                continue
            if statement_line is None and not c.isspace():
                statement_line = number
            statement.append(c)
        if all(block.kind == "container" for block in stack):
            statement.append(" ")
    return found


def check_file(path, shown):
    with open(path, encoding="utf-8", errors="replace") as source:
        lines = source.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    code, comments = strip_code(lines)
    problems = []
    file_exempt = FILE_MARKER in " ".join(" ".join(comments).split())
    if len(lines) > MAX_FILE_LINES and not file_exempt:
        problems.append(f"{shown}: {len(lines)} lines (over {MAX_FILE_LINES})")
    for name, statement_line, first, last in functions_in(code):
        length = last - first + 1
        if length <= MAX_FUNCTION_LINES:
            continue
        start = statement_line if statement_line is not None else first
        if name.startswith("TEST_CASE ("):
            name = function_name("TEST_CASE", " ".join(lines[start:first + 1]))
        if marker_above(comments, code, start, FUNCTION_MARKER):
            continue
        problems.append(f"{shown}:{first + 1}: {name}: {length} lines (over {MAX_FUNCTION_LINES})")
    return problems


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.isdir(root):
        print(f"check-sizes: {root}: not a directory", file=sys.stderr)
        return 2
    problems = []
    for folder in FOLDERS:
        for directory, subdirs, files in os.walk(os.path.join(root, folder)):
            subdirs.sort()
            for file in sorted(files):
                if file.endswith(SUFFIXES):
                    path = os.path.join(directory, file)
                    problems += check_file(path, os.path.relpath(path, root))
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-sizes: {len(problems)} file(s) or function(s) over the limits ({MAX_FILE_LINES} lines a file, "
              f"{MAX_FUNCTION_LINES} a function) without a comment that says why it \"{FUNCTION_MARKER}\" or "
              f"\"{FILE_MARKER}\"", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
