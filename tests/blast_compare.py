#!/usr/bin/env python3
"""Compares one output format of warpsearch with BLAST+'s on the alignments both report identically.

usage: blast_compare.py FORMAT BLAST_OUTPUT WARPSEARCH_OUTPUT [MIN_SHARED]

FORMAT: tab (outfmt 6 with columns), tab7, csv, xml, json, pairwise, qseq (outfmt "6 qseqid sseqid score
qstart qend sstart send qseq": the query's letters of every alignment with the same score and
coordinates, co-optimal paths included, for masked queries), sam-vs-tab (a warpsearch SAM
file checked against blastn's "6 qseqid sseqid sstart send sstrand score mismatch gaps"), or
searchio-xml and searchio-tab7 (both files read by Biopython's Bio.SearchIO, as a user's script would;
needs a python with Biopython).
An alignment is shared when BLAST's first HSP of a (query, subject) pair has the same score and
coordinates as warpsearch's hit; every field of every shared alignment must then be equal, and at
least MIN_SHARED (default 20) alignments must be shared. Both report several HSPs per subject, but not
the same ones (BLAST's depend on its seeds): per-subject fields (qcovs) are compared only where each
tool has one HSP for the pair.
Exit status 0 when the outputs agree; otherwise the differences on stdout and status 1.
"""
import csv
import json
import re
import sys
import xml.etree.ElementTree as ET


def fail(message):
    print(message)
    sys.exit(1)


def tabular_rows(path, kind):
    rows, fields = [], None
    with open(path, newline="") as f:
        if kind == "csv":
            for row in csv.reader(f):
                rows.append(row)
            return rows, fields
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# Fields: "):
                fields = line
                continue
            if line.startswith("#"):
                continue
            rows.append(line.split("\t"))
    return rows, fields


def compare_tabular(kind, blast_path, ours_path, minimum):
    # Columns: the tests ask for "std btop qcovs ...": qaccver and saccver first, coordinates at 6-9,
    # evalue and bitscore at 10-11, btop (which tells co-optimal alignments apart) at 12, qcovs at 13.
    blast, blast_fields = tabular_rows(blast_path, kind)
    ours, our_fields = tabular_rows(ours_path, kind)
    if kind == "tab7" and blast_fields != our_fields:
        fail("# Fields lines differ:\n  blast: %s\n  ours:  %s" % (blast_fields, our_fields))
    widths = {len(r) for r in ours}
    if len(widths) > 1:
        fail("warpsearch rows have different numbers of fields: %s" % sorted(widths))
    hsps, first = {}, {}
    for row in blast:
        key = (row[0], row[1])
        hsps[key] = hsps.get(key, 0) + 1
        first.setdefault(key, row)
    our_hsps = {}
    for row in ours:
        our_hsps[(row[0], row[1])] = our_hsps.get((row[0], row[1]), 0) + 1
    shared = 0
    problems = []
    seen = set()
    for row in ours:
        key = (row[0], row[1])
        if key not in first or key in seen:
            continue
        seen.add(key)  # warpsearch's first HSP of the pair, its best, against BLAST's first
        theirs = first[key]
        # Description fields: BLAST keeps a header's trailing blanks, warpsearch's reader drops them.
        theirs = [t.rstrip(" ") for t in theirs]
        row = [t.rstrip(" ") for t in row]
        if theirs[6:13] != row[6:13]:
            continue  # another alignment (co-optimal or a different HSP): not comparable
        shared += 1
        for i, (a, b) in enumerate(zip(theirs, row)):
            if a != b and not (i == 13 and (hsps[key] > 1 or our_hsps[key] > 1)):
                problems.append("%s column %d: blast %r, warpsearch %r" % (key, i + 1, a, b))
    return shared, problems


