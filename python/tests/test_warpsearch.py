"""The Python module against the warpsearch tool: the same hits and alignments, field by field; the
forms queries may take; errors as Python exceptions with the tool's messages; the GIL released."""
import math
import subprocess
import threading
import time

import pytest

import warpsearch

COLUMNS = ("qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore score qlen slen "
           "cigar qseq sseq qcovhsp sstrand nident gaps").split()
INTEGER_COLUMNS = {"length", "mismatch", "gapopen", "qstart", "qend", "sstart", "send", "score", "qlen", "slen",
                   "qcovhsp", "nident", "gaps"}


def run_tool(tool, *args):
    return subprocess.run([tool, *map(str, args)], capture_output=True, text=True)


def tool_rows(output):
    return [dict(zip(COLUMNS, line.split("\t"))) for line in output.splitlines()]


def close_to_printed(printed, value):
    """The tool prints a few digits (BLAST's formats): they differ by less than one unit of the last."""
    if printed == "NA":
        return value is None
    mantissa, _, exponent = printed.partition("e")
    decimals = len(mantissa.partition(".")[2])
    unit = 10.0 ** (int(exponent or 0) - decimals)
    return abs(float(printed) - value) <= unit * 1.0001


def check_same_hits(hits, rows):
    assert len(hits) == len(rows)
    for hit, row in zip(hits, rows):
        for column in COLUMNS:
            if column in INTEGER_COLUMNS:
                assert hit[column] == int(row[column]), column
            elif column in ("pident", "evalue", "bitscore"):
                assert close_to_printed(row[column], hit[column]), column
            elif column == "sstrand" and row[column] == "N/A":
                assert hit[column] == "plus", column  # protein: BLAST prints N/A
            else:
                assert hit[column] == row[column], column


def test_version_is_the_tools(tool):
    assert run_tool(tool, "--version").stdout.splitlines()[0] == f"warpsearch {warpsearch.__version__}"
    assert warpsearch.__version__.count(".") == 2


def test_search_equals_the_tool(tool, protein_db, data):
    options = dict(max_target_seqs=5, matrix="BLOSUM80", gapopen=10, gapextend=1)
    hits = warpsearch.Database(protein_db).search(str(data / "queries.fa"), aligned=True, **options)
    out = run_tool(tool, "search", "--quiet", "-q", data / "queries.fa", "-d", protein_db, "--max-target-seqs", 5,
                   "--matrix", "BLOSUM80", "--gapopen", 10, "--gapextend", 1, "--outfmt", "6 " + " ".join(COLUMNS))
    assert out.returncode == 0, out.stderr
    check_same_hits(hits, tool_rows(out.stdout))


def test_nucleotide_search_both_strands(tool, tmp_path, data):
    report = warpsearch.makedb(data / "dna_sample.fa", tmp_path / "dna")
    assert report["type"] == "nucleotide"
    db = warpsearch.Database(tmp_path / "dna")
    assert len(db) == report["sequences"]
    hits = db.search(data / "dna_queries.fa", max_target_seqs=3, aligned=True)
    assert {hit["sstrand"] for hit in hits} == {"plus", "minus"}
    out = run_tool(tool, "search", "--quiet", "-q", data / "dna_queries.fa", "-d", tmp_path / "dna",
                   "--max-target-seqs", 3, "--outfmt", "6 " + " ".join(COLUMNS))
    check_same_hits(hits, tool_rows(out.stdout))
    plus_only = db.search(data / "dna_queries.fa", max_target_seqs=3, strand="plus")
    assert {hit["sstrand"] for hit in plus_only} == {"plus"}


