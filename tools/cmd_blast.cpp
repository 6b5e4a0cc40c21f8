// warpsearch blastp | blastn | blastx | tblastn | tblastx: BLAST+ command lines run as exact searches.
//
// A BLAST+ command line with `blastp` replaced by `warpsearch blastp` runs and writes the same columns:
// the options keep BLAST's single-dash names and defaults and are translated into a `warpsearch search`
// command line. Options that change what BLAST's heuristics look at (word size, X-drop, ...) cannot
// change an exact search: they are accepted with a one-line note on stderr. Options whose meaning
// warpsearch does not implement (remote search, restricting the database, ...) are refused with a usage error rather
// than silently ignored. blastp's composition-based statistics (-comp_based_stats, default 2) and -seg are applied
// (search/composition.hpp, profile/seg.hpp); blastn's -dust (profile/dust.hpp) is applied with -soft_masking
// false, and with the default soft masking, which only removes seeds, it is not (docs/composition_statistics.md).
// blastx, tblastn and tblastx run the translated searches (search --program; docs/translated_search.md), with mode-0
// statistics.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "db/database.hpp"
#include "db/makedb.hpp"
#include "tools/commands.hpp"

namespace warpsearch::tools {
namespace {

enum class Action {
  option,          // translated to the search option `target`, with its value
  heuristic,       // takes a value; noted as without effect on an exact search
  heuristic_flag,  // the same without a value
  exact_flag,      // asks for what an exact search does anyway: no note
  ignored,         // takes a value; noted with `target` as the reason
  ignored_flag,    // the same without a value
  refused,         // a usage error, `target` saying why
  subject,         // -subject FASTA: searched as a database made for this run
};

struct BlastOption {
  const char* name;  // without the dash
  Action action;
  const char* target;
};

constexpr const char* kNoMasking = "exact search does not mask the query: results are those of masking off";

constexpr BlastOption kOptions[] = {
    {"query", Action::option, "-q"},
    {"db", Action::option, "-d"},
    {"out", Action::option, "-o"},
    {"evalue", Action::option, "--evalue"},
    {"max_target_seqs", Action::option, "--max-target-seqs"},
    {"num_threads", Action::option, "--threads"},
    {"outfmt", Action::option, "--outfmt"},
    {"matrix", Action::option, "--matrix"},
    {"gapopen", Action::option, "--gapopen"},
    {"gapextend", Action::option, "--gapextend"},
    {"reward", Action::option, "--match"},
    {"penalty", Action::option, "--mismatch"},
    {"strand", Action::option, "--strand"},
    {"query_gencode", Action::option, "--query-gencode"},
    {"db_gencode", Action::option, "--db-gencode"},
    {"min_raw_gapped_score", Action::option, "--min-score"},
    {"max_hsps", Action::option, "--max-hsps"},
    // Taxonomy: the database needs makedb --taxid-map; names from $WARPSEARCH_TAXDUMP (BLAST's taxdb).
    {"taxids", Action::option, "--taxids"},
    {"taxidlist", Action::option, "--taxidlist"},
    {"negative_taxids", Action::option, "--negative-taxids"},
    {"negative_taxidlist", Action::option, "--negative-taxidlist"},
    // Heuristics of BLAST's seed-and-extend: an exact search computes every cell.
    {"word_size", Action::heuristic, nullptr},
    {"threshold", Action::heuristic, nullptr},
    {"xdrop_ungap", Action::heuristic, nullptr},
    {"xdrop_gap", Action::heuristic, nullptr},
    {"xdrop_gap_final", Action::heuristic, nullptr},
    {"window_size", Action::heuristic, nullptr},
    {"off_diagonal_range", Action::heuristic, nullptr},
    {"template_type", Action::heuristic, nullptr},
    {"template_length", Action::heuristic, nullptr},
    {"max_intron_length", Action::heuristic, nullptr},
    {"use_sw_tback", Action::exact_flag, nullptr},
    {"ungapped", Action::refused, "ungapped alignment is not an exact Smith-Waterman search"},
    // Masking and composition: exact search scores the sequences as they are.
    {"seg", Action::option, "--seg"},
    {"dust", Action::option, "--dust"},
    {"soft_masking", Action::ignored,
     "soft masking only removes seeds, which an exact search has none of (false: SEG or DUST scored as X or N)"},
    {"lcase_masking", Action::ignored_flag, kNoMasking},
    {"db_soft_mask", Action::ignored, kNoMasking},
    {"db_hard_mask", Action::ignored, kNoMasking},
    {"comp_based_stats", Action::option, "--comp-based-stats"},
    {"task", Action::ignored, "the task picks BLAST's heuristics and, for blastn, its scoring defaults"},
    // Reporting options of BLAST that do not apply to warpsearch's reports.
    {"num_descriptions", Action::ignored, "the pairwise report lists -max_target_seqs subjects"},
    {"num_alignments", Action::ignored, "the pairwise report shows -max_target_seqs subjects"},
    {"line_length", Action::ignored, "the pairwise report uses lines of 60 residues"},
    {"sorthits", Action::ignored, "hits are sorted by score"},
    {"sorthsps", Action::ignored, "alignments are sorted by score"},
    {"mt_mode", Action::ignored, "warpsearch splits the work its own way"},
    {"show_gis", Action::ignored_flag, "identifiers are printed as the FASTA gives them"},
    {"parse_deflines", Action::ignored_flag, "query identifiers are printed as the FASTA gives them"},
    {"html", Action::refused, "HTML output is not supported"},
    {"remote", Action::refused, "remote search is not supported; search a database made by 'warpsearch makedb'"},
    {"subject", Action::subject, nullptr},
    {"subject_loc", Action::refused, "-subject_loc is not supported"},
    {"query_loc", Action::refused, "-query_loc is not supported"},
    {"searchsp", Action::refused, "-searchsp is not supported: E-values use the database's own size"},
    {"dbsize", Action::refused, "-dbsize is not supported: E-values use the database's own size"},
    {"perc_identity", Action::refused, "-perc_identity is not supported"},
    {"qcov_hsp_perc", Action::refused, "-qcov_hsp_perc is not supported"},
    {"culling_limit", Action::refused, "-culling_limit is not supported"},
    {"best_hit_overhang", Action::refused, "-best_hit_overhang is not supported"},
    {"best_hit_score_edge", Action::refused, "-best_hit_score_edge is not supported"},
    {"subject_besthit", Action::refused, "-subject_besthit is not supported"},
    {"gilist", Action::refused, "restricting the database by identifiers is not supported"},
    {"seqidlist", Action::refused, "restricting the database by identifiers is not supported"},
    {"negative_gilist", Action::refused, "restricting the database by identifiers is not supported"},
    {"negative_seqidlist", Action::refused, "restricting the database by identifiers is not supported"},
    {"entrez_query", Action::refused, "-entrez_query is not supported"},
    {"import_search_strategy", Action::refused, "search strategies are not supported"},
    {"export_search_strategy", Action::refused, "search strategies are not supported"},
};

// A fresh directory under $TMPDIR (or /tmp), removed with its contents when the object goes.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/warpsearch-subject-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("cannot create a temporary directory " + pattern + ": " + std::strerror(errno));
    path_ = pattern;
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// -comp_based_stats's values: 0 or F/f (none), 1, 2 or T/t or D/d (blastp's default), 3.
std::string composition_mode_number(const std::string& given) {
  if (given == "0" || given == "F" || given == "f") return "0";
  if (given == "1" || given == "3") return given;
  if (given == "2" || given == "T" || given == "t" || given == "D" || given == "d") return "2";
  throw UsageError{"-comp_based_stats takes 0 (or F), 1, 2 (or T, D) or 3, not '" + given + "'"};
}

const BlastOption* find_option(const std::string& name) {
  for (const BlastOption& option : kOptions)
    if (name == option.name) return &option;
  return nullptr;
}

std::string usage(const std::string& program) {
  std::string text = "usage: warpsearch " + program + " -query FILE -db DB [-out FILE] [BLAST+ options]\n\n" +
                     "Runs a " + program +
                     " command line as an exact Smith-Waterman search. DB is a database made by\n"
                     "'warpsearch makedb' (it may share its name with a BLAST database: BLAST's files sit beside the\n"
                     "directory). The options are BLAST+'s, with its names and defaults:\n";
  for (const BlastOption& option : kOptions) {
    switch (option.action) {
      case Action::option: text += "  -" + std::string(option.name) + "  (search " + option.target + ")\n"; break;
      case Action::exact_flag:
        text += "  -" + std::string(option.name) + "  accepted; what an exact search does\n";
        break;
      case Action::heuristic:
      case Action::heuristic_flag:
        text += "  -" + std::string(option.name) + "  accepted; a BLAST heuristic, without effect on an exact search\n";
        break;
      case Action::ignored:
      case Action::ignored_flag:
        text += "  -" + std::string(option.name) + "  accepted; " + option.target + "\n";
        break;
      case Action::refused: text += "  -" + std::string(option.name) + "  refused: " + option.target + "\n"; break;
      case Action::subject:
        text += "  -subject  FASTA searched instead of -db (a database made for the run, then removed)\n";
        break;
    }
  }
  text += "  -device auto|cpu|gpu, -quiet: warpsearch's own\n";
  return text;
}

// A message of `warpsearch search` about its options, with BLAST's names for them (--max-target-seqs
// becomes -max_target_seqs): the user typed those.
std::string with_blast_names(std::string message) {
  for (const BlastOption& option : kOptions) {
    if (option.action != Action::option || std::string_view(option.target).rfind("--", 0) != 0) continue;
    const std::string target = option.target, name = std::string("-") + option.name;
    for (std::size_t at = message.find(target); at != std::string::npos; at = message.find(target, at)) {
      const std::size_t end = at + target.size();
      if (end < message.size() && (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '-')) {
        at = end;
        continue;
      }
      message.replace(at, target.size(), name);
      at += name.size();
    }
  }
  return message;
}

// A BLAST+ command line turned into the `warpsearch search` command line that runs it.
class BlastCommand {
 public:
  explicit BlastCommand(std::string program)
      : program_(std::move(program)),
        // The program's query and database alphabets (blastx: DNA queries against proteins; tblastn:
        // proteins against DNA; tblastx: DNA against DNA, both translated).
        nucleotide_queries_(program_ == "blastn" || program_ == "blastx" || program_ == "tblastx"),
        nucleotide_database_(program_ == "blastn" || program_ == "tblastn" || program_ == "tblastx"),
        args_{"search", "--program", program_},
        soft_masking_(program_ == "blastn") {}  // blastn's default; blastp masks hard

