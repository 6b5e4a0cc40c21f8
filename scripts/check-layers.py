#!/usr/bin/env python3
"""Checks the layer order (docs/architecture.md) in a source tree.

Every #include "..." of a source file in a layer's folder must name a header of its own layer or of a
layer that it may use (LAYERS below, each layer listing what it may include): an include that goes up
the order or sideways (kernels/gpu -> kernels/cpu) fails, with file:line and the rule it breaks. Includes
are paths from the repository root ("base/text.hpp"); a layered file's include that names no layer fails
too. The same rule holds for the layers' CMake targets: a layer's CMakeLists.txt may link only the
targets of the layers it may use.

  scripts/check-layers.py [ROOT]     ROOT: the source tree (default: the repository of this script)

Exit status: 0 when every include and link keeps the order, 1 when one does not, 2 on a usage error.
tests/ and bench/ may include any layer; they are not checked.
"""
import os
import re
import sys

# (layer, its folder, its CMake target, the layers it may use). Order: bottom to top. Public means
# include/warpsearch/, included as "warpsearch/...".
_ENGINE = ["base", "core", "db", "profile", "kernels/reference", "kernels/cpu", "kernels/gpu", "statistics",
           "search", "output"]
LAYERS = [
    ("base", "base/", "warpsearch_base", []),
    ("core", "core/", "warpsearch_core", ["base"]),
    ("db", "db/", "warpsearch_db", ["base", "core"]),
    ("profile", "profile/", "warpsearch_profile", ["base", "core"]),
    ("kernels/reference", "kernels/reference/", "warpsearch_kernels_reference", ["base", "core", "profile"]),
    ("kernels/cpu", "kernels/cpu/", "warpsearch_kernels_cpu", ["base", "core", "profile", "kernels/reference"]),
    ("kernels/gpu", "kernels/gpu/", "warpsearch_kernels_gpu", ["base", "core", "profile", "kernels/reference"]),
    ("statistics", "statistics/", "warpsearch_statistics", ["base", "core", "profile"]),
    ("search", "search/", "warpsearch_search", _ENGINE[:8]),
    ("output", "output/", "warpsearch_output", _ENGINE[:9]),
    ("cluster", "cluster/", "warpsearch_cluster", _ENGINE),
    ("public", "include/warpsearch/", None, []),
    ("api", "api/", "warpsearch_api", _ENGINE + ["public"]),
    ("tools", "tools/", "warpsearch", _ENGINE + ["cluster"]),
    ("python", "python/", "warpsearch_python", ["public"]),
    ("examples", "examples/", None, ["public"]),
]
SOURCE_SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".hpp.in")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
LINK = re.compile(r"target_link_libraries\(\s*(\w+)([^)]*)\)", re.S)


def layer_of_include(path):
    """The layer whose header an include path names (the longest folder that matches), or None."""
    if path.startswith("warpsearch/"):
        return "public"
    best = None
    for name, folder, _, _ in LAYERS:
        if name != "public" and path.startswith(folder) and (best is None or len(folder) > len(best[1])):
            best = (name, folder)
    return best[0] if best else None


def above(a, b):
    """Whether layer a may use layer b, directly or through others (b is below a)."""
    uses = {name: set(allowed) for name, _, _, allowed in LAYERS}
    seen, todo = set(), [a]
    while todo:
        for lower in uses[todo.pop()]:
            if lower not in seen:
                seen.add(lower)
                todo.append(lower)
    return b in seen


def broken_rule(layer, allowed, other):
    direction = "up" if above(other, layer) else "sideways"
    may = ", ".join(allowed) if allowed else "nothing but itself"
    return f"{layer} may use {may}; {other} is {direction} from {layer}"


def check_includes(root, name, folder, allowed):
    problems = []
    top = os.path.join(root, folder)
    nested = [f for n, f, _, _ in LAYERS if f != folder and f.startswith(folder)]
    for directory, subdirs, files in os.walk(top):
        relative_dir = os.path.relpath(directory, root).replace(os.sep, "/") + "/"
        subdirs[:] = sorted(d for d in subdirs if relative_dir + d + "/" not in nested)
        for file in sorted(files):
            if not file.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(directory, file)
            shown = os.path.relpath(path, root)
            with open(path, encoding="utf-8", errors="replace") as source:
                for number, line in enumerate(source, 1):
                    match = INCLUDE.match(line)
                    if not match:
                        continue
                    included = match.group(1)
                    other = layer_of_include(included)
                    if other is None:
                        problems.append(f"{shown}:{number}: #include \"{included}\": not a header of any layer "
                                        "(include paths start at the repository root: base/, core/, ...)")
                    elif other != name and other not in allowed:
                        problems.append(f"{shown}:{number}: #include \"{included}\": "
                                        + broken_rule(name, allowed, other))
    return problems


def check_links(root, name, folder, allowed):
    """The layer's CMakeLists.txt files may link only the targets of the layers it may use."""
    targets = {target: layer for layer, _, target, _ in LAYERS if target}
    own = {target for layer, _, target, _ in LAYERS if layer == name and target}
    problems = []
    top = os.path.join(root, folder)
    nested = [f for n, f, _, _ in LAYERS if f != folder and f.startswith(folder)]
    for directory, subdirs, files in os.walk(top):
        relative_dir = os.path.relpath(directory, root).replace(os.sep, "/") + "/"
        subdirs[:] = sorted(d for d in subdirs if relative_dir + d + "/" not in nested)
        if "CMakeLists.txt" not in files:
            continue
        path = os.path.join(directory, "CMakeLists.txt")
        with open(path, encoding="utf-8") as cmake:
            text = cmake.read()
        for match in LINK.finditer(text):
            if match.group(1) not in own:
                continue
            number = text.count("\n", 0, match.start()) + 1
            for linked in re.findall(r"\bwarpsearch_\w+", match.group(2)):
                other = targets.get(linked)
                if other is not None and other != name and other not in allowed:
                    problems.append(f"{os.path.relpath(path, root)}:{number}: {match.group(1)} links {linked}: "
                                    + broken_rule(name, allowed, other))
    return problems


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.isdir(root):
        print(f"check-layers: {root}: not a directory", file=sys.stderr)
        return 2
    problems = []
    for name, folder, _, allowed in LAYERS:
        if os.path.isdir(os.path.join(root, folder)):
            problems += check_includes(root, name, folder, allowed)
            problems += check_links(root, name, folder, allowed)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-layers: {len(problems)} include(s) or link(s) against the layer order "
              "(docs/architecture.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
