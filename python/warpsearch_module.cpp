// The Python module `warpsearch`: the public C++ API (include/warpsearch/) for Python.
//
//   import warpsearch
//   warpsearch.makedb("proteins.fa", "proteins.wsdb")
//   db = warpsearch.Database("proteins.wsdb")
//   for hit in db.search("MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ", max_target_seqs=5):
//       print(hit["sseqid"], hit["evalue"])
//   warpsearch.align(["ACGTTGCA"], ["ACGTGCA"], mode="global")
//
// Sequences are given as one string of letters, a list of them (named Query_1, Query_2, ... as BLAST
// names unnamed queries; Target_1, ... and Sequence_1, ... for align's targets and makedb's input), a list of (id,
// letters) or (id, letters, description) tuples, a dict {id: letters}, objects with .id and .seq (Biopython's
// SeqRecord), or the path of a FASTA file (a str naming an existing file, or any os.PathLike). Options are the command
// line's, as keywords. Results are dicts keyed by BLAST's column names (search) or the `warpsearch align` TSV columns
// (align); with output="columns", one dict of columns instead, numeric columns as numpy arrays where numpy imports. The
// GIL is released while the engine works. C++ errors arrive as ValueError (bad options or letters), IndexError
// (positions) and RuntimeError (files), with the command line's messages.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "python/results.hpp"
#include "warpsearch/warpsearch.hpp"

namespace py = pybind11;

namespace {

using warpsearch_python::alignments_to_python;
using warpsearch_python::hits_to_python;
using warpsearch_python::report_to_python;

// Queries or targets as the API takes them: records in memory, or a FASTA path.
struct Sequences {
  std::vector<warpsearch::Sequence> records;
  std::optional<std::string> fasta_path;
};

bool looks_like_letters(const std::string& text) {
  if (text.empty()) return false;
  for (const unsigned char c : text)
    if (!std::isalpha(c) && c != '*' && c != ' ' && c != '\n' && c != '\r' && c != '\t') return false;
  return true;
}

// Unnamed sequences are called prefix + their 1-based number: Query_1, Target_1, ...
Sequences to_sequences(const py::handle& given, const char* what, const std::string& prefix) {
  Sequences out;
  const py::module_ os = py::module_::import("os");
  if (py::isinstance<py::str>(given)) {
    const auto text = given.cast<std::string>();
    if (os.attr("path").attr("exists")(given).cast<bool>() || !looks_like_letters(text))
      out.fasta_path = text;
    else
      out.records.emplace_back(prefix + "1", text);
    return out;
  }
  if (py::hasattr(given, "__fspath__")) {
    out.fasta_path = os.attr("fspath")(given).cast<std::string>();
    return out;
  }
  if (py::isinstance<py::dict>(given)) {
    for (const auto& item : given.cast<py::dict>())
      out.records.emplace_back(py::str(item.first).cast<std::string>(), py::str(item.second).cast<std::string>());
    return out;
  }
  if (!py::isinstance<py::iterable>(given))
    throw py::type_error(std::string(what) +
                         ": expected letters, a list of sequences, a dict {id: letters} or a "
                         "FASTA path, not " +
                         py::str(given.get_type()).cast<std::string>());
  std::size_t index = 0;
  for (const auto& item : given) {
    ++index;
    if (py::isinstance<py::str>(item)) {
      out.records.emplace_back(prefix + std::to_string(index), item.cast<std::string>());
    } else if (py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item)) {
      const auto fields = item.cast<py::sequence>();
      if (fields.size() < 2 || fields.size() > 3)
        throw py::value_error(std::string(what) + " " + std::to_string(index) +
                              ": expected (id, letters) or (id, letters, description)");
      out.records.emplace_back(py::str(fields[0]).cast<std::string>(), py::str(fields[1]).cast<std::string>(),
                               fields.size() == 3 ? py::str(fields[2]).cast<std::string>() : std::string());
    } else if (py::hasattr(item, "id") && py::hasattr(item, "seq")) {
      std::string description;
      if (py::hasattr(item, "description")) {
        description = py::str(item.attr("description")).cast<std::string>();
        const std::string id = py::str(item.attr("id")).cast<std::string>();
        // SeqRecord's description repeats the ID first, as a FASTA header line does.
        if (description.rfind(id, 0) == 0) description.erase(0, id.size());
        while (!description.empty() && description.front() == ' ') description.erase(0, 1);
      }
      out.records.emplace_back(py::str(item.attr("id")).cast<std::string>(),
                               py::str(item.attr("seq")).cast<std::string>(), description);
    } else {
      throw py::type_error(std::string(what) + " " + std::to_string(index) +
                           ": expected letters, an (id, letters) tuple or a record with .id and .seq");
    }
  }
  return out;
}

