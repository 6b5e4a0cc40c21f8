// warpsearch align: batched pairwise alignment of record i of one FASTA file with record i of another, or
// of the pairs listed in a pairs file; TSV or SAM out.
#include <boost/program_options.hpp>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <optional>
#include <unordered_map>

#include "base/atomic_file.hpp"
#include "base/interrupt.hpp"
#include "base/text.hpp"
#include "db/fasta.hpp"
#include "db/records_ahead.hpp"
#include "output/align_output.hpp"
#include "search/align_engine.hpp"
#include "search/gpu_start.hpp"
#include "tools/commands.hpp"
#include "tools/common_options.hpp"

namespace po = boost::program_options;

namespace warpsearch::tools {
namespace {

constexpr const char* kAlignUsage =
    "usage: warpsearch align --query A.fa --target B.fa [-o OUT] [options]\n"
    "       warpsearch align --query A.fa --target B.fa --pairs PAIRS.tsv [-o OUT] [options]\n"
    "\n"
    "Aligns record i of A with record i of B (the files must hold as many records), or, with --pairs, the\n"
    "pairs PAIRS lists: one per line, 'query_id target_id [query_seed target_seed [seed_length]]' (IDs of\n"
    "records of A and B; seeds 1-based, for --mode xdrop; '#' lines are comments). Output: TSV with a header\n"
    "line, 1-based inclusive coordinates, or SAM (nucleotides). See docs/align.md.\n";

// Limits of one batch: the pairs and their residues held in memory at once.
struct BatchLimits {
  std::size_t pairs = 100000;
  std::uint64_t residues = std::uint64_t{1} << 27;
};

// A batch of pairs with the ids and sequences they point into.
struct Batch {
  std::vector<SequencePair> pairs;
  std::vector<std::string_view> query_ids, target_ids;
  std::uint64_t residues = 0;
  void clear() {
    pairs.clear();
    query_ids.clear();
    target_ids.clear();
    residues = 0;
  }
};

std::string display(const std::string& path) {
  return path == "-" ? std::string("standard input") : printable_excerpt(path);
}

// A FASTA file read whole, with its records found by ID.
struct IndexedFasta {
  std::vector<SequenceRecord> records;
  std::unordered_map<std::string_view, std::size_t> by_id;
};

IndexedFasta read_indexed(FastaReader& reader) {
  IndexedFasta fasta;
  for (SequenceRecord record; reader.next(record);) fasta.records.push_back(std::move(record));
  fasta.by_id.reserve(fasta.records.size());
  for (std::size_t r = 0; r < fasta.records.size(); ++r) {
    const auto [where, inserted] = fasta.by_id.emplace(fasta.records[r].id, r);
    if (!inserted)
      throw std::runtime_error(display(reader.path()) + ": records " + std::to_string(where->second + 1) + " and " +
                               std::to_string(r + 1) + " have the same ID " + quoted_excerpt(fasta.records[r].id) +
                               "; --pairs finds records by ID, so IDs must be unique");
  }
  return fasta;
}

// A 1-based position or a length from a pairs file.
std::uint64_t parse_count(std::string_view field, const std::string& where, const char* what, std::uint64_t minimum) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error != std::errc() || end != field.data() + field.size() || value < minimum || value > UINT32_MAX)
    throw std::runtime_error(where + ": " + what + " " + quoted_excerpt(field) + " is not a whole number" +
                             (minimum ? " of at least 1" : "") + " (up to " + std::to_string(UINT32_MAX) + ")");
  return value;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

// One line of the pairs file, without its end; false at the end of the file. A line longer than a
// pairs line can sensibly be (binary data, /dev/zero) is an error rather than unbounded memory.
bool read_pairs_line(std::istream& in, std::string& line, const std::string& path, std::uint64_t line_number) {
  constexpr std::size_t kMaxLine = 1 << 20;
  line.clear();
  std::streambuf* buffer = in.rdbuf();
  for (;;) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) return !line.empty();
    if (c == '\n') return true;
    if (line.size() == kMaxLine)
      throw std::runtime_error(printable_excerpt(path) + ":" + std::to_string(line_number) +
                               ": line longer than 1 MiB; expected 'query_id target_id [query_seed target_seed "
                               "[seed_length]]' (is this a pairs file?)");
    line += static_cast<char>(c);
  }
}

