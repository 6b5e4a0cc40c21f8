// Results of the Python module's calls as Python objects (see results.hpp).
#include "python/results.hpp"

#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warpsearch_python {

namespace {

py::object number_or_none(double value) { return std::isnan(value) ? py::object(py::none()) : py::float_(value); }

// Columns: numeric ones as numpy arrays where numpy imports, else lists. The arrays are made by numpy
// itself (frombuffer on the raw values, then a copy the caller owns), not through pybind11's numpy
// structures: a pybind11 older than 2.12 built against numpy 2 reads numpy's descriptors with the old
// layout and makes arrays with the wrong strides.
class ColumnBuilder {
 public:
  ColumnBuilder() {
    try {
      numpy_ = py::module_::import("numpy");
    } catch (const py::error_already_set&) {
      numpy_ = py::none();
    }
  }
  template <typename T>
  void add(py::dict& out, const char* name, const std::vector<T>& values) const {
    if (numpy_.is_none()) {
      out[name] = py::cast(values);
      return;
    }
    const py::bytes raw(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    out[name] = numpy_.attr("frombuffer")(raw, py::str(py::format_descriptor<T>::format())).attr("copy")();
  }

 private:
  py::object numpy_;
};

}  // namespace

py::object hits_to_python(const std::vector<warpsearch::QueryResult>& results, bool aligned, bool columns) {
  if (!columns) {
    py::list out;
    for (const auto& result : results)
      for (const auto& hit : result.hits) {
        py::dict d;
        d["qseqid"] = hit.qseqid;
        d["sseqid"] = hit.sseqid;
        d["pident"] = hit.pident;
        d["length"] = hit.length;
        d["mismatch"] = hit.mismatch;
        d["gapopen"] = hit.gapopen;
        d["qstart"] = hit.qstart;
        d["qend"] = hit.qend;
        d["sstart"] = hit.sstart;
        d["send"] = hit.send;
        d["evalue"] = number_or_none(hit.evalue);
        d["bitscore"] = number_or_none(hit.bitscore);
        d["score"] = hit.score;
        d["qlen"] = hit.qlen;
        d["slen"] = hit.slen;
        d["cigar"] = hit.cigar;
        if (aligned) {
          d["qseq"] = hit.qseq;
          d["sseq"] = hit.sseq;
        }
        d["qcovhsp"] = hit.qcovhsp;
        d["stitle"] = hit.stitle;
        d["sstrand"] = hit.sstrand == warpsearch::Strand::minus ? "minus" : "plus";
        d["nident"] = hit.nident;
        d["gaps"] = hit.gaps;
        out.append(std::move(d));
      }
    return std::move(out);
  }
  std::vector<std::string> qseqid, sseqid, cigar, qseq, sseq, stitle, sstrand;
  std::vector<double> pident, evalue, bitscore;
  std::vector<std::int64_t> length, mismatch, gapopen, qstart, qend, sstart, send, score, qlen, slen, qcovhsp, nident,
      gaps;
  for (const auto& result : results)
    for (const auto& h : result.hits) {
      qseqid.push_back(h.qseqid);
      sseqid.push_back(h.sseqid);
      pident.push_back(h.pident);
      length.push_back(static_cast<std::int64_t>(h.length));
      mismatch.push_back(static_cast<std::int64_t>(h.mismatch));
      gapopen.push_back(static_cast<std::int64_t>(h.gapopen));
      qstart.push_back(static_cast<std::int64_t>(h.qstart));
      qend.push_back(static_cast<std::int64_t>(h.qend));
      sstart.push_back(static_cast<std::int64_t>(h.sstart));
      send.push_back(static_cast<std::int64_t>(h.send));
      evalue.push_back(h.evalue);
      bitscore.push_back(h.bitscore);
      score.push_back(h.score);
      qlen.push_back(static_cast<std::int64_t>(h.qlen));
      slen.push_back(static_cast<std::int64_t>(h.slen));
      cigar.push_back(h.cigar);
      qseq.push_back(h.qseq);
      sseq.push_back(h.sseq);
      qcovhsp.push_back(h.qcovhsp);
      stitle.push_back(h.stitle);
      sstrand.push_back(h.sstrand == warpsearch::Strand::minus ? "minus" : "plus");
      nident.push_back(static_cast<std::int64_t>(h.nident));
      gaps.push_back(static_cast<std::int64_t>(h.gaps));
    }
  const ColumnBuilder builder;
  py::dict out;
  out["qseqid"] = qseqid;
  out["sseqid"] = sseqid;
  builder.add(out, "pident", pident);
  builder.add(out, "length", length);
  builder.add(out, "mismatch", mismatch);
  builder.add(out, "gapopen", gapopen);
  builder.add(out, "qstart", qstart);
  builder.add(out, "qend", qend);
  builder.add(out, "sstart", sstart);
  builder.add(out, "send", send);
  builder.add(out, "evalue", evalue);
  builder.add(out, "bitscore", bitscore);
  builder.add(out, "score", score);
  builder.add(out, "qlen", qlen);
  builder.add(out, "slen", slen);
  out["cigar"] = cigar;
  if (aligned) {
    out["qseq"] = qseq;
    out["sseq"] = sseq;
  }
  builder.add(out, "qcovhsp", qcovhsp);
  out["stitle"] = stitle;
  out["sstrand"] = sstrand;
  builder.add(out, "nident", nident);
  builder.add(out, "gaps", gaps);
  return std::move(out);
}

py::dict report_to_python(const warpsearch::MakeDbReport& report) {
  py::dict d;
  d["type"] = warpsearch::sequence_type_name(report.type);
  d["sequences"] = report.sequences;
  d["residues"] = report.residues;
  d["skipped"] = report.skipped;
  d["max_length"] = report.max_length;
  d["chunks"] = report.chunks;
  d["seconds"] = report.seconds;
  return d;
}

py::object alignments_to_python(const std::vector<warpsearch::Alignment>& alignments,
                                const std::vector<warpsearch::Sequence>& queries,
                                const std::vector<warpsearch::Sequence>& targets, bool cigar_column, bool aligned,
                                bool columns) {
  const auto& q = queries;
  const auto& t = targets;
  const bool counts = cigar_column || aligned;
  if (!columns) {
    py::list out;
    for (std::size_t p = 0; p < alignments.size(); ++p) {
      const auto& a = alignments[p];
      py::dict d;
      d["query_id"] = q[p].id;
      d["target_id"] = t[p].id;
      d["score"] = a.score;
      d["query_start"] = a.query_start;
      d["query_end"] = a.query_end;
      d["target_start"] = a.target_start;
      d["target_end"] = a.target_end;
      if (cigar_column) d["cigar"] = a.cigar;
      if (aligned) {
        d["query_aligned"] = a.query_aligned;
        d["target_aligned"] = a.target_aligned;
      }
      if (counts) {
        d["length"] = a.length;
        d["nident"] = a.nident;
        d["mismatch"] = a.mismatch;
        d["gapopen"] = a.gapopen;
        d["gaps"] = a.gaps;
      }
      out.append(std::move(d));
    }
    return std::move(out);
  }
  std::vector<std::string> query_id, target_id, cigar, query_aligned, target_aligned;
  std::vector<std::int64_t> score, query_start, query_end, target_start, target_end, length, nident, mismatch, gapopen,
      gaps;
  for (std::size_t p = 0; p < alignments.size(); ++p) {
    const auto& a = alignments[p];
    query_id.push_back(q[p].id);
    target_id.push_back(t[p].id);
    score.push_back(a.score);
    query_start.push_back(a.query_start);
    query_end.push_back(a.query_end);
    target_start.push_back(a.target_start);
    target_end.push_back(a.target_end);
    cigar.push_back(a.cigar);
    query_aligned.push_back(a.query_aligned);
    target_aligned.push_back(a.target_aligned);
    length.push_back(a.length);
    nident.push_back(a.nident);
    mismatch.push_back(a.mismatch);
    gapopen.push_back(a.gapopen);
    gaps.push_back(a.gaps);
  }
  const ColumnBuilder builder;
  py::dict out;
  out["query_id"] = query_id;
  out["target_id"] = target_id;
  builder.add(out, "score", score);
  builder.add(out, "query_start", query_start);
  builder.add(out, "query_end", query_end);
  builder.add(out, "target_start", target_start);
  builder.add(out, "target_end", target_end);
  if (cigar_column) out["cigar"] = cigar;
  if (aligned) {
    out["query_aligned"] = query_aligned;
    out["target_aligned"] = target_aligned;
  }
  if (counts) {
    builder.add(out, "length", length);
    builder.add(out, "nident", nident);
    builder.add(out, "mismatch", mismatch);
    builder.add(out, "gapopen", gapopen);
    builder.add(out, "gaps", gaps);
  }
  return std::move(out);
}

}  // namespace warpsearch_python