// Keyword options, checked by name as Python checks them.
class Options {
 public:
  Options(const py::kwargs& given, const char* function, std::set<std::string> known) : given_(given) {
    for (const auto& item : given) {
      const auto name = py::str(item.first).cast<std::string>();
      if (!known.count(name))
        throw py::type_error(std::string(function) + "() got an unexpected keyword argument '" + name + "'");
    }
  }
  template <typename T>
  std::optional<T> get(const char* name) const {
    if (!given_.contains(name) || given_[name].is_none()) return std::nullopt;
    return given_[name].cast<T>();
  }

 private:
  const py::kwargs& given_;
};

const std::set<std::string> kScoringOptions = {"matrix", "gapopen", "gapextend", "match", "mismatch"};

warpsearch::Scoring scoring_of(const Options& options) {
  warpsearch::Scoring scoring;
  scoring.matrix = options.get<std::string>("matrix");
  scoring.gap_open = options.get<int>("gapopen");
  scoring.gap_extend = options.get<int>("gapextend");
  scoring.match = options.get<int>("match");
  scoring.mismatch = options.get<int>("mismatch");
  return scoring;
}

warpsearch::Device device_of(const Options& options) {
  const auto name = options.get<std::string>("device").value_or("auto");
  if (name == "auto") return warpsearch::Device::automatic;
  if (name == "cpu") return warpsearch::Device::cpu;
  if (name == "gpu") return warpsearch::Device::gpu;
  throw py::value_error("device takes auto, cpu or gpu, not '" + name + "'");
}

std::optional<warpsearch::SequenceType> type_of(const Options& options) {
  const auto name = options.get<std::string>("dbtype");
  if (!name || *name == "auto") return std::nullopt;
  if (*name == "prot" || *name == "protein") return warpsearch::SequenceType::protein;
  if (*name == "nucl" || *name == "nucleotide") return warpsearch::SequenceType::nucleotide;
  throw py::value_error("dbtype takes prot (protein) or nucl (nucleotide), not '" + *name + "'");
}

std::set<std::string> with_scoring(std::set<std::string> names) {
  names.insert(kScoringOptions.begin(), kScoringOptions.end());
  return names;
}

const std::set<std::string> kSearchOptions =
    with_scoring({"evalue", "max_target_seqs", "max_hsps", "min_score", "raw_scores", "comp_based_stats", "strand",
                  "device", "threads", "gpus", "query_batch", "gpu_memory", "skip_invalid", "aligned", "output"});