std::string command_line(int argc, char** argv) {
  std::string line = "warpsearch align";
  for (int a = 1; a < argc; ++a) {
    line += ' ';
    line += argv[a];
  }
  return line;
}

// The align command's options, as given, and the settings they make.
struct AlignCommand {
  // The command's options, bound to the members.
  po::options_description describe() {
    po::options_description options("options");
    options.add_options()("help,h", "show this help")("query,q", po::value(&query_path)->value_name("FILE"),
                                                      "query FASTA (plain, gzip, bzip2, xz or zstd; '-' for stdin)")(
        "target,t", po::value(&target_path)->value_name("FILE"),
        "target FASTA (plain, gzip, bzip2, xz or zstd; '-' for stdin)")(
        "pairs,p", po::value(&pairs_path)->value_name("FILE"),
        "pairs to align: 'query_id target_id [query_seed target_seed [seed_length]]' per line (default: record i "
        "with record i)")("out,o", po::value(&output_path)->value_name("FILE"),
                          "output file, written atomically (default: stdout)")(
        "mode", po::value(&mode_name)->value_name("MODE"), "local, global, semiglobal or xdrop (default local)")(
        "xdrop", po::value(&xdrop)->value_name("X"),
        "xdrop mode: stop extending when the score falls more than X below the best (default 50)")(
        "seed-length", po::value(&seed_length)->value_name("N"),
        "xdrop mode: seed length for pairs rows with positions but no length (default 1)")(
        "dbtype", po::value(&dbtype)->value_name("TYPE"),
        "auto (guessed from the query file), protein or nucleotide (default auto)");
    scoring_options.add_to(options);
    options.add_options()("cigar", "TSV: add a CIGAR column")(
        "aligned", "TSV: add the aligned query and target, with '-' for gaps")(
        "outfmt", po::value(&outfmt)->value_name("tsv|sam"), "tsv (default) or sam (nucleotides)");
    compute_options.add_to(options, "align");
    options.add_options()("batch", po::value(&batch_pairs)->value_name("N"),
                          "pairs aligned per batch (default 100000)")("quiet", "no summary on stderr");
    return options;
  }

  // Reads the command line (false: --help was shown) and checks what needs no file.
  bool parse(int argc, char** argv) {
    po::options_description options = describe();
    if (!parse_command_line(argc, argv, options, kAlignUsage, vm)) return false;
    if (query_path.empty()) throw UsageError{"the query file is missing (--query FILE)"};
    if (target_path.empty()) throw UsageError{"the target file is missing (--target FILE)"};
    if (query_path == "-" && target_path == "-")
      throw UsageError{"the query and the target cannot both be standard input"};
    if (batch_pairs == 0 || batch_pairs > (std::size_t{1} << 30))
      throw UsageError{"--batch takes a number of pairs from 1 to 1073741824"};
    limits.pairs = batch_pairs;
    scoring_options.check(vm);
    quiet = vm.count("quiet") > 0;
    return true;
  }

  // The engine's options: the mode, its X-drop, the threads and the device.
  AlignOptions align_options() const {
    AlignOptions align_options;
    try {
      align_options.mode = parse_alignment_mode(mode_name);
    } catch (const std::invalid_argument& e) {
      throw UsageError{std::string("--mode: ") + e.what()};
    }
    if (vm.count("xdrop") && align_options.mode != AlignmentMode::xdrop)
      throw UsageError{"--xdrop is for --mode xdrop"};
    if (xdrop < 0) throw UsageError{"--xdrop must be at least 0"};
    align_options.xdrop = XDrop{xdrop};
    if (compute_options.threads() > 4096) throw UsageError{"--threads takes a number from 0 (every core) to 4096"};
    align_options.threads = compute_options.threads();
    align_options.device = compute_options.device();
    return align_options;
  }