  // Reads the BLAST+ options; false when -help or -version was answered instead.
  bool read(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
      std::string word = argv[i];
      if (word == "-h" || word == "-help" || word == "--help") {
        std::fputs(usage(program_).c_str(), stdout);
        return false;
      }
      if (word == "-version") {
        std::printf("%s: warpsearch %s (BLAST+ 2.12.0+ command line)\n", program_.c_str(), WARPSEARCH_VERSION);
        return false;
      }
      if (word.size() < 2 || word[0] != '-')
        throw UsageError{"unexpected argument '" + word + "' (" + program_ +
                         " options start with one dash, e.g. -query)"};
      const std::string name = word.substr(word[1] == '-' ? 2 : 1);
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw UsageError{"-" + name + " needs a value"};
        return argv[++i];
      };
      if (name == "device") {
        args_.push_back("--device");
        args_.push_back(value());
        continue;
      }
      if (name == "quiet") continue;
      if (name == "verbose") {
        quiet_ = false;
        continue;
      }
      const BlastOption* option = find_option(name);
      if (option == nullptr) throw UsageError{"unknown option -" + name + " (see 'warpsearch " + program_ + " -help')"};
      translate(*option, name, value);
    }
    return true;
  }

  // Checks that the queries and a database or subjects are named; the queries default to standard
  // input, as in BLAST; the database has no default.
  void check_inputs() {
    if (std::find(args_.begin(), args_.end(), "-q") == args_.end()) args_.insert(args_.end(), {"-q", "-"});
    if (!subject_path_.empty() && !database_path_.empty()) throw UsageError{"-subject and -db exclude each other"};
    if (subject_path_.empty() && database_path_.empty())
      throw UsageError{"-db is missing: " + program_ +
                       " searches a database made by 'warpsearch makedb' (or -subject FASTA)"};
  }

