// Long pairs on the GPU (search/gpu_long_pairs.hpp) end to end, against the CPU: the spans the GPU
// backend's locate() gives for pairs large enough for the whole-GPU kernel equal reference::span's, and
// so do local spans in several batches (more than one batch's device memory); a
// search with long protein queries (their self-hits traced back with the GPU's checkpoint rows) and
// `align` of long DNA pairs (checkpointed and Myers-Miller paths, with the GPU's rows) write the CPU's
// bytes. Skips (with a warning) where no GPU is usable.
#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/alphabet.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/long_pair.hpp"
#include "kernels/reference/reference.hpp"
#include "search/gpu_long_pairs.hpp"
#include "search/scan_backend.hpp"
#include "tests/catch.hpp"
#include "tests/gpu_test_support.hpp"
#include "tests/random_sequences.hpp"
#include "tests/test_support.hpp"

namespace {

using warpsearch::test::run_warpsearch;
using warpsearch::test::TempDir;

bool gpu_usable() { return warpsearch::test::gpu_usable("the GPU long-pair tests"); }

std::string output_of(const std::string& arguments) {
  const auto result = run_warpsearch(arguments);
  INFO("warpsearch " << arguments << "\n" << result.err);
  REQUIRE(result.exit_code == 0);
  return result.out;
}

}  // namespace

