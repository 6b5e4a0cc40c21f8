// Results of the Python module's calls as Python objects: a list of dicts, one per hit or alignment,
// keyed by BLAST's column names (search) or the `warpsearch align` TSV columns (align); or, with columns,
// one dict of columns, the numeric ones as numpy arrays where numpy imports (else lists). Called with the
// GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "warpsearch/warpsearch.hpp"

namespace warpsearch_python {

namespace py = pybind11;

// The hits of every result, in order; aligned: with the qseq and sseq columns.
py::object hits_to_python(const std::vector<warpsearch::QueryResult>& results, bool aligned, bool columns);

// The alignment of queries[p] with targets[p], for each p; cigar_column and aligned: with the cigar column
// and with the aligned sequences (either also brings the counts: length, nident, mismatch, gapopen, gaps).
py::object alignments_to_python(const std::vector<warpsearch::Alignment>& alignments,
                                const std::vector<warpsearch::Sequence>& queries,
                                const std::vector<warpsearch::Sequence>& targets, bool cigar_column, bool aligned,
                                bool columns);

// makedb's report, as a dict.
py::dict report_to_python(const warpsearch::MakeDbReport& report);

}  // namespace warpsearch_python