  // -subject: the sequences are packed into a database of their own, in a temporary directory removed
  // when the search ends (or fails); `directory` holds it.
  void pack_subjects(std::optional<TemporaryDirectory>& directory) {
    if (subject_path_.empty()) return;
    directory.emplace();
    MakeDbOptions make;
    make.input = subject_path_;
    make.output = directory->path() + "/subject";
    make.type = nucleotide_database_ ? SequenceType::nucleotide : SequenceType::protein;
    make_database(make);
    database_path_ = make.output;
    args_.insert(args_.end(), {"-d", database_path_});
  }

  // blastp and blastx search protein databases, the others nucleotide ones; say so before the search
  // options' messages about matrices would.
  void check_database_type() const {
    const auto type = Database::open(database_path_).info().type;
    const std::string instead = nucleotide_queries_ ? (nucleotide_database_ ? "blastx" : "blastn")
                                                    : (nucleotide_database_ ? "blastp" : "tblastn");
    if (nucleotide_database_ && type != SequenceType::nucleotide)
      throw UsageError{"-db " + database_path_ + " is a protein database: " + program_ +
                       " searches nucleotide ones (use 'warpsearch " + instead + "')"};
    if (!nucleotide_database_ && type != SequenceType::protein)
      throw UsageError{"-db " + database_path_ + " is a nucleotide database: " + program_ +
                       " searches protein ones (use 'warpsearch " + instead + "')"};
  }