  // The output's format and columns.
  AlignOutputOptions output_options() const {
    AlignOutputOptions output_options;
    if (outfmt == "tsv")
      output_options.format = AlignFormat::tsv;
    else if (outfmt == "sam")
      output_options.format = AlignFormat::sam;
    else
      throw UsageError{"--outfmt takes tsv or sam, not " + quoted_excerpt(outfmt)};
    output_options.cigar = vm.count("cigar") > 0;
    output_options.aligned = vm.count("aligned") > 0;
    if (output_options.format == AlignFormat::sam && (output_options.cigar || output_options.aligned))
      throw UsageError{"--cigar and --aligned are TSV columns; SAM always has the CIGAR"};
    return output_options;
  }

  // The sequence type --dbtype names (none: guessed from the query file).
  std::optional<SequenceType> sequence_type() const {
    if (dbtype == "protein") return SequenceType::protein;
    if (dbtype == "nucleotide") return SequenceType::nucleotide;
    if (dbtype != "auto") throw UsageError{"--dbtype takes auto, protein or nucleotide, not " + quoted_excerpt(dbtype)};
    return std::nullopt;
  }

  // The options, as given.
  std::string query_path, target_path, pairs_path, output_path = "-", outfmt = "tsv", mode_name = "local",
                                                   dbtype = "auto";
  Number<int> xdrop = kDefaultXdrop;
  Number<unsigned> seed_length = 1;
  Number<std::size_t> batch_pairs = BatchLimits{}.pairs;
  BatchLimits limits;
  ScoringOptions scoring_options;
  ComputeOptions compute_options;
  po::variables_map vm;
  bool quiet = false;
};

constexpr Seed kDefaultSeed{0, 0, 0};  // xdrop without seeds: extend from the start of both sequences

// The targets for a SAM header, read in a first pass over the target file (whose IDs must be unique).
std::vector<SamReference> sam_references(const std::string& target_path, SequenceType sequence_type) {
  if (target_path == "-")
    throw UsageError{
        "SAM output lists every target in its header before the first record: --target cannot be standard input"};
  std::vector<SamReference> references;
  FastaReader scan(target_path, sequence_type);
  scan.advise_skip_invalid(false);
  std::unordered_map<std::string, std::uint64_t> seen;  // SAM's @SQ names must be unique
  for (SequenceRecord record; scan.next(record);) {
    const auto [where, inserted] = seen.emplace(record.id, record.index);
    if (!inserted)
      throw std::runtime_error(display(target_path) + ": records " + std::to_string(where->second + 1) + " and " +
                               std::to_string(record.index + 1) + " have the same ID " + quoted_excerpt(record.id) +
                               "; SAM names each target once in its header, so IDs must be unique");
    references.push_back({record.id, record.codes.size()});
  }
  return references;
}

// Throws the error for query and target files of different lengths: the shorter one has `records`
// records; the longer one's are counted.
[[noreturn]] void throw_record_counts_differ(const AlignCommand& command, RecordsAhead& query_ahead,
                                             RecordsAhead& target_ahead, bool query_is_longer, std::uint64_t records) {
  const std::uint64_t shorter = records + (query_is_longer ? target_ahead : query_ahead).held();
  const std::uint64_t longer = records + (query_is_longer ? query_ahead : target_ahead).count_rest();
  const std::uint64_t query_count = query_is_longer ? longer : shorter,
                      target_count = query_is_longer ? shorter : longer;
  throw std::runtime_error("--query " + display(command.query_path) + " has " + std::to_string(query_count) +
                           " records but --target " + display(command.target_path) + " has " +
                           std::to_string(target_count) +
                           ": without --pairs, record i of one is aligned with record i of the other");
}

// The record of `fasta` with ID `id`, for a pairs line (where: its file and line).
const SequenceRecord& find_listed(const IndexedFasta& fasta, std::string_view id, const std::string& where,
                                  const char* role, const std::string& path) {
  const auto found = fasta.by_id.find(id);
  if (found == fasta.by_id.end())
    throw std::runtime_error(where + ": the " + role + " ID " + quoted_excerpt(id) + " is not in " + display(path));
  return fasta.records[found->second];
}