def test_query_forms_give_the_same_hits(protein_db, data):
    records = warpsearch.read_fasta(data / "queries.fa")
    db = warpsearch.Database(str(protein_db))
    from_file = db.search(data / "queries.fa", max_target_seqs=3)
    from_tuples = db.search(records, max_target_seqs=3)
    from_dict = db.search({record[0]: record[1] for record in records}, max_target_seqs=3)
    assert from_file == from_tuples == from_dict
    unnamed = db.search([record[1] for record in records[:2]], max_target_seqs=3)
    assert {hit["qseqid"] for hit in unnamed} == {"Query_1", "Query_2"}
    one = db.search(records[0][1].lower(), max_target_seqs=3)
    assert [hit["sseqid"] for hit in one] == [hit["sseqid"] for hit in from_file if hit["qseqid"] == records[0][0]]

    class Record:  # Biopython's SeqRecord shape
        def __init__(self, id, seq):
            self.id, self.seq, self.description = id, seq, id + " something"

    assert db.search([Record(*records[0][:2])], max_target_seqs=3)[0]["qseqid"] == records[0][0]
    searcher = db.searcher(max_target_seqs=3)
    assert searcher.backend.startswith(("cpu (", "gpu ("))
    assert searcher.search(records) == from_file


def test_makedb_from_memory_equals_makedb_from_file(tmp_path, protein_db, data):
    records = warpsearch.read_fasta(data / "uniprot_sample.fa")
    report = warpsearch.makedb(records, tmp_path / "memory")
    assert report["sequences"] == len(records) == 4000
    memory = warpsearch.Database(tmp_path / "memory")
    assert memory.id(17) == records[17][0] and memory.description(17) == records[17][2]
    queries = data / "queries.fa"
    assert memory.search(queries, max_target_seqs=4) == warpsearch.Database(protein_db).search(queries, max_target_seqs=4)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # the temporary FASTA is gone


def test_columns_equal_dicts(protein_db, data):
    db = warpsearch.Database(protein_db)
    hits = db.search(data / "queries.fa", max_target_seqs=3)
    columns = db.search(data / "queries.fa", max_target_seqs=3, output="columns")
    assert set(columns) == set(hits[0])
    for name, values in columns.items():
        assert len(values) == len(hits)
        assert [hit[name] for hit in hits] == pytest.approx(list(values)) if name in ("pident", "evalue", "bitscore") \
            else [hit[name] for hit in hits] == list(values)
    try:
        import numpy
    except ImportError:
        return
    assert isinstance(columns["score"], numpy.ndarray) and columns["score"].dtype == numpy.int64
    assert isinstance(columns["evalue"], numpy.ndarray) and columns["evalue"].dtype == numpy.float64


def test_raw_scores_have_no_evalues(protein_db, data):
    hits = warpsearch.Database(protein_db).search(data / "queries.fa", max_target_seqs=2, raw_scores=True)
    assert hits and all(hit["evalue"] is None and hit["bitscore"] is None for hit in hits)
    columns = warpsearch.Database(protein_db).search(data / "queries.fa", max_target_seqs=2, raw_scores=True,
                                                     output="columns")
    assert all(math.isnan(value) for value in columns["evalue"])


@pytest.mark.parametrize("mode", ["local", "global", "semiglobal", "xdrop"])
def test_align_equals_the_tool(tool, tmp_path, mode):
    queries = [("a", "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQ"), ("b", "GSHMSLFDFFKNKGSAATATDRLKLN"),
               ("c", "WWWWW")]
    targets = [("x", "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQKPILSRVGDGTQDNLSGAEKAVQ"), ("y", "MSLFDFFKNKGSAATATDRLKLNQWG"),
               ("z", "PPPPPPPP")]
    (tmp_path / "q.fa").write_text("".join(f">{i}\n{s}\n" for i, s in queries))
    (tmp_path / "t.fa").write_text("".join(f">{i}\n{s}\n" for i, s in targets))
    alignments = warpsearch.align(queries, targets, mode=mode, aligned=True)
    assert alignments == warpsearch.align(tmp_path / "q.fa", tmp_path / "t.fa", mode=mode, aligned=True)
    out = run_tool(tool, "align", "--quiet", "--cigar", "--aligned", "--mode", mode, "-q", tmp_path / "q.fa", "-t",
                   tmp_path / "t.fa")
    lines = out.stdout.splitlines()
    header = lines[0].split("\t")
    assert len(lines) == 4
    for alignment, line in zip(alignments, lines[1:]):
        for name, value in zip(header, line.split("\t")):
            expected = alignment[name]
            assert (str(expected) if expected != "" else "*") == value, name