def xml_hsps(path):
    root = ET.parse(path).getroot()
    out = {}
    for iteration in root.iter("Iteration"):
        query = iteration.findtext("Iteration_query-def").split(" ")[0]
        for hit in iteration.iter("Hit"):
            hsps = hit.findall("Hit_hsps/Hsp")
            fields = {"Hit_id": hit.findtext("Hit_id"), "Hit_accession": hit.findtext("Hit_accession"),
                      "Hit_def": hit.findtext("Hit_def").rstrip(" "), "Hit_len": hit.findtext("Hit_len")}
            for child in hsps[0]:
                fields[child.tag] = child.text
            out[(query, hit.findtext("Hit_accession"))] = fields
    return out


def json_hsps(path):
    with open(path) as f:
        document = json.load(f)
    out = {}
    for report in document["BlastOutput2"]:
        search = report["report"]["results"]["search"]
        query = search["query_title"].split(" ")[0]
        for hit in search["hits"]:
            description = dict(hit["description"][0])
            description["title"] = description["title"].rstrip(" ")
            fields = dict(hit["hsps"][0])
            fields.update({"d_" + k: v for k, v in description.items()})
            fields["len"] = hit["len"]
            out[(query, description["accession"])] = fields
    return out


def compare_structured(blast, ours, coordinates):
    shared, problems = 0, []
    for key, fields in ours.items():
        theirs = blast.get(key)
        if theirs is None or any(str(theirs[c]) != str(fields[c]) for c in coordinates):
            continue
        shared += 1
        for name, value in theirs.items():
            if name not in fields:
                problems.append("%s: field %s missing" % (key, name))
            elif str(fields[name]) != str(value):
                problems.append("%s %s: blast %r, warpsearch %r" % (key, name, value, fields[name]))
    return shared, problems


def pairwise_blocks(path):
    """(query id, subject accession) -> the lines of the subject's first alignment, Score line on."""
    blocks, query, subject, lines = {}, None, None, None
    for line in open(path):
        line = line.rstrip("\n").rstrip(" ")
        if line.startswith("Query= "):
            query = line[7:].split(" ")[0]
            subject = None
        elif line.startswith(">"):
            subject = line[1:].split(" ")[0]
            lines = None
        elif line.startswith(" Score = ") and subject is not None:
            if (query, subject) in blocks:
                subject = None  # a further HSP of the same subject
                continue
            lines = blocks[(query, subject)] = [line]
        elif line.startswith("Lambda") or line.startswith("Gapped") or line.startswith("Effective"):
            subject, lines = None, None
        elif lines is not None and line:
            lines.append(line)
    return blocks


def compare_pairwise(blast_path, ours_path):
    blast, ours = pairwise_blocks(blast_path), pairwise_blocks(ours_path)
    shared, problems = 0, []
    for key, lines in ours.items():
        theirs = blast.get(key)
        # Same alignment: the same first Query and Sbjct lines (coordinates and residues).
        sequences = lambda block: [l for l in block if l.startswith("Query ") or l.startswith("Sbjct ")]
        if theirs is None or sequences(theirs) != sequences(lines) or theirs[0] != lines[0]:
            continue
        shared += 1
        if theirs != lines:
            problems.append("%s:\n  blast: %s\n  ours:  %s" % (key, "\n         ".join(theirs), "\n         ".join(lines)))
    return shared, problems