// The seed a pairs line gives in its optional columns (2 columns: the default seed).
Seed listed_seed(const std::vector<std::string_view>& fields, const std::string& where, unsigned seed_length) {
  Seed seed = kDefaultSeed;
  if (fields.size() >= 4) {
    seed.query_begin = static_cast<std::uint32_t>(parse_count(fields[2], where, "the query seed", 1) - 1);
    seed.target_begin = static_cast<std::uint32_t>(parse_count(fields[3], where, "the target seed", 1) - 1);
    seed.length = fields.size() == 5 ? static_cast<std::uint32_t>(parse_count(fields[4], where, "the seed length", 0))
                                     : seed_length;
  }
  return seed;
}

// The engine, made on a thread of its own while the first batch is read: with a GPU its making (the
// CUDA context, about 0.2 s on an H100) overlaps the reading instead of adding to it.
class EngineInTheBackground {
 public:
  EngineInTheBackground(ScoringScheme scoring, const AlignOptions& options, bool quiet)
      : options_(options),
        quiet_(quiet),
        making_(std::async(std::launch::async,
                           [scheme = std::move(scoring), options] { return AlignEngine(scheme, options); })) {}

  // The engine; the first call waits for it (and rethrows what its making threw).
  AlignEngine& get() {
    if (!engine_) {
      engine_.emplace(making_.get());
      notice_cpu_fallback("align", options_.device, engine_->backend_description(), quiet_);
    }
    return *engine_;
  }

 private:
  AlignOptions options_;
  bool quiet_;
  std::future<AlignEngine> making_;
  std::optional<AlignEngine> engine_;
};

// Where a run's time went, in seconds on the main thread: reading the FASTA files (both at once, each on
// half the threads), waiting for the engine (what the GPU's start-up did not overlap), aligning, writing.
struct AlignPhases {
  double reading = 0, waiting = 0, aligning = 0, writing = 0;

  // Runs `work`, adding its seconds to `phase`.
  template <class Work>
  static void timed(double& phase, Work&& work) {
    const auto begun = std::chrono::steady_clock::now();
    work();
    phase += std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
  }
};

// One run's pairs, gathered into batches, each aligned by the engine and written in order.
class PairRun {
 public:
  PairRun(const AlignCommand& command, SequenceType sequence_type, EngineInTheBackground& engine, AlignWriter& writer)
      : command_(command), sequence_type_(sequence_type), engine_(engine), writer_(writer) {}

  // Record i of the query file with record i of the target file, streamed: the records of one batch at
  // a time. command_text goes into SAM's header.
  void align_records_in_order(FastaReader& query_reader, AlignFormat format, const std::string& command_text) {
    std::vector<SamReference> references;
    if (format == AlignFormat::sam)
      AlignPhases::timed(phases_.reading, [&] { references = sam_references(command_.target_path, sequence_type_); });
    writer_.header(references, command_text);
    FastaReader target_reader(command_.target_path, sequence_type_);
    target_reader.advise_skip_invalid(false);
    // Each file parsed on half the threads (the two at once).
    const unsigned per_file = std::max(1u, threads() / 2);
    RecordsAhead query_ahead(query_reader, per_file), target_ahead(target_reader, per_file);
    std::vector<SequenceRecord> queries, targets;
    std::uint64_t records = 0;
    const std::size_t count = command_.limits.pairs;
    const std::uint64_t residues = command_.limits.residues / 2;  // per file
    for (;;) {
      AlignPhases::timed(phases_.reading, [&] {
        std::future<void> reading_queries = std::async(std::launch::async, [&] { query_ahead.fill(count, residues); });
        target_ahead.fill(count, residues);
        reading_queries.get();
      });
      if (query_ahead.ended() && query_ahead.held() < target_ahead.held())
        throw_record_counts_differ(command_, query_ahead, target_ahead, false, records);
      if (target_ahead.ended() && target_ahead.held() < query_ahead.held())
        throw_record_counts_differ(command_, query_ahead, target_ahead, true, records);
      const std::size_t pairs = std::min({query_ahead.held(), target_ahead.held(), count});
      if (pairs == 0) break;
      records += pairs;
      query_ahead.take(pairs, queries);
      target_ahead.take(pairs, targets);
      for (std::size_t p = 0; p < pairs; ++p) {
        batch_.pairs.push_back({queries[p].codes, targets[p].codes, kDefaultSeed});
        batch_.query_ids.push_back(queries[p].id);
        batch_.target_ids.push_back(targets[p].id);
      }
      flush([&](std::size_t p) -> std::string_view { return queries[p].codes; },
            [&](std::size_t p) -> std::string_view { return targets[p].codes; });
      release_records(queries, threads());
      release_records(targets, threads());
    }
  }