warpsearch::SearchOptions search_options_of(const Options& options) {
  warpsearch::SearchOptions out;
  out.scoring = scoring_of(options);
  out.evalue = options.get<double>("evalue").value_or(out.evalue);
  out.max_target_seqs = options.get<std::size_t>("max_target_seqs").value_or(out.max_target_seqs);
  out.max_hsps = options.get<std::size_t>("max_hsps").value_or(out.max_hsps);
  out.min_score = options.get<int>("min_score").value_or(out.min_score);
  out.raw_scores = options.get<bool>("raw_scores").value_or(false);
  out.comp_based_stats = options.get<int>("comp_based_stats").value_or(0);
  const auto strand = options.get<std::string>("strand").value_or("both");
  if (strand == "both")
    out.strand = warpsearch::Strand::both;
  else if (strand == "plus")
    out.strand = warpsearch::Strand::plus;
  else if (strand == "minus")
    out.strand = warpsearch::Strand::minus;
  else
    throw py::value_error("strand takes both, plus or minus, not '" + strand + "'");
  out.device = device_of(options);
  out.threads = options.get<unsigned>("threads").value_or(0);
  out.gpus = options.get<std::vector<int>>("gpus").value_or(std::vector<int>{});
  out.query_batch = options.get<std::size_t>("query_batch").value_or(out.query_batch);
  out.gpu_memory_limit = options.get<std::uint64_t>("gpu_memory").value_or(0);
  out.skip_invalid = options.get<bool>("skip_invalid").value_or(false);
  out.aligned_sequences = options.get<bool>("aligned").value_or(false);
  return out;
}

bool columns_wanted(const Options& options) {
  const auto output = options.get<std::string>("output").value_or("dicts");
  if (output == "dicts") return false;
  if (output == "columns") return true;
  throw py::value_error("output takes dicts or columns, not '" + output + "'");
}

// A Searcher with the options it was made with (aligned, output).
struct PySearcher {
  PySearcher(const warpsearch::Database& database, const py::kwargs& kwargs, const char* function)
      : PySearcher(database, Options(kwargs, function, kSearchOptions)) {}

  py::object search(const py::object& queries) {
    const Sequences sequences = to_sequences(queries, "queries", "Query_");
    std::vector<warpsearch::QueryResult> results;
    {
      py::gil_scoped_release release;
      results =
          sequences.fasta_path ? searcher.search_fasta(*sequences.fasta_path) : searcher.search(sequences.records);
    }
    return hits_to_python(results, aligned, columns);
  }

  bool aligned;
  bool columns;
  warpsearch::Searcher searcher;

 private:
  PySearcher(const warpsearch::Database& database, const Options& given)
      : aligned(given.get<bool>("aligned").value_or(false)),
        columns(columns_wanted(given)),
        searcher(make(database, search_options_of(given))) {}
  // Made without the GIL: a GPU backend may take a while to start.
  static warpsearch::Searcher make(const warpsearch::Database& database, warpsearch::SearchOptions options) {
    py::gil_scoped_release release;
    return warpsearch::Searcher(database, std::move(options));
  }
};

const std::set<std::string> kAlignOptions =
    with_scoring({"mode", "cigar", "aligned", "xdrop", "seeds", "dbtype", "device", "threads", "gpus", "output"});

py::object align(const py::object& queries, const py::object& targets, const py::kwargs& kwargs) {
  const Options given(kwargs, "align", kAlignOptions);
  warpsearch::AlignOptions options;
  options.mode = warpsearch::parse_align_mode(given.get<std::string>("mode").value_or("local"));
  options.scoring = scoring_of(given);
  options.type = type_of(given);
  if (const auto xdrop = given.get<int>("xdrop")) {
    if (options.mode != warpsearch::AlignMode::xdrop) throw py::value_error("xdrop is for mode='xdrop'");
    options.xdrop = *xdrop;
  }
  options.cigar = given.get<bool>("cigar").value_or(true);
  options.aligned = given.get<bool>("aligned").value_or(false);
  options.device = device_of(given);
  options.threads = given.get<unsigned>("threads").value_or(0);
  options.gpus = given.get<std::vector<int>>("gpus").value_or(std::vector<int>{});
  std::vector<warpsearch::Seed> seeds;
  for (const auto& seed :
       given.get<std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>>>("seeds").value_or(
           std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>>{}))
    seeds.push_back({std::get<0>(seed), std::get<1>(seed), std::get<2>(seed)});
  const bool columns = columns_wanted(given);

  Sequences query_sequences = to_sequences(queries, "queries", "Query_");
  Sequences target_sequences = to_sequences(targets, "targets", "Target_");
  // The queries fix the type, as on the command line.
  if (query_sequences.fasta_path)
    query_sequences.records = warpsearch::read_fasta(*query_sequences.fasta_path, options.type);
  if (!options.type) options.type = warpsearch::guess_sequence_type(query_sequences.records);
  if (target_sequences.fasta_path)
    target_sequences.records = warpsearch::read_fasta(*target_sequences.fasta_path, options.type);
  std::vector<warpsearch::Alignment> alignments;
  {
    py::gil_scoped_release release;
    alignments = warpsearch::align(query_sequences.records, target_sequences.records, options, seeds);
  }
  return alignments_to_python(alignments, query_sequences.records, target_sequences.records, options.cigar,
                              options.aligned, columns);
}

