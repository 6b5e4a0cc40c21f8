// warpsearch search: queries against a database, results in BLAST+'s formats (output/output.hpp) or JSON Lines.

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "base/atomic_file.hpp"
#include "base/interrupt.hpp"
#include "base/text.hpp"
#include "core/genetic_code.hpp"
#include "db/database.hpp"
#include "db/fasta.hpp"
#include "output/output.hpp"
#include "output/report_writer.hpp"
#include "profile/dust.hpp"
#include "profile/seg.hpp"
#include "search/composition.hpp"
#include "search/gpu_start.hpp"
#include "search/warpsearch.hpp"
#ifdef WARPSEARCH_HAVE_MPI
#include "cluster/distributed.hpp"
#endif
#include "tools/commands.hpp"
#include "tools/common_options.hpp"
#include "tools/progress_line.hpp"
#include "tools/taxonomy_options.hpp"

namespace po = boost::program_options;

namespace warpsearch::tools {
namespace {

constexpr const char* kSearchUsage =
    "usage: warpsearch search -q QUERIES -d DB [-o OUT] [options]\n"
    "\n"
    "Exact Smith-Waterman search of every query against every subject of DB (made by 'warpsearch makedb').\n"
    "QUERIES is FASTA (plain, gzip, bzip2, xz or zstd; '-' for stdin). Output: BLAST tabular (outfmt 6) by default.\n";

std::vector<int> parse_gpu_list(const std::string& text) {
  std::vector<int> gpus;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) {
    int gpu = -1;
    if (!parse_number(item, gpu) || gpu < 0 || gpu > 1023)
      throw UsageError{"--gpus takes GPU numbers separated by commas, e.g. 0,1; not " + quoted_excerpt(text)};
    gpus.push_back(gpu);
  }
  if (gpus.empty() || text.empty() || text.back() == ',')
    throw UsageError{"--gpus takes GPU numbers separated by commas, e.g. 0,1; not " + quoted_excerpt(text)};
  return gpus;
}

// The search command's steps, over the options it was given.
class SearchCommand {
 public:
  // The command's options, bound to the members.
  po::options_description describe() {
    po::options_description options("options");
    options.add_options()("help,h", "show this help")("query,q", po::value(&query_path)->value_name("FILE"),
                                                      "query FASTA (plain, gzip, bzip2, xz or zstd; '-' for stdin)")(
        "db,d", po::value(&database_path)->value_name("DB"), "database directory made by 'warpsearch makedb'")(
        "out,o", po::value(&output_path)->value_name("FILE"), "output file, written atomically (default: stdout)")(
        "program", po::value(&program_text)->value_name("NAME"),
        "blastp, blastn, blastx (translated nucleotide queries vs proteins), tblastn (proteins vs a translated "
        "nucleotide database) or tblastx (translated vs translated); default: blastp or blastn when the queries' "
        "letters and the database agree")("query-gencode", po::value(&query_gencode)->value_name("N"),
                                          "NCBI genetic code translating the queries (blastx, tblastx; default 1)")(
        "db-gencode", po::value(&db_gencode)->value_name("N"),
        "NCBI genetic code translating the database (tblastn, tblastx; default 1)");
    scoring_options.add_to(options);
    options.add_options()("max-target-seqs", po::value(&max_target_seqs)->value_name("N"),
                          "subjects kept per query, each strand of a DNA subject counting once (default 500)")(
        "max-hsps", po::value(&max_hsps)->value_name("N"),
        "local alignments (HSPs) reported per subject and strand, best first (default: every one that passes "
        "--evalue and --min-score; 1 with --raw-scores)")("evalue", po::value(&evalue)->value_name("E"),
                                                          "report hits with an E-value up to E (default 10)")(
        "min-score", po::value(&min_score)->value_name("S"), "report hits with a raw score of at least S (default 1)")(
        "raw-scores", "no E-values or bit scores (for scoring without published statistics)")(
        "comp-based-stats", po::value(&comp_based_stats)->value_name("0|1|2|3"),
        "blastp's composition-based statistics for the reported hits: 0 none (default), 1 scaled lambda, 2 "
        "conditional matrix adjustment (blastp's default), 3 unconditional; protein searches with BLOSUM62")(
        "realign", po::value(&realign)->value_name("sw|xdrop"),
        "how --comp-based-stats realigns the hits with the adjusted matrix: sw, an exact Smith-Waterman (default, "
        "as blastp -use_sw_tback), or xdrop, blastp's default X-drop extension from a start point on each hit")(
        "seg", po::value(&seg_text)->value_name("yes|no|'W K1 K2'"),
        "mask low-complexity regions of protein queries with SEG (scored as X): yes (12 2.2 2.5), no (default), "
        "or window and cut-offs")(
        "dust", po::value(&dust_text)->value_name("yes|no|'L W K'"),
        "mask low-complexity regions of blastn's queries with DUST (scored as N, both strands): yes (20 64 1), no "
        "(default), or level, window and linker")(
        "outfmt", po::value(&outfmt)->value_name("FMT"),
        "BLAST+'s 0 (pairwise), 5 (XML), 6 (tabular, default), 7 (tabular with comments), 10 (CSV), 15 (JSON), "
        "17 or sam (SAM, nucleotide); 6, 7 and 10 take BLAST's column names, e.g. \"6 std qcovs btop\" (and cigar); "
        "json: JSON Lines")("strand", po::value(&strand)->value_name("both|plus|minus"),
                            "query strands searched (nucleotide; default both)");
    taxonomy_options.add_to(options);
    compute_options.add_to(options, "search");
    options.add_options()("gpus", po::value(&gpus)->value_name("LIST"),
                          "GPUs to use, e.g. 0,1 (default: every usable GPU)")(
        "gpu-memory", po::value(&gpu_memory)->value_name("BYTES"),
        "device memory each GPU may use, e.g. 8G (default: what it has free); larger databases are scanned in "
        "several batches")("query-batch", po::value(&query_batch)->value_name("N"),
                           "queries searched per pass over the database (default 4096); under mpirun also what rank 0 "
                           "hands out at a time")(
        "hit-memory", po::value(&hit_memory)->value_name("BYTES"),
        "host memory for aligned hits waiting to be written, e.g. 512M (default 1G); a query batch with more hits is "
        "aligned and written in parts")(
        "skip-invalid", "skip (and count) queries with letters that are not residues, instead of stopping")(
        "quiet", "no progress or summary on stderr");
    return options;
  }