def compare_sam(blast_tab, ours_sam):
    blast = {}
    for line in open(blast_tab):
        q, s, sstart, send, strand, score, mismatch, gaps = line.rstrip("\n").split("\t")
        blast.setdefault((q, s), (int(sstart), int(send), strand, int(score), int(mismatch) + int(gaps)))
    shared, problems = 0, []
    for line in open(ours_sam):
        if line.startswith("@"):
            continue
        f = line.rstrip("\n").split("\t")
        theirs = blast.get((f[0], f[2]))
        if theirs is None:
            continue
        sstart, send, strand, score, edits = theirs
        tags = dict((t[:2], t[5:]) for t in f[11:])
        if int(tags["AS"]) != score or int(f[3]) != min(sstart, send):
            continue
        shared += 1
        flag = 16 if strand == "minus" else 0
        reference_span = sum(int(n) for n, op in re.findall(r"(\d+)([MIDS])", f[5]) if op in "MD")
        query_span = sum(int(n) for n, op in re.findall(r"(\d+)([MIDS])", f[5]) if op in "MIS")
        if int(f[1]) != flag:
            problems.append("%s: FLAG %s, blast strand %s" % (f[0], f[1], strand))
        if reference_span != abs(send - sstart) + 1:
            problems.append("%s: CIGAR %s spans %d reference bases, blast %d" % (f[0], f[5], reference_span, abs(send - sstart) + 1))
        if query_span != len(f[9]):
            problems.append("%s: CIGAR %s does not cover SEQ (%d)" % (f[0], f[5], len(f[9])))
        if int(tags["NM"]) != edits:
            problems.append("%s: NM %s, blast mismatches + gaps %d" % (f[0], tags["NM"], edits))
    return shared, problems


def searchio_hsps(path, kind):
    from Bio import SearchIO  # only this mode needs Biopython
    import warnings
    warnings.simplefilter("ignore")
    if kind == "searchio-xml":
        queries = list(SearchIO.parse(path, "blast-xml"))
    else:
        queries = list(SearchIO.parse(path, "blast-tab", comments=True))
    out = {}
    for query in queries:
        for hit in query:
            hsp = hit.hsps[0]
            out[(query.id, hit.id)] = {"bitscore": hsp.bitscore, "evalue": hsp.evalue, "query_start": hsp.query_start,
                                       "query_end": hsp.query_end, "hit_start": hsp.hit_start, "hit_end": hsp.hit_end,
                                       "program": query.program, "version": query.version, "query_count": len(queries)}
    return out


def compare_query_letters(blast_path, ours_path):
    """qseq of the alignments with the same score and coordinates, gaps left out (a co-optimal path
    places them elsewhere); subject IDs compared by their accession."""
    def rows(path):
        found = {}
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            subject = f[1].split("|")[1] if f[1].count("|") >= 2 else f[1]
            found.setdefault((f[0], subject, *f[2:7]), f[7].replace("-", ""))
        return found
    blast, ours = rows(blast_path), rows(ours_path)
    shared = [key for key in blast if key in ours]
    problems = ["%s: BLAST %s, warpsearch %s" % (key, blast[key][:60], ours[key][:60])
                for key in shared if blast[key] != ours[key]]
    return len(shared), problems


def main():
    kind, blast_path, ours_path = sys.argv[1:4]
    minimum = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    if kind in ("tab", "tab7", "csv"):
        shared, problems = compare_tabular(kind, blast_path, ours_path, minimum)
    elif kind == "xml":
        shared, problems = compare_structured(xml_hsps(blast_path), xml_hsps(ours_path),
                                              ["Hsp_score", "Hsp_query-from", "Hsp_query-to", "Hsp_hit-from", "Hsp_hit-to",
                                               "Hsp_qseq", "Hsp_hseq"])
    elif kind == "json":
        shared, problems = compare_structured(json_hsps(blast_path), json_hsps(ours_path),
                                              ["score", "query_from", "query_to", "hit_from", "hit_to", "qseq", "hseq"])
    elif kind == "pairwise":
        shared, problems = compare_pairwise(blast_path, ours_path)
    elif kind in ("searchio-xml", "searchio-tab7"):
        shared, problems = compare_structured(searchio_hsps(blast_path, kind), searchio_hsps(ours_path, kind),
                                              ["query_start", "query_end", "hit_start", "hit_end"])
    elif kind == "sam-vs-tab":
        shared, problems = compare_sam(blast_path, ours_path)
    elif kind == "qseq":
        shared, problems = compare_query_letters(blast_path, ours_path)
    else:
        fail("unknown format " + kind)
    print("%s: %d shared alignments, %d differences" % (kind, shared, len(problems)))
    for problem in problems[:20]:
        print(problem)
    if problems or shared < minimum:
        sys.exit(1)


if __name__ == "__main__":
    main()