py::dict makedb(const py::object& fasta, const py::object& db, const py::kwargs& kwargs) {
  const Options given(kwargs, "makedb", {"dbtype", "chunk_size", "skip_invalid"});
  warpsearch::MakeDbOptions options;
  options.type = type_of(given);
  options.chunk_residues = given.get<std::uint64_t>("chunk_size").value_or(options.chunk_residues);
  if (options.chunk_residues == 0) throw py::value_error("chunk_size takes a positive number of residues");
  options.skip_invalid = given.get<bool>("skip_invalid").value_or(false);
  const std::string output = py::str(py::module_::import("os").attr("fspath")(db)).cast<std::string>();
  const Sequences sequences = to_sequences(fasta, "sequences", "Sequence_");
  warpsearch::MakeDbReport report;
  {
    py::gil_scoped_release release;
    report = sequences.fasta_path ? warpsearch::make_database(*sequences.fasta_path, output, options)
                                  : warpsearch::make_database(sequences.records, output, options);
  }
  return report_to_python(report);
}

}  // namespace

PYBIND11_MODULE(warpsearch, m) {
  m.doc() =
      "warpsearch: exact Smith-Waterman database search and pairwise alignment (CPU and NVIDIA GPUs).\n\n"
      "makedb(fasta, db, **options) builds a database; Database(path).search(queries, **options) searches it;\n"
      "align(queries, targets, mode='local', **options) aligns pairs. See docs/library.md.";
  m.attr("__version__") = warpsearch::version();

  m.def("makedb", &makedb, py::arg("fasta"), py::arg("db"),
        "makedb(fasta, db, dbtype=None, chunk_size=None, skip_invalid=False) -> dict\n\n"
        "Builds the database directory db from a FASTA/FASTQ path (plain or gzip) or from sequences in memory\n"
        "(a list of (id, letters) tuples, a dict {id: letters}, records with .id and .seq). dbtype: 'prot' or\n"
        "'nucl' (default: detected). Returns the counts (sequences, residues, skipped, chunks, seconds).");

  py::class_<warpsearch::Database>(m, "Database",
                                   "An open database (warpsearch makedb's directory). Copies share the mapped files.")
      .def(py::init([](const py::object& path) {
             return warpsearch::Database::open(
                 py::str(py::module_::import("os").attr("fspath")(path)).cast<std::string>());
           }),
           py::arg("path"))
      .def_property_readonly("path", &warpsearch::Database::path)
      .def_property_readonly("info",
                             [](const warpsearch::Database& db) {
                               const auto info = db.info();
                               py::dict d;
                               d["type"] = warpsearch::sequence_type_name(info.type);
                               d["subjects"] = info.subjects;
                               d["residues"] = info.residues;
                               d["min_length"] = info.min_length;
                               d["max_length"] = info.max_length;
                               d["chunks"] = info.chunks;
                               d["skipped"] = info.skipped;
                               d["created_by"] = info.created_by;
                               d["created_at"] = info.created_at;
                               d["source"] = info.source;
                               return d;
                             })
      .def("__len__", [](const warpsearch::Database& db) { return db.info().subjects; })
      .def("__repr__",
           [](const warpsearch::Database& db) {
             const auto info = db.info();
             return "<warpsearch.Database '" + db.path() + "': " + std::to_string(info.subjects) + " " +
                    warpsearch::sequence_type_name(info.type) + " sequences>";
           })
      .def("id", &warpsearch::Database::id, py::arg("subject"), "The ID of subject i (its 0-based FASTA position).")
      .def("description", &warpsearch::Database::description, py::arg("subject"))
      .def("verify", &warpsearch::Database::verify, py::call_guard<py::gil_scoped_release>(),
           "Re-checks every checksum; raises RuntimeError naming each file that fails.")
      .def(
          "searcher",
          [](const warpsearch::Database& db, const py::kwargs& kwargs) {
            return std::make_unique<PySearcher>(db, kwargs, "searcher");
          },
          "searcher(**options) -> Searcher: an engine kept for many searches with the same options.")
      .def(
          "search",
          [](const warpsearch::Database& db, const py::object& queries, const py::kwargs& kwargs) {
            return PySearcher(db, kwargs, "search").search(queries);
          },
          py::arg("queries"),
          "search(queries, matrix=None, gapopen=None, gapextend=None, match=None, mismatch=None, evalue=10,\n"
          "       max_target_seqs=500, max_hsps=0, min_score=1, raw_scores=False, comp_based_stats=0, strand='both',\n"
          "       device='auto', threads=0, gpus=None, query_batch=4096, gpu_memory=0, skip_invalid=False,\n"
          "       aligned=False, output='dicts')\n\n"
          "Searches the queries (letters, a list, a dict, records, or a FASTA path) against the database. Returns\n"
          "one dict per hit keyed by BLAST's column names (qseqid sseqid pident length mismatch gapopen qstart qend\n"
          "sstart send evalue bitscore score qlen slen cigar qcovhsp stitle sstrand nident gaps, and qseq sseq with\n"
          "aligned=True), best first per query; output='columns' gives one dict of columns instead.");

  py::class_<PySearcher>(m, "Searcher", "A search engine bound to a database and options (Database.searcher()).")
      .def("search", &PySearcher::search, py::arg("queries"))
      .def_property_readonly("backend", [](const PySearcher& s) { return s.searcher.backend(); });

  m.def("align", &align, py::arg("queries"), py::arg("targets"),
        "align(queries, targets, mode='local', cigar=True, aligned=False, xdrop=None, seeds=None, dbtype=None,\n"
        "      matrix=None, gapopen=None, gapextend=None, match=None, mismatch=None, device='auto', threads=0,\n"
        "      gpus=None, output='dicts')\n\n"
        "Aligns query i with target i (letters, lists, dicts, records or FASTA paths). mode: local, global,\n"
        "semiglobal or xdrop (seeds: one (query_start, target_start, length) per pair, 1-based). Returns one\n"
        "dict per pair with the `warpsearch align` columns (query_id target_id score query_start query_end\n"
        "target_start target_end cigar, query_aligned target_aligned with aligned=True) and the counts length\n"
        "nident mismatch gapopen gaps.");

  m.def(
      "read_fasta",
      [](const py::object& path, const py::object& dbtype, bool skip_invalid) {
        py::kwargs kwargs;
        kwargs["dbtype"] = dbtype;
        const auto type = type_of(Options(kwargs, "read_fasta", {"dbtype"}));
        const auto name = py::str(py::module_::import("os").attr("fspath")(path)).cast<std::string>();
        std::vector<warpsearch::Sequence> records;
        {
          py::gil_scoped_release release;
          records = warpsearch::read_fasta(name, type, skip_invalid);
        }
        py::list out;
        for (auto& record : records) out.append(py::make_tuple(record.id, record.residues, record.description));
        return out;
      },
      py::arg("path"), py::arg("dbtype") = py::none(), py::arg("skip_invalid") = false,
      "read_fasta(path, dbtype=None, skip_invalid=False) -> [(id, letters, description)]: a FASTA/FASTQ file\n"
      "(plain or gzip) read by warpsearch's own reader, letters upper case.");

  m.def("builtin_matrices", &warpsearch::builtin_matrices, "The names of the built-in substitution matrices.");
}
