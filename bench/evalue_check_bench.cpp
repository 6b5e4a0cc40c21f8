// Compares warpsearch's E-values and bit scores with BLAST's for the same raw scores.
//
// Reads BLAST+ JSON output (-outfmt 15, which prints E-values to 6 significant digits; the tabular
// formats round them to 2 or 3) on stdin and recomputes every HSP's E-value and bit score from its raw
// score, query length and subject length with statistics/statistics.hpp. Prints one summary line:
//   hits  max_rel_evalue_diff  max_abs_bitscore_diff  worst(qlen,slen,score,blast_e,our_e)
// and exits 1 when the E-values differ by more than --max-rel or the bit scores by more than
// --max-bits.
//
//   blastp ... -outfmt 15 | evalue_check_bench --matrix BLOSUM62 --gapopen 11 --gapextend 1
//       --residues 1842118 --sequences 4000 [--model fsc|length-adjusted]
//   blastn ... -outfmt 15 | evalue_check_bench --reward 2 --penalty -3 --gapopen 5 --gapextend 2 ...
//
// --model length-adjusted compares with the classic formula (blastp run with OLD_FSC=1, or blastn).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include "profile/scoring.hpp"
#include "statistics/statistics.hpp"

namespace {

struct Options {
  std::string matrix;
  int reward = 0, penalty = 0, gap_open = -1, gap_extend = -1;
  std::uint64_t residues = 0, sequences = 0;
  bool finite_size = true;
  double max_rel = 0.01, max_bits = 0.1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument("option " + arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--matrix")
      o.matrix = value;
    else if (arg == "--reward")
      o.reward = std::stoi(value);
    else if (arg == "--penalty")
      o.penalty = std::stoi(value);
    else if (arg == "--gapopen")
      o.gap_open = std::stoi(value);
    else if (arg == "--gapextend")
      o.gap_extend = std::stoi(value);
    else if (arg == "--residues")
      o.residues = std::stoull(value);
    else if (arg == "--sequences")
      o.sequences = std::stoull(value);
    else if (arg == "--max-rel")
      o.max_rel = std::stod(value);
    else if (arg == "--max-bits")
      o.max_bits = std::stod(value);
    else if (arg == "--model") {
      if (value != "fsc" && value != "length-adjusted")
        throw std::invalid_argument("--model is fsc or length-adjusted, not " + value);
      o.finite_size = value == "fsc";
    } else {
      throw std::invalid_argument("unknown option " + arg);
    }
  }
  if (o.gap_open < 0 || o.gap_extend < 0 || o.residues == 0 || o.sequences == 0)
    throw std::invalid_argument("--gapopen, --gapextend, --residues and --sequences are required");
  if (o.matrix.empty() && o.reward == 0) throw std::invalid_argument("--matrix or --reward/--penalty is required");
  return o;
}

// The number after `"key": ` on a pretty-printed JSON line, if the line holds that key.
std::optional<double> field(const std::string& line, const char* key) {
  const std::string quoted = std::string("\"") + key + "\":";
  const auto at = line.find(quoted);
  if (at == std::string::npos) return std::nullopt;
  return std::stod(line.substr(at + quoted.size()));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    using namespace warpsearch;
    const ScoringScheme scoring(
        o.matrix.empty() ? SubstitutionMatrix::nucleotide(o.reward, o.penalty) : SubstitutionMatrix::builtin(o.matrix),
        GapOpen{o.gap_open}, GapExtend{o.gap_extend});
    const EvalueCalculator calc(scoring, o.residues, o.sequences);

    std::uint32_t qlen = 0, slen = 0;
    double bits = 0;
    int score = 0;
    std::size_t hits = 0, zero_hits = 0;
    double max_rel = 0, max_bits = 0;
    std::string worst = "-";
    std::string line;
    while (std::getline(std::cin, line)) {
      if (auto v = field(line, "query_len"))
        qlen = static_cast<std::uint32_t>(*v);
      else if (auto l = field(line, "len"))
        slen = static_cast<std::uint32_t>(*l);
      else if (auto b = field(line, "bit_score"))
        bits = *b;
      else if (auto s = field(line, "score"))
        score = static_cast<int>(*s);
      else if (auto e = field(line, "evalue")) {
        const double ours = o.finite_size ? calc.evalue(score, qlen, slen) : calc.evalue(score, qlen);
        ++hits;
        max_bits = std::max(max_bits, std::fabs(calc.bitscore(score) - bits));
        if (*e == 0) {  // BLAST prints 0 below about 1e-180
          ++zero_hits;
          if (ours > 1e-170) max_rel = std::max(max_rel, 1.0);
          continue;
        }
        const double rel = std::fabs(ours - *e) / *e;
        if (rel > max_rel) {
          max_rel = rel;
          char text[200];
          std::snprintf(text, sizeof text, "qlen=%u,slen=%u,score=%d,blast=%.6g,ours=%.6g", qlen, slen, score, *e,
                        ours);
          worst = text;
        }
      }
    }
    std::printf("%zu\t%zu\t%.3g\t%.3g\t%s\n", hits, zero_hits, max_rel, max_bits, worst.c_str());
    if (hits == 0) {
      std::fprintf(stderr, "evalue_check_bench: no HSPs read (is the input BLAST -outfmt 15?)\n");
      return 1;
    }
    return max_rel <= o.max_rel && max_bits <= o.max_bits ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evalue_check_bench: %s\n", e.what());
    return 2;
  }
}