  // Reads the command line (false: --help was shown) and checks what needs no file.
  bool parse(int argc, char** argv) {
    po::options_description options = describe();
    if (!parse_command_line(argc, argv, options, kSearchUsage, vm)) return false;
    if (query_path.empty()) throw UsageError{"the query file is missing (-q FILE)"};
    if (database_path.empty()) throw UsageError{"the database is missing (-d DB)"};
    quiet = vm.count("quiet") > 0;
    install_interrupt_handlers();
    scoring_options.check(vm);
    return true;
  }

  // The search options the command line gives (the taxonomy filter comes with the database).
  SearchOptions search_options() {
    SearchOptions search_options;
    search_options.max_target_seqs = max_target_seqs;
    if (vm.count("max-hsps") && (max_hsps == 0 || max_hsps > (std::size_t{1} << 30)))
      throw UsageError{"--max-hsps takes a number of alignments from 1 to 1073741824"};
    // Without E-values the only cut-off is --min-score (default 1), which almost any short alignment passes:
    // one alignment per subject unless --max-hsps asks for more.
    search_options.max_hsps = vm.count("max-hsps") ? max_hsps.value : vm.count("raw-scores") ? 1 : 0;
    search_options.max_evalue = evalue;
    search_options.min_score = min_score;
    search_options.raw_scores_only = vm.count("raw-scores") > 0;
    if (comp_based_stats < 0 || comp_based_stats > 3)
      throw UsageError{"--comp-based-stats takes 0, 1, 2 or 3, not " + std::to_string(comp_based_stats.value)};
    search_options.composition_based_stats = comp_based_stats;
    if (realign != "sw" && realign != "xdrop") throw UsageError{"--realign takes sw or xdrop, not '" + realign + "'"};
    search_options.composition_realignment =
        realign == "xdrop" ? CompositionRealignment::xdrop : CompositionRealignment::smith_waterman;
    if (seg_text != "no") {
      try {
        seg = SegParameters::parse(seg_text);
      } catch (const std::invalid_argument& e) {
        throw UsageError{std::string("--seg: ") + e.what()};
      }
    }
    if (dust_text != "no") {
      try {
        dust = DustParameters::parse(dust_text);
      } catch (const std::invalid_argument& e) {
        throw UsageError{std::string("--dust: ") + e.what()};
      }
    }
    search_options.threads = compute_options.threads();
    if (query_batch == 0 || query_batch > (std::size_t{1} << 24))
      throw UsageError{"--query-batch takes a number of queries from 1 to 16777216"};
    search_options.query_batch = query_batch;
    if (strand == "both")
      search_options.strand = Strand::both;
    else if (strand == "plus")
      search_options.strand = Strand::plus;
    else if (strand == "minus")
      search_options.strand = Strand::minus;
    else
      throw UsageError{"--strand takes both, plus or minus, not " + quoted_excerpt(strand)};
    search_options.device = compute_options.device();
    if (vm.count("gpus")) search_options.gpus = parse_gpu_list(gpus);
    if (vm.count("gpu-memory")) search_options.gpu_memory_limit = parse_size("--gpu-memory", "bytes", gpu_memory);
    search_options.hit_memory = parse_size("--hit-memory", "bytes", hit_memory);
    if (evalue <= 0) throw UsageError{"--evalue must be positive"};
    if (min_score < 1)
      throw UsageError{"--min-score takes a raw score of at least 1, not " + std::to_string(min_score.value)};
    if (max_target_seqs == 0 || max_target_seqs > (std::size_t{1} << 30))
      throw UsageError{"--max-target-seqs takes a number of hits from 1 to 1073741824"};
    if (compute_options.threads() > 4096) throw UsageError{"--threads takes a number from 0 (every core) to 4096"};
    return search_options;
  }