  // The pairs the pairs file lists: both FASTA files in memory (the query reader is read whole and
  // closed), the pairs file streamed. command_text goes into SAM's header.
  void align_listed_pairs(std::optional<FastaReader>& query_reader, AlignmentMode mode,
                          const std::string& command_text) {
    IndexedFasta queries, targets;
    AlignPhases::timed(phases_.reading, [&] {
      queries = read_indexed(*query_reader);
      query_reader.reset();
      FastaReader target_reader(command_.target_path, sequence_type_);
      target_reader.advise_skip_invalid(false);
      targets = read_indexed(target_reader);
    });
    std::vector<SamReference> references;
    for (const auto& record : targets.records) references.push_back({record.id, record.codes.size()});
    writer_.header(references, command_text);

    const std::string& pairs_path = command_.pairs_path;
    std::ifstream pairs_file(pairs_path, std::ios::binary);
    if (!pairs_file) throw std::runtime_error("cannot open the pairs file " + quoted_excerpt(pairs_path));
    std::string line;
    for (std::uint64_t line_number = 1; read_pairs_line(pairs_file, line, pairs_path, line_number); ++line_number) {
      throw_if_interrupted();
      const std::string where = printable_excerpt(pairs_path) + ":" + std::to_string(line_number);
      const auto fields = split_fields(line);
      if (fields.empty() || fields[0][0] == '#') continue;
      if (fields.size() != 2 && fields.size() != 4 && fields.size() != 5)
        throw std::runtime_error(where +
                                 ": expected 2, 4 or 5 columns (query_id target_id [query_seed target_seed "
                                 "[seed_length]]), found " +
                                 std::to_string(fields.size()));
      const SequenceRecord& query = find_listed(queries, fields[0], where, "query", command_.query_path);
      const SequenceRecord& target = find_listed(targets, fields[1], where, "target", command_.target_path);
      const Seed seed = listed_seed(fields, where, command_.seed_length);
      if (mode == AlignmentMode::xdrop) {
        try {
          (void)seed_score(query.codes, target.codes, seed, engine_.get().scoring());
        } catch (const std::exception& e) {
          throw std::runtime_error(where + ": " + e.what());
        }
      }
      batch_.pairs.push_back({query.codes, target.codes, seed});
      batch_.query_ids.push_back(query.id);
      batch_.target_ids.push_back(target.id);
      batch_.residues += query.codes.size() + target.codes.size();
      if (batch_.pairs.size() >= command_.limits.pairs || batch_.residues >= command_.limits.residues) flush_listed();
    }
    if (pairs_file.bad()) throw std::runtime_error("cannot read the pairs file " + quoted_excerpt(pairs_path));
    flush_listed();
  }

  // The pairs aligned and written so far.
  std::uint64_t pairs_done() const { return pairs_done_; }
  // Where the time went so far.
  const AlignPhases& phases() const { return phases_; }

 private:
  // The threads of --threads (by default the usable CPUs) for reading and writing.
  unsigned threads() const { return command_.compute_options.threads(); }

