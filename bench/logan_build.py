#!/usr/bin/env python3
"""Builds LOGAN (GPU X-drop, github.com/albertozeni/LOGAN, Zeni et al., IPDPS 2020) for the side-by-side of
bench/gpu/logan_on_device.sh, from a copy of its sources, with a small measuring patch applied to the copy.

usage: logan_build.py LOGAN_SOURCE_DIR [--build DIR] [--out FILE] [--arch sm_90] [--no-patch]

LOGAN_SOURCE_DIR holds LOGAN's Makefile and src/ (e.g. `git archive HEAD | tar -x -C DIR` of its repository;
tested with commit 3369076 of 2020). The sources are copied to --build (default /tmp/logan-build), never
changed in place, and built with LOGAN's own flags (-O3 -maxrregcount=32 -std=c++14 -fopenmp, 128 threads
per block: its default, not `adapt=true`) plus -arch; the CUDA runtime is linked statically (nvcc's default),
so the binary needs only libgomp.so.1, libstdc++ and glibc. The result (default ./logan) is stripped.

The patch adds measurement only; the timed kernel is LOGAN's, unchanged:
  * `demo INPUT K X NGPUS [RESULTS]`: with a fifth argument, the run uses a copy of the kernel (a template
    parameter, so the run without it compiles exactly LOGAN's kernel) in which thread 0 of each block adds
    maxCol - minCol, the number of cells LOGAN computes on an anti-diagonal, to a per-pair counter. RESULTS
    then gets one line per pair: `score beginV endV beginH endH cells` (0-based begin, end exclusive, V the
    query, H the target) and stdout a line `Computed cells:<TAB>N`.
  * a usage message when arguments are missing (the original reads argv[1..4] unchecked).
LOGAN itself prints `GPU only time` (kernels and copies back, per batch of 30,000 pairs) and
`Total Execution time` (the LOGAN() call: host prefixes/suffixes, allocations, copies, kernels; not reading
the file nor creating the CUDA context).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys


def replace_once(text, old, new, name):
    count = text.count(old)
    if count != 1:
        sys.exit("logan_build: %s: expected the text %r once, found it %d times (another LOGAN version?)"
                 % (name, old[:60], count))
    return text.replace(old, new)


def patch_kernel(path):
    text = open(path).read()
    name = os.path.basename(path)
    text = replace_once(text, "__global__ void extendSeedLGappedXDropOneDirectionGlobal(",
                        "template <bool kCountCells>\n__global__ void extendSeedLGappedXDropOneDirectionGlobal(", name)
    text, n = re.subn(r"(short \*antidiag,\s*int n_threads)(\s*\)\s*\{)",
                      r"\1,\n\t\tunsigned long long *cells\2", text)
    if n != 1:
        sys.exit("logan_build: %s: kernel parameter list not found" % name)
    text = replace_once(text, "\tif (rows == 1 || cols == 1)\n\t\treturn;",
                        "\tunsigned long long myCells = 0;\n"
                        "\tif (rows == 1 || cols == 1) {\n"
                        "\t\tif (kCountCells && myTId == 0) cells[myId] = 0;\n"
                        "\t\treturn;\n\t}", name)
    text = replace_once(text, "\t\tcomputeAntidiag(antiDiag1,",
                        "\t\tif (kCountCells && myTId == 0) myCells += maxCol - minCol;\n\t\tcomputeAntidiag(antiDiag1,", name)
    text = replace_once(text, "\tres[myId] = longestExtensionScore;\n",
                        "\tres[myId] = longestExtensionScore;\n\tif (kCountCells && myTId == 0) cells[myId] = myCells;\n", name)
    # The host function: an optional per-pair cell count (nullptr: LOGAN's kernel without counting).
    text, n = re.subn(r"(int n_threads)(\s*\)\s*\{\s*if\(scoreGapExtend)", r"\1,\n\t\t\tunsigned long long *cells\2", text)
    if n != 1:
        sys.exit("logan_build: %s: extendSeedL parameter list not found" % name)
    text = replace_once(text, "\tint *scoreLeft_d[MAX_GPUS], *scoreRight_d[MAX_GPUS];\n",
                        "\tint *scoreLeft_d[MAX_GPUS], *scoreRight_d[MAX_GPUS];\n"
                        "\tunsigned long long *cellsLeft_d[MAX_GPUS], *cellsRight_d[MAX_GPUS];\n"
                        "\tstd::vector<unsigned long long> cellsLeft(cells ? numAlignments : 0), cellsRight(cells ? numAlignments : 0);\n",
                        name)
    text = replace_once(text, "\t\tcudaErrchk(cudaMalloc(&scoreRight_d[i], dim*sizeof(int)));\n",
                        "\t\tcudaErrchk(cudaMalloc(&scoreRight_d[i], dim*sizeof(int)));\n"
                        "\t\tcellsLeft_d[i] = cellsRight_d[i] = nullptr;\n"
                        "\t\tif (cells) {\n"
                        "\t\t\tcudaErrchk(cudaMalloc(&cellsLeft_d[i], dim*sizeof(unsigned long long)));\n"
                        "\t\t\tcudaErrchk(cudaMalloc(&cellsRight_d[i], dim*sizeof(unsigned long long)));\n"
                        "\t\t}\n", name)
    for side, stream, cells_d in (("seed_d_l[i]", "stream_l[i]", "cellsLeft_d[i]"),
                                  ("seed_d_r[i]", "stream_r[i]", "cellsRight_d[i]")):
        pattern = (r"\t\textendSeedLGappedXDropOneDirectionGlobal <<<dim, n_threads, n_threads\*sizeof\(short\), "
                   + re.escape(stream) + r">>> \((" + re.escape(side) + r"[^;]*?), n_threads\);")
        match = re.search(pattern, text)
        if not match:
            sys.exit("logan_build: %s: kernel launch on %s not found" % (name, stream))
        args = match.group(1)
        launch = ("\t\tif (cells)\n"
                  "\t\t\textendSeedLGappedXDropOneDirectionGlobal<true> <<<dim, n_threads, n_threads*sizeof(short), %s>>> (%s, n_threads, %s);\n"
                  "\t\telse\n"
                  "\t\t\textendSeedLGappedXDropOneDirectionGlobal<false> <<<dim, n_threads, n_threads*sizeof(short), %s>>> (%s, n_threads, nullptr);"
                  % (stream, args, cells_d, stream, args))
        text = text[: match.start()] + launch + text[match.end():]
    text = replace_once(text, "\t\tcudaErrchk(cudaMemcpyAsync(&seeds_r[0]+i*nSequences, seed_d_r[i], dim*sizeof(SeedL), cudaMemcpyDeviceToHost,stream_r[i]));\n",
                        "\t\tcudaErrchk(cudaMemcpyAsync(&seeds_r[0]+i*nSequences, seed_d_r[i], dim*sizeof(SeedL), cudaMemcpyDeviceToHost,stream_r[i]));\n"
                        "\t\tif (cells) {\n"
                        "\t\t\tcudaErrchk(cudaMemcpyAsync(&cellsLeft[0]+i*nSequences, cellsLeft_d[i], dim*sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream_l[i]));\n"
                        "\t\t\tcudaErrchk(cudaMemcpyAsync(&cellsRight[0]+i*nSequences, cellsRight_d[i], dim*sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream_r[i]));\n"
                        "\t\t}\n", name)
    text = replace_once(text, "\t\tcudaErrchk(cudaFree(scoreRight_d[i]));\n",
                        "\t\tcudaErrchk(cudaFree(scoreRight_d[i]));\n"
                        "\t\tif (cells) {\n"
                        "\t\t\tcudaErrchk(cudaFree(cellsLeft_d[i]));\n"
                        "\t\t\tcudaErrchk(cudaFree(cellsRight_d[i]));\n"
                        "\t\t}\n", name)
    text = replace_once(text, "\tfree(scoreRight);\n",
                        "\tfree(scoreRight);\n"
                        "\tif (cells)\n"
                        "\t\tfor (int i = 0; i < numAlignments; i++)\n"
                        "\t\t\tcells[i] = cellsLeft[i] + cellsRight[i];\n", name)
    open(path, "w").write(text)


def patch_header(path):
    text = open(path).read()
    text, n = re.subn(r"(int n_threads)(\s*\);)", r"\1,\n\t\t\tunsigned long long *cells = nullptr\2", text)
    if n != 1:
        sys.exit("logan_build: %s: extendSeedL declaration not found" % path)
    open(path, "w").write(text)


def patch_demo(path):
    text = open(path).read()
    name = os.path.basename(path)
    text = replace_once(text, "#define GPU_THREADS 128\n",
                        "#define GPU_THREADS 128\n\n"
                        "/* measuring patch (warpsearch bench/logan_build.py): per-pair results and cell counts */\n"
                        "static FILE *g_results = nullptr;\n"
                        "static unsigned long long g_total_cells = 0;\n", name)
    text = replace_once(text, "\t\tint* res = (int*)malloc(numAlignmentsLocal * sizeof(int));",
                        "\t\tint* res = (int*)malloc(numAlignmentsLocal * sizeof(int));\n"
                        "\t\tstd::vector<unsigned long long> cells_b(numAlignmentsLocal, 0);", name)
    text = replace_once(text, "res, numAlignmentsLocal, ngpus, GPU_THREADS);\n",
                        "res, numAlignmentsLocal, ngpus, GPU_THREADS, g_results ? cells_b.data() : nullptr);\n"
                        "\t\tif (g_results)\n"
                        "\t\t\tfor (int j = 0; j < numAlignmentsLocal; j++) {\n"
                        "\t\t\t\tg_total_cells += cells_b[j];\n"
                        "\t\t\t\tfprintf(g_results, \"%d\\t%d\\t%d\\t%d\\t%d\\t%llu\\n\", res[j], seeds_b[j].beginPositionV, seeds_b[j].endPositionV,\n"
                        "\t\t\t\t\tseeds_b[j].beginPositionH, seeds_b[j].endPositionH, cells_b[j]);\n"
                        "\t\t\t}\n", name)
    text = replace_once(text, "\tstd::ifstream input(argv[1]);\n",
                        "\tif (argc != 5 && argc != 6) {\n"
                        "\t\tfprintf(stderr, \"usage: %s INPUT KMER_LENGTH XDROP NGPUS [RESULTS]\\n\"\n"
                        "\t\t\t\"  RESULTS: per pair 'score beginV endV beginH endH cells' (cells counted by an instrumented kernel)\\n\", argv[0]);\n"
                        "\t\treturn 2;\n"
                        "\t}\n"
                        "\tif (argc == 6 && !(g_results = fopen(argv[5], \"w\"))) {\n"
                        "\t\tperror(argv[5]);\n"
                        "\t\treturn 1;\n"
                        "\t}\n"
                        "\tstd::ifstream input(argv[1]);\n"
                        "\tif (!input) {\n"
                        "\t\tperror(argv[1]);\n"
                        "\t\treturn 1;\n"
                        "\t}\n", name)
    text = replace_once(text, "\tstd::cout<< \"Total Execution time:\\t\"<< duration_tot <<std::endl;\n",
                        "\tstd::cout<< \"Total Execution time:\\t\"<< duration_tot <<std::endl;\n"
                        "\tif (g_results) {\n"
                        "\t\tstd::cout << \"Computed cells:\\t\" << g_total_cells << std::endl;\n"
                        "\t\tif (fclose(g_results) != 0) { perror(argv[5]); return 1; }\n"
                        "\t}\n", name)
    open(path, "w").write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source")
    parser.add_argument("--build", default="/tmp/logan-build")
    parser.add_argument("--out", default="logan")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--no-patch", action="store_true", help="LOGAN's demo as published (no RESULTS argument)")
    args = parser.parse_args()
    if not os.path.isfile(os.path.join(args.source, "src", "logan_functions.cu")):
        sys.exit("logan_build: %s has no src/logan_functions.cu (a LOGAN checkout?)" % args.source)
    shutil.rmtree(args.build, ignore_errors=True)
    shutil.copytree(os.path.join(args.source, "src"), os.path.join(args.build, "src"))
    src = os.path.join(args.build, "src")
    if not args.no_patch:
        patch_kernel(os.path.join(src, "logan_functions.cu"))
        patch_header(os.path.join(src, "logan_functions.cuh"))
        patch_demo(os.path.join(src, "demo.cu"))
    flags = ["-O3", "-maxrregcount=32", "-std=c++14", "-I" + src, "-Xcompiler", "-fopenmp", "-arch=" + args.arch]
    objects = []
    for unit in ("demo", "seed", "score", "logan_functions"):
        obj = os.path.join(args.build, unit + ".o")
        command = ["nvcc", "-c"] + flags + ["-dc", os.path.join(src, unit + ".cu"), "-o", obj]
        print(" ".join(command), flush=True)
        subprocess.run(command, check=True)
        objects.append(obj)
    command = ["nvcc"] + flags + objects + ["-o", args.out]
    print(" ".join(command), flush=True)
    subprocess.run(command, check=True)
    subprocess.run(["strip", args.out], check=True)
    print("logan_build: %s (%d bytes)" % (args.out, os.path.getsize(args.out)))


if __name__ == "__main__":
    main()