  OutputFormat output_format() const {
    return [&] {
      try {
        return OutputFormat::parse(outfmt);
      } catch (const std::invalid_argument& e) {
        throw UsageError{std::string("--outfmt: ") + e.what()};
      }
    }();
  }

  // The program: given, or (automatic) the one the queries' letters and the database agree on, which
  // is checked once the queries are read (the reader guesses their alphabet from their first 256 KiB
  // of letters, guess_sequence_type): blastp or blastn, the database's.
  Program choose_program(const Database& database) const {
    const SequenceType stored = database.info().type;
    Program program = Program::automatic;
    if (!program_text.empty()) {
      try {
        program = program_named(program_text);
      } catch (const std::invalid_argument& e) {
        throw UsageError{std::string("--program: ") + e.what()};
      }
      if (database_type(program, stored) != stored)
        throw UsageError{"--program " + program_text + " searches " +
                         Alphabet::of(database_type(program, stored)).name() + " databases; " + database_path +
                         " holds " + database.alphabet().name() + " sequences"};
    }
    const std::pair<const char*, int> gencodes[] = {{"--query-gencode", query_gencode}, {"--db-gencode", db_gencode}};
    for (const auto& [name, value] : gencodes) {
      try {
        GeneticCode::ncbi(value);
      } catch (const std::invalid_argument& e) {
        throw UsageError{std::string(name) + ": " + e.what()};
      }
    }
    if (vm.count("query-gencode") && !translates_query(program))
      throw UsageError{"--query-gencode is for programs that translate the queries (--program blastx, tblastx)"};
    if (vm.count("db-gencode") && !translates_subjects(program))
      throw UsageError{"--db-gencode is for programs that translate the database (--program tblastn, tblastx)"};
    return program;
  }