  // BLAST's defaults where the search's differ, and what soft masking leaves out.
  void add_blast_defaults() {
    // SEG as soft masking only removes seeds: nothing for an exact search to mask.
    const auto seg = std::find(args_.begin(), args_.end(), "--seg");
    if (soft_masking_ && seg != args_.end()) {
      std::fprintf(stderr, "warpsearch %s: note: -seg with -soft_masking true only removes seeds: not applied\n",
                   program_.c_str());
      args_.erase(seg, seg + 2);
    }
    // DUST (blastn's default, 20 64 1) scores the dusted bases as N with -soft_masking false; soft masking only
    // removes seeds.
    if (program_ == "blastn") {
      const auto dust = std::find(args_.begin(), args_.end(), "--dust");
      if (soft_masking_ && dust != args_.end()) {
        if (dust[1] != "yes" && dust[1] != "no")
          std::fprintf(stderr,
                       "warpsearch blastn: note: -dust with -soft_masking true only removes seeds: not applied\n");
        args_.erase(dust, dust + 2);
      } else if (!soft_masking_ && dust == args_.end()) {
        args_.insert(args_.end(), {"--dust", "yes"});
      }
    }
    // blastp's default composition-based statistics: conditional matrix adjustment (mode 2).
    if (program_ == "blastp" && std::find(args_.begin(), args_.end(), "--comp-based-stats") == args_.end())
      args_.insert(args_.end(), {"--comp-based-stats", "2"});
    // blastp realigns its composition-adjusted hits by X-drop extension unless -use_sw_tback asks for
    // Smith-Waterman (docs/composition_statistics.md).
    if (program_ == "blastp") args_.insert(args_.end(), {"--realign", sw_traceback_ ? "sw" : "xdrop"});
    // BLAST's default report is the pairwise one.
    if (std::find(args_.begin(), args_.end(), "--outfmt") == args_.end()) args_.insert(args_.end(), {"--outfmt", "0"});
    if (quiet_) args_.push_back("--quiet");
  }