  // Aligns and writes the batch, then empties it; query_codes_of(p) and target_codes_of(p) give the
  // residues of pair p for the output.
  template <class QueryCodes, class TargetCodes>
  void flush(QueryCodes&& query_codes_of, TargetCodes&& target_codes_of) {
    if (batch_.pairs.empty()) return;
    throw_if_interrupted();
    AlignPhases::timed(phases_.waiting, [&] { engine_.get(); });
    std::vector<PairAlignment> results;
    AlignPhases::timed(phases_.aligning, [&] { results = engine_.get().align(batch_.pairs); });
    AlignPhases::timed(phases_.writing, [&] {
      writer_.write_rows(
          results.size(),
          [&](std::size_t p) {
            return AlignWriter::Row{batch_.query_ids[p], batch_.target_ids[p], query_codes_of(p), target_codes_of(p),
                                    &results[p]};
          },
          threads());
    });
    pairs_done_ += batch_.pairs.size();
    batch_.clear();
  }

  // Aligns and writes a batch of listed pairs, whose sequences outlive it.
  void flush_listed() {
    flush([&](std::size_t p) { return batch_.pairs[p].query; }, [&](std::size_t p) { return batch_.pairs[p].target; });
  }

  const AlignCommand& command_;
  const SequenceType sequence_type_;
  EngineInTheBackground& engine_;
  AlignWriter& writer_;
  Batch batch_;
  std::uint64_t pairs_done_ = 0;
  AlignPhases phases_;
};

}  // namespace

int run_align(int argc, char** argv) {
  AlignCommand command;
  if (!command.parse(argc, argv)) return 0;  // --help
  AlignOptions align_options = command.align_options();
  const AlignOutputOptions output_options = command.output_options();
  align_options.operations = AlignWriter::needs_operations(output_options);
  const std::optional<SequenceType> type = command.sequence_type();
  check_output_path(command.output_path, {command.query_path, command.target_path, command.pairs_path});
  install_interrupt_handlers();
  const auto started = std::chrono::steady_clock::now();
  // The GPUs start before anything is read, so that their contexts are ready when the engine is made.
  GpuStart gpu_start(align_options.device, align_options.gpus);

  // The query reader fixes the alphabet (guessed from its first residues unless --dbtype says).
  std::optional<FastaReader> query_reader;
  query_reader.emplace(command.query_path, type);
  query_reader->advise_skip_invalid(false);  // align has no --skip-invalid
  const SequenceType sequence_type = query_reader->type();
  const bool nucleotide = sequence_type == SequenceType::nucleotide;

  ScoringScheme scoring = command.scoring_options.scheme(nucleotide, command.vm, "sequences");
  const Alphabet& alphabet = Alphabet::of(sequence_type);

  AtomicFile output(command.output_path);
  AlignWriter writer(output.stream(), alphabet, output_options);
  EngineInTheBackground engine(std::move(scoring), align_options, command.quiet);
  PairRun run(command, sequence_type, engine, writer);
  if (command.pairs_path.empty())
    run.align_records_in_order(*query_reader, output_options.format, command_line(argc, argv));
  else
    run.align_listed_pairs(query_reader, align_options.mode, command_line(argc, argv));
  double committing = 0;
  AlignPhases::timed(committing, [&] { output.commit(); });

  if (!command.quiet) {
    const std::uint64_t pairs_done = run.pairs_done();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(stderr, "warpsearch align: %llu pairs (%s), %.2f s, %.1f pairs/s, %.2f GCUPS on %s\n",
                 static_cast<unsigned long long>(pairs_done), alignment_mode_name(align_options.mode), seconds,
                 static_cast<double>(pairs_done) / seconds, engine.get().cells() / seconds / 1e9,
                 engine.get().backend_description().c_str());
    const AlignPhases& phases = run.phases();
    std::fprintf(stderr,
                 "warpsearch align: reading %.2f s, waiting for the engine %.2f s, aligning %.2f s, writing %.2f s, "
                 "committing the output %.2f s, other %.2f s\n",
                 phases.reading, phases.waiting, phases.aligning, phases.writing, committing,
                 seconds - phases.reading - phases.waiting - phases.aligning - phases.writing - committing);
  }
  return 0;
}

}  // namespace warpsearch::tools