  ScoringScheme scoring_for(Program program, bool nucleotide, const SearchOptions& search_options) const {
    ScoringScheme scoring = scoring_options.scheme(
        nucleotide, vm,
        translates_subjects(program) ? std::string("searches; ") + program_name(program) + " scores proteins"
                                     : "databases");
    if (!search_options.raw_scores_only) scoring_options.require_statistics(scoring, vm);
    if (comp_based_stats != 0 && !quiet && (translates_query(program) || translates_subjects(program)))
      std::fprintf(stderr,
                   "warpsearch search: note: composition-based statistics are implemented for blastp only: "
                   "not applied to %s\n",
                   program_name(program));
    else if (comp_based_stats != 0 && !quiet && scoring.matrix().type() == SequenceType::protein &&
             !CompositionAdjustment::supports(scoring))
      std::fprintf(stderr,
                   "warpsearch search: note: composition-based statistics are implemented for BLOSUM62 only: "
                   "not applied to %s\n",
                   scoring.matrix().name().c_str());
    return scoring;
  }

  OutputContext context_for(Program program, bool nucleotide, const ScoringScheme& scoring, int argc,
                            char** argv) const {
    OutputContext context;
    context.program = program == Program::automatic ? (nucleotide ? "blastn" : "blastp") : program_name(program);
    context.database_name = database_path;
    context.command_line = command_line_text(argc, argv);
    context.scoring = &scoring;
    context.max_evalue = evalue;
    context.taxonomy = taxonomy_options.taxonomy();
    context.searched_residues = taxonomy_options.searched().residues;
    context.searched_subjects = taxonomy_options.searched().subjects;
    context.query_genetic_code = query_gencode;
    context.database_genetic_code = db_gencode;
    return context;
  }

  // The queries, in the program's alphabet (or the one guessed, automatic), as they are in the file; a
  // program given for the other alphabet is said, not refused.
  std::vector<Query> read_queries(Program program, SequenceType stored, std::optional<FastaReader>& reader) const {
    std::vector<Query> queries;
    // stdin is read once: the reader reads the program's alphabet, or guesses it (automatic).
    if (program == Program::automatic)
      reader.emplace(query_path, std::nullopt, vm.count("skip-invalid") > 0);
    else
      reader.emplace(query_path, query_type(program, stored), vm.count("skip-invalid") > 0);
    std::string sample;  // the first letters read, to tell a program given for the wrong alphabet
    for (SequenceRecord record; reader->next(record);) {
      if (sample.size() < (1u << 16)) sample += reader->alphabet().decode_string(record.codes.substr(0, 1u << 16));
      queries.push_back({std::move(record.id), std::move(record.description), std::move(record.codes)});
    }
    if (program == Program::automatic) {
      try {
        program_for(reader->type(), stored);
      } catch (const std::invalid_argument& e) {
        throw UsageError{query_path + ": " + e.what()};
      }
    }
    if (dust && (reader->type() != SequenceType::nucleotide || stored != SequenceType::nucleotide ||
                 program == Program::tblastx))
      throw UsageError{"--dust masks the queries of nucleotide searches (blastn)"};
    // Letters of a protein are mostly valid nucleotide codes only by chance; the reverse is a protein
    // search of DNA letters that the user asked for by name: said, not refused.
    if (!quiet && !program_text.empty() && guess_sequence_type(sample) != query_type(program, stored))
      std::fprintf(stderr, "warpsearch search: %s looks like %s sequences, searched as %s by --program %s\n",
                   query_path.c_str(), Alphabet::of(guess_sequence_type(sample)).name(),
                   Alphabet::of(query_type(program, stored)).name(), program_text.c_str());
    return queries;
  }

  // The queries as the engine searches them: SEG-masked (proteins) or DUST-masked (blastn; the minus strand
  // is the reverse complement of the masked query), as BLAST's hard masking; nothing when neither is asked.
  std::optional<std::vector<Query>> masked_queries(const std::vector<Query>& queries, SequenceType type) const {
    if (!(seg && type == SequenceType::protein) && !dust) return std::nullopt;
    std::vector<Query> masked = queries;
    for (Query& query : masked) query.codes = dust ? dust_masked(query.codes, *dust) : seg_masked(query.codes, *seg);
    return masked;
  }