TEST_CASE("gpu long pairs: locate() of pairs for the whole-GPU kernel equals reference::span",
          "[gpu][search][long_pairs]") {
  if (!gpu_usable()) return;
  using namespace warpsearch;
  const ScoringScheme blosum62(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  std::mt19937_64 rng(91);
  std::vector<std::string> queries, subjects;
  for (const std::size_t m : {8200, 9000}) {
    queries.push_back(test::random_codes(rng, m, 20));
    subjects.push_back(test::random_codes(rng, 300, 20) + test::mutated_codes(rng, queries.back(), 20, 0.2, 5) +
                       test::random_codes(rng, 500, 20));
  }
  queries.push_back(queries[0]);  // the self-hit
  subjects.push_back(queries[0]);
  std::vector<HitPair> pairs;
  for (std::size_t k = 0; k < queries.size(); ++k) {
    REQUIRE(static_cast<double>(queries[k].size()) * static_cast<double>(subjects[k].size()) >=
            static_cast<double>(GpuLongPairs::kMinCells));
    pairs.push_back({queries[k], subjects[k]});
  }
  const auto backend = make_gpu_backend(blosum62, {0}, 0, 0);
  std::vector<Span> spans;
  backend->locate(pairs, spans);
  REQUIRE(spans.size() == pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto expected = reference::span(queries[k], subjects[k], blosum62, AlignmentMode::local);
    INFO("pair " << k);
    CHECK(spans[k].score == expected.score);
    CHECK(spans[k].query_begin == expected.query_begin);
    CHECK(spans[k].query_end == expected.query_end);
    CHECK(spans[k].subject_begin == expected.subject_begin);
    CHECK(spans[k].subject_end == expected.subject_end);
  }
  REQUIRE(backend->row_source() != nullptr);
}

TEST_CASE("gpu long pairs: local scans give the best score and stretches holding every hot column",
          "[gpu][long_pairs]") {
  if (!gpu_usable()) return;
  using namespace warpsearch;
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const ScoringScheme blosum62(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  std::mt19937_64 rng(2611);
  // Subjects of 40,000 (8 rows a lane), 140,000 (16, packed for DNA) and 300,000 residues (32, packed),
  // each holding two mutated copies of its query, one of them partial; an unrelated pair; protein pairs
  // (the 32-bit kernel).
  for (const bool protein : {false, true}) {
    const ScoringScheme& scoring = protein ? blosum62 : dna;
    const int letters = protein ? 20 : 4;
    std::vector<std::string> queries, subjects;
    std::vector<int> thresholds;
    for (const std::size_t n :
         protein ? std::vector<std::size_t>{40000, 60000} : std::vector<std::size_t>{40000, 140000, 300000, 140000}) {
      queries.push_back(test::random_codes(rng, 1000 + rng() % 1000, letters));
      std::string subject = test::random_codes(rng, n, letters);
      if (subjects.size() != 3) {
        const std::string& query = queries.back();
        const std::string whole = test::mutated_codes(rng, query, letters, 0.1, 3);
        const std::string part = test::mutated_codes(rng, query.substr(query.size() / 3), letters, 0.15, 3);
        subject.replace(rng() % (n / 2 - whole.size()), whole.size(), whole);
        subject.replace(n / 2 + rng() % (n / 2 - part.size()), part.size(), part);
      }
      subjects.push_back(subject);
      thresholds.push_back(protein ? 60 : 40);
    }
    std::vector<std::pair<std::string_view, std::string_view>> pairs;
    for (std::size_t k = 0; k < queries.size(); ++k) pairs.emplace_back(queries[k], subjects[k]);
    gpu::LongPairAligner aligner(0, scoring);
    const std::vector<gpu::LongPairAligner::LocalScan> scans = aligner.local_scans(pairs, thresholds);
    REQUIRE(scans.size() == pairs.size());
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const std::vector<std::int64_t> maxima = reference::column_maxima(queries[k], subjects[k], scoring);
      INFO((protein ? "protein" : "DNA") << " pair " << k << ": " << queries[k].size() << " x " << subjects[k].size());
      CHECK(scans[k].score == *std::max_element(maxima.begin(), maxima.end()));
      // Stretches ascending, apart, on stripe boundaries (multiples of 256) or the subject's end, each
      // holding a hot column; every hot column in one.
      std::vector<bool> covered(maxima.size(), false);
      std::size_t hot = 0, uncovered = 0, empty = 0;
      for (std::size_t r = 0; r < scans[k].hot.size(); ++r) {
        const auto [begin, end] = scans[k].hot[r];
        CHECK(begin < end);
        CHECK(end <= maxima.size());
        CHECK(begin % 256 == 0);
        CHECK((end % 256 == 0 || end == maxima.size()));
        if (r > 0) CHECK(scans[k].hot[r - 1].second < begin);
        bool holds = false;
        for (std::uint64_t c = begin; c < std::min<std::uint64_t>(end, maxima.size()); ++c) {
          covered[c] = true;
          holds = holds || maxima[c] >= thresholds[k];
        }
        empty += holds ? 0 : 1;
      }
      for (std::size_t c = 0; c < maxima.size(); ++c) {
        hot += maxima[c] >= thresholds[k] ? 1 : 0;
        uncovered += maxima[c] >= thresholds[k] && !covered[c] ? 1 : 0;
      }
      CHECK(uncovered == 0);
      CHECK(empty == 0);
      CHECK((k == 3) == (hot == 0));  // the unrelated pair has none, the others many
    }
  }
}

TEST_CASE("gpu long pairs: local spans beyond one batch's memory equal cpu::pair_span, pair by pair",
          "[gpu][long_pairs]") {
  if (!gpu_usable()) return;
  using namespace warpsearch;
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  std::mt19937_64 rng(93);
  // Six pairs whose rings (16 bytes a column of the longer sequence) take more than one batch's
  // kBatchBytes: 300-residue queries planted in 800,000-residue subjects, and one whose rows are
  // the subject (the shorter).
  std::vector<std::string> queries, subjects;
  for (int k = 0; k < 6; ++k) {
    queries.push_back(test::random_codes(rng, 300, 4));
    subjects.push_back(test::random_codes(rng, 400000, 4) + test::mutated_codes(rng, queries.back(), 4, 0.1, 3) +
                       test::random_codes(rng, 400000, 4));
  }
  std::swap(queries[2], subjects[2]);
  REQUIRE(6 * 16 * 800000.0 > static_cast<double>(GpuLongPairs::kBatchBytes));
  GpuLongPairs long_pairs(0, dna);
  std::vector<std::size_t> which{5, 0, 3, 1, 4, 2};
  std::vector<Span> spans(queries.size());
  std::vector<int> calls(queries.size(), 0);
  long_pairs.spans(
      which, AlignmentMode::local,
      [&](std::size_t k) { return std::make_pair(std::string_view(queries[k]), std::string_view(subjects[k])); },
      [&](std::size_t k, const Span& span) {
        spans[k] = span;
        ++calls[k];
      });
  for (std::size_t k = 0; k < queries.size(); ++k) {
    const Span expected = cpu::pair_span(queries[k], subjects[k], dna, AlignmentMode::local);
    INFO("pair " << k);
    CHECK(calls[k] == 1);
    CHECK(spans[k].score == expected.score);
    CHECK(spans[k].score > 0);
    CHECK(spans[k].query_begin == expected.query_begin);
    CHECK(spans[k].query_end == expected.query_end);
    CHECK(spans[k].subject_begin == expected.subject_begin);
    CHECK(spans[k].subject_end == expected.subject_end);
  }
}

TEST_CASE("gpu long pairs: a search with long protein queries writes the CPU's bytes", "[gpu][search][long_pairs]") {
  if (!gpu_usable()) return;
  TempDir dir;
  std::mt19937_64 rng(92);
  const auto& protein = warpsearch::Alphabet::protein();
  std::string query_fasta, db_fasta;
  for (int q = 0; q < 2; ++q) {
    const std::string query = warpsearch::test::random_codes(rng, 9000 + 3000 * static_cast<std::size_t>(q), 20);
    query_fasta += ">long" + std::to_string(q) + "\n" + protein.decode_string(query) + "\n";
    db_fasta += ">self" + std::to_string(q) + "\n" + protein.decode_string(query) + "\n";
    for (int copy = 0; copy < 3; ++copy)
      db_fasta += ">copy" + std::to_string(q) + "_" + std::to_string(copy) + "\n" +
                  protein.decode_string(warpsearch::test::mutated_codes(rng, query, 20, 0.1 + 0.1 * copy, 4)) + "\n";
  }
  for (int s = 0; s < 200; ++s)
    db_fasta += ">random" + std::to_string(s) + "\n" +
                protein.decode_string(warpsearch::test::random_codes(rng, 100 + rng() % 2000, 20)) + "\n";
  warpsearch::test::write_file(dir.file("db.fa"), db_fasta);
  warpsearch::test::write_file(dir.file("q.fa"), query_fasta);
  REQUIRE(run_warpsearch("makedb --quiet " + dir.file("db.fa") + " " + dir.file("db.wsdb")).exit_code == 0);
  const std::string common =
      "search --quiet --outfmt '6 qseqid sseqid pident length mismatch gapopen qstart qend "
      "sstart send evalue bitscore score cigar qseq sseq' -q " +
      dir.file("q.fa") + " -d " + dir.file("db.wsdb");
  const std::string cpu = output_of(common + " --device cpu");
  CHECK(std::count(cpu.begin(), cpu.end(), '\n') >= 8);
  CHECK(output_of(common + " --device gpu") == cpu);
}

TEST_CASE("gpu long pairs: align of long DNA pairs writes the CPU's bytes", "[gpu][align][long_pairs]") {
  if (!gpu_usable()) return;
  TempDir dir;
  std::mt19937_64 rng(93);
  const auto& dna = warpsearch::Alphabet::nucleotide();
  std::string a_fasta, b_fasta;
  // 20 kb: the checkpointed traceback; 70 kb: Myers and Miller's (beyond the checkpoint budget).
  for (const std::size_t length : {20000, 70000}) {
    const std::string a = warpsearch::test::random_codes(rng, length, 4);
    const std::string b = warpsearch::test::random_codes(rng, 1000, 4) +
                          warpsearch::test::mutated_codes(rng, a, 4, 0.1, 5) +
                          warpsearch::test::random_codes(rng, 700, 4);
    a_fasta += ">a" + std::to_string(length) + "\n" + dna.decode_string(a) + "\n";
    b_fasta += ">b" + std::to_string(length) + "\n" + dna.decode_string(b) + "\n";
  }
  warpsearch::test::write_file(dir.file("a.fa"), a_fasta);
  warpsearch::test::write_file(dir.file("b.fa"), b_fasta);
  for (const char* mode : {"local", "global", "semiglobal"}) {
    const std::string arguments =
        "align --quiet -q " + dir.file("a.fa") + " -t " + dir.file("b.fa") + " --mode " + mode + " --cigar --aligned";
    const std::string cpu = output_of(arguments + " --device cpu");
    INFO(mode);
    CHECK(std::count(cpu.begin(), cpu.end(), '\n') >= 2);
    CHECK(output_of(arguments + " --device gpu") == cpu);
  }
}