  // Runs the search command line; its usage errors speak of BLAST's option names.
  int run_search_command() {
    std::vector<char*> pointers;
    for (auto& arg : args_) pointers.push_back(arg.data());
    pointers.push_back(nullptr);
    try {
      return run_search(static_cast<int>(args_.size()), pointers.data());
    } catch (const UsageError& e) {
      throw UsageError{with_blast_names(e.what())};
    }
  }

 private:
  // One option of the table; value() reads its value, for those that take one.
  template <class Value>
  void translate(const BlastOption& option, const std::string& name, Value&& value) {
    switch (option.action) {
      case Action::option: {
        std::string given = value();
        if (name == "db") database_path_ = given;
        if (name == "comp_based_stats") given = composition_mode_number(given);
        if (name == "seg" && program_ == "blastn") throw UsageError{"-seg is a protein option (blastn has -dust)"};
        if (name == "dust" && program_ != "blastn")
          throw UsageError{"-dust is a blastn option (" + program_ + " has -seg)"};
        if (name == "seg" && program_ != "blastp") {
          if (given != "no")
            std::fprintf(stderr, "warpsearch %s: note: -seg is applied to blastp's queries only: not applied\n",
                         program_.c_str());
          break;
        }
        args_.push_back(option.target);
        args_.push_back(given);
        break;
      }
      case Action::heuristic: value(); [[fallthrough]];
      case Action::heuristic_flag:
        std::fprintf(stderr, "warpsearch %s: note: -%s steers BLAST's heuristics and does not change an exact search\n",
                     program_.c_str(), name.c_str());
        break;
      case Action::ignored: {
        const std::string given = value();
        // Values that ask for what an exact search does anyway need no note.
        if (name == "soft_masking") soft_masking_ = given == "true" || given == "T" || given == "t" || given == "1";
        // blastn's defaults (DUST as soft masking) and masking off change nothing an exact search reports.
        const bool matches = (name == "soft_masking" && (program_ == "blastn" || given == "false")) ||
                             (name == "task" && given == program_);
        if (!matches)
          std::fprintf(stderr, "warpsearch %s: note: -%s %s: %s\n", program_.c_str(), name.c_str(), given.c_str(),
                       option.target);
        break;
      }
      case Action::exact_flag:
        if (name == "use_sw_tback") sw_traceback_ = true;
        break;
      case Action::ignored_flag:
        std::fprintf(stderr, "warpsearch %s: note: -%s: %s\n", program_.c_str(), name.c_str(), option.target);
        break;
      case Action::refused: throw UsageError{std::string(option.target)};
      case Action::subject: subject_path_ = value(); break;
    }
  }

  const std::string program_;
  const bool nucleotide_queries_, nucleotide_database_;
  std::vector<std::string> args_;  // the search command line
  bool quiet_ = true;
  bool soft_masking_;
  bool sw_traceback_ = false;  // -use_sw_tback: Smith-Waterman realignment
  std::string database_path_, subject_path_;
};

}  // namespace

int run_blast(int argc, char** argv) {
  BlastCommand command(argv[0]);
  if (!command.read(argc, argv)) return 0;  // -help or -version
  command.check_inputs();
  std::optional<TemporaryDirectory> subject_directory;  // -subject's database, removed after the search
  command.pack_subjects(subject_directory);
  command.check_database_type();
  command.add_blast_defaults();
  return command.run_search_command();
}

}  // namespace warpsearch::tools