  void print_summary(std::chrono::steady_clock::time_point started, const SearchProgress& done, std::size_t queries,
                     std::size_t hits, std::uint64_t skipped, const std::string& backend,
                     double gpu_start_seconds) const {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double cells = done.cells_total;
    if (skipped > 0)
      std::fprintf(stderr, "warpsearch search: skipped %llu invalid queries\n",
                   static_cast<unsigned long long>(skipped));
    std::fprintf(stderr, "warpsearch search: %zu queries, %zu hits, %.2f s, %.1f GCUPS on %s\n", queries, hits, seconds,
                 cells / seconds / 1e9, backend.c_str());
    // Where the time went: the scan, the hits' alignments (start, end, traceback) after it, and the rest
    // (reading the queries, opening the database, writing the output); then the hits' alignments in all,
    // part of which may have run during the scan.
    const double searched = done.scan_seconds + done.align_seconds;
    std::fprintf(stderr,
                 "warpsearch search: scan %.2f s (%.1f GCUPS), aligning hits after the scan %.2f s, scan and hits "
                 "%.2f s (%.1f GCUPS), other %.2f s; aligning hits in all %.2f s (start and end %.2f s, of which hot "
                 "columns %.2f s)\n",
                 done.scan_seconds, done.scan_seconds > 0 ? cells / done.scan_seconds / 1e9 : 0.0, done.align_seconds,
                 searched, searched > 0 ? cells / searched / 1e9 : 0.0, seconds - searched, done.hits_seconds,
                 done.locate_seconds, done.hot_columns_seconds);
    // The GPUs' start-up ran while the inputs were read; what it did not overlap is in "other".
    if (gpu_start_seconds > 0)
      std::fprintf(stderr,
                   "warpsearch search: GPU start-up (CUDA contexts) %.2f s, begun before the inputs were read\n",
                   gpu_start_seconds);
  }

  // The options, as given.
  std::string query_path, database_path, output_path = "-", outfmt = "6", strand = "both", gpus, gpu_memory;
  std::string program_text, seg_text = "no", dust_text = "no", hit_memory = "1G", realign = "sw";
  Number<int> min_score = 1, query_gencode = 1, db_gencode = 1, comp_based_stats = 0;
  Number<std::size_t> max_target_seqs = 500, max_hsps = 0, query_batch = SearchOptions{}.query_batch;
  Number<double> evalue = 10.0;
  ScoringOptions scoring_options;
  ComputeOptions compute_options;
  TaxonomyOptions taxonomy_options;
  po::variables_map vm;
  bool quiet = false;
  std::optional<SegParameters> seg;
  std::optional<DustParameters> dust;
};

// With SEG or DUST the engine searched masked queries; BLAST shows the query's own letters (qseq, BTOP, the
// pairwise report) and counts identities on them: each hit's identities and mismatches are counted again
// on the unmasked query, on the searched strand.
void count_on_unmasked(const Query& query, const Alphabet& alphabet, QueryResult& result) {
  std::string minus_strand;  // the reverse complement, made once, for the minus-strand hits
  for (Hit& hit : result.hits) {
    if (hit.strand == Strand::minus && minus_strand.empty()) {
      minus_strand.assign(query.codes.rbegin(), query.codes.rend());
      for (char& c : minus_strand) c = static_cast<char>(alphabet.complement(static_cast<std::uint8_t>(c)));
    }
    const std::string& searched = hit.strand == Strand::minus ? minus_strand : query.codes;
    hit.identities = hit.mismatches = 0;
    std::size_t qi = hit.query_begin, si = 0;
    for (const char op : hit.operations) {
      if (op == 'M') ++(searched[qi] == hit.subject_aligned_codes[si] ? hit.identities : hit.mismatches);
      qi += op != 'D' ? 1 : 0;
      si += op != 'I' ? 1 : 0;
    }
  }
}

}  // namespace