def test_align_xdrop_seeds_and_columns():
    result = warpsearch.align(["ACGTACGTAAAACCCCGGGG"], ["TTACGTACGTAAAACCCCGGGG"], mode="xdrop", xdrop=20,
                              seeds=[(5, 7, 4)])
    assert (result[0]["query_start"], result[0]["target_start"], result[0]["cigar"]) == (1, 3, "20M")
    columns = warpsearch.align(["ACGT", "GGGG"], ["ACGT", "CCCC"], mode="global", output="columns")
    assert list(columns["score"]) == [8, -12]
    assert columns["target_id"] == ["Target_1", "Target_2"]


def test_errors_are_exceptions_with_the_tools_messages(tool, tmp_path, protein_db):
    with pytest.raises(RuntimeError) as error:
        warpsearch.Database(tmp_path / "missing")
    (tmp_path / "q.fa").write_text(">q\nMKV\n")
    out = run_tool(tool, "search", "-q", tmp_path / "q.fa", "-d", tmp_path / "missing")
    assert out.stderr == f"warpsearch search: error: {error.value}\n"

    db = warpsearch.Database(protein_db)
    with pytest.raises(ValueError) as error:
        db.search("MKV", matrix="BLOSUM63")
    out = run_tool(tool, "search", "-q", tmp_path / "q.fa", "-d", protein_db, "--matrix", "BLOSUM63")
    # A usage error for the tool (exit 2, the option named), the same words.
    assert out.returncode == 2
    assert out.stderr.splitlines()[0] == f"warpsearch search: --matrix: {error.value}"

    with pytest.raises(ValueError, match=r"query 2 \('q2'\): '1' at position 2 is not a protein residue"):
        db.search([("q1", "MKV"), ("q2", "M1KV")])
    with pytest.raises(ValueError, match="strand takes both, plus or minus, not 'up'"):
        db.search("MKV", strand="up")
    with pytest.raises(ValueError, match="match and mismatch are for nucleotide databases"):
        db.search("MKV", match=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'evalu'"):
        db.search("MKV", evalu=1)
    with pytest.raises(RuntimeError, match="cannot open"):
        db.search(tmp_path / "no-such.fa")
    with pytest.raises(ValueError, match="2 queries but 1 targets"):
        warpsearch.align(["ACGT", "ACGT"], ["ACGT"])
    with pytest.raises(IndexError):
        warpsearch.align(["ACGT"], ["ACGT"], mode="xdrop", seeds=[(9, 1, 1)])
    with pytest.raises(RuntimeError):
        warpsearch.makedb([("a", "MKV")], protein_db)  # exists


def test_the_gil_is_released_during_a_search(protein_db, data):
    db = warpsearch.Database(protein_db)
    queries = warpsearch.read_fasta(data / "queries.fa") * 4
    done = threading.Event()
    seconds = []

    def search():
        start = time.perf_counter()
        # On the CPU with one thread: long enough to see the GIL, on any machine (a GPU is too quick).
        db.search(queries, max_target_seqs=1, threads=1, device="cpu")
        seconds.append(time.perf_counter() - start)
        done.set()

    worker = threading.Thread(target=search)
    longest_pause, last = 0.0, time.perf_counter()
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        longest_pause, last = max(longest_pause, now - last), now
        time.sleep(0.001)
    worker.join()
    # Held, the GIL would stop this loop for the whole search.
    assert seconds[0] > 0.2
    assert longest_pause < seconds[0] / 2


def test_gpu_search_equals_cpu_search(protein_db, data):
    """The GPU twin: on a machine with a usable GPU, device='gpu' gives the CPU's hits exactly."""
    db = warpsearch.Database(str(protein_db))
    try:
        searcher = db.searcher(device="gpu", max_target_seqs=20)
    except Exception as error:  # no GPU, or a build without CUDA
        pytest.skip(f"no usable GPU: {error}")
    assert searcher.backend.startswith("gpu (")
    gpu = searcher.search(data / "queries.fa")
    cpu = db.search(data / "queries.fa", device="cpu", max_target_seqs=20)
    assert len(cpu) >= 20
    assert gpu == cpu