int run_search(int argc, char** argv) {
  SearchCommand command;
  if (!command.parse(argc, argv)) return 0;  // --help
  SearchOptions search_options = command.search_options();
  const OutputFormat format = command.output_format();
  check_output_path(command.output_path, {command.query_path}, command.database_path);

  const auto started = std::chrono::steady_clock::now();
  // The GPUs start while the database is opened and the queries are read; under mpirun each rank binds to
  // a GPU of its own later, so there nothing is started here.
  std::optional<GpuStart> gpu_start;
#ifdef WARPSEARCH_HAVE_MPI
  if (!distributed::launched_by_mpi())
#endif
  {
    // CUDA is shown only the GPUs of --gpus (visible_gpus): it then starts no other.
    if (search_options.device != Device::cpu)
      if (const auto visible =
              visible_gpus(search_options.gpus, std::getenv("CUDA_VISIBLE_DEVICES"), installed_gpus())) {
        setenv("CUDA_VISIBLE_DEVICES", visible->variable.c_str(), 1);
        search_options.gpus = visible->gpus;
      }
    gpu_start.emplace(search_options.device, search_options.gpus);
  }
  const Database database = Database::open(command.database_path);
  const SequenceType stored = database.info().type;
  command.taxonomy_options.apply(command.vm, database, search_options);
  const Program program = command.choose_program(database);
  const bool nucleotide =
      program == Program::blastn || (program == Program::automatic && stored == SequenceType::nucleotide);
  const ScoringScheme scoring = command.scoring_for(program, nucleotide, search_options);
  search_options.program = program;
  search_options.query_genetic_code = command.query_gencode;
  search_options.database_genetic_code = command.db_gencode;
  if (format.kind() == OutputFormat::Kind::sam && (!nucleotide || program == Program::tblastx))
    throw UsageError{"--outfmt 17 (SAM) is for nucleotide searches (blastn)"};
  const OutputContext context = command.context_for(program, nucleotide, scoring, argc, argv);
#ifdef WARPSEARCH_HAVE_MPI
  // Under mpirun / srun this process is one rank of a distributed search (cluster/distributed.hpp).
  if (distributed::launched_by_mpi()) {
    if (command.seg) throw UsageError{"--seg is not supported in cluster mode"};
    if (command.dust) throw UsageError{"--dust is not supported in cluster mode"};
    // The ranks' hits are merged in score order from unadjusted candidates: composition-based statistics
    // are not applied in cluster mode (docs/composition_statistics.md).
    search_options.composition_based_stats = 0;
    if (translates_query(program) || translates_subjects(program))
      throw UsageError{std::string("cluster mode runs blastp and blastn; run ") + program_name(program) +
                       " without mpirun"};
    return distributed::run_search(
        {command.query_path, command.output_path, command.vm.count("skip-invalid") > 0, command.quiet, context},
        database, scoring, search_options, format);
  }
#endif
  std::optional<FastaReader> reader;
  const std::vector<Query> queries = command.read_queries(program, stored, reader);
  const std::optional<std::vector<Query>> masked = command.masked_queries(queries, reader->type());

  AtomicFile output(command.output_path);
  SearchEngine engine(database, scoring, search_options);
  notice_cpu_fallback("search", search_options.device, engine.backend_description(), command.quiet);
  // Results are written as the engine hands them over (each query batch, in query order): a header
  // first, then each query's part, then the footer (output/output.hpp). On stdout each query's part is
  // flushed at once; a file appears, complete, when it is renamed into place at the end.
  ProgressLine bar(!command.quiet);
  SearchProgress done;
  std::size_t hits = 0, written = 0;
  format.begin(output.stream(), database, context);
  // The reports are formatted on the search's threads as they come (output/report_writer.hpp).
  ReportWriter writer(format, output.stream(), database, search_options.threads, [&] {
    if (output.is_stdout()) output.flush();
  });
  engine.search(
      masked ? *masked : queries,
      [&](QueryResult&& result) {
        // Reported as BLAST reports masked queries: with the query's own letters.
        if (masked) count_on_unmasked(queries[result.query], Alphabet::of(reader->type()), result);
        hits += result.hits.size();
        const Query& query = queries[result.query];
        writer.write(query, std::move(result));
        bar.written(++written);
      },
      [&](const SearchProgress& p) {
        bar.update(p);
        done = p;
      });
  writer.finish();
  format.end(output.stream());
  output.commit();
  bar.finish();
  if (!command.quiet)
    command.print_summary(started, done, queries.size(), hits, reader->skipped(), engine.backend_description(),
                          gpu_start->seconds());
  return 0;
}

}  // namespace warpsearch::tools
