// The align engine: every mode against the 64-bit references (score and span by their tie-breaks),
// operations that replay to the score, edge lengths, saturation, both alphabets, identical results for any
// thread count and batch split, parasail as a second oracle for the scores, and the GPU backend against the
// CPU backend in every mode, X-drop included (skipped with a warning where no GPU is usable).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/reference/reference.hpp"
#include "kernels/reference/reference_xdrop.hpp"
#include "search/align_engine.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

#if defined(WARPSEARCH_HAVE_PARASAIL)
#include <parasail.h>
#endif
#if defined(WARPSEARCH_HAVE_CUDA)
#include "kernels/gpu/gpu_scorer.hpp"
#endif

using namespace warpsearch;

namespace {

struct OwnedPair {
  std::string query, target;
  Seed seed;
};

std::vector<SequencePair> views(const std::vector<OwnedPair>& owned) {
  std::vector<SequencePair> pairs;
  for (const auto& pair : owned) pairs.push_back({pair.query, pair.target, pair.seed});
  return pairs;
}

std::vector<ScoringScheme> schemes() {
  std::vector<ScoringScheme> list;
  for (const char* name : {"BLOSUM62", "BLOSUM45", "PAM30", "BLOSUM90"})
    list.emplace_back(SubstitutionMatrix::builtin(name), GapOpen{11}, GapExtend{1});
  list.emplace_back(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{0}, GapExtend{3});
  list.emplace_back(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  list.emplace_back(SubstitutionMatrix::nucleotide(1, -1), GapOpen{1}, GapExtend{1});
  return list;
}

int letters_of(const ScoringScheme& scoring) { return scoring.matrix().type() == SequenceType::nucleotide ? 4 : 20; }

// Pairs of edge lengths, unrelated and related (a mutated copy inside random flanks), with a seed inside
// the shared part for xdrop.
std::vector<OwnedPair> make_pairs(std::mt19937_64& rng, int letters) {
  const std::size_t lengths[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 255, 256, 257};
  std::vector<OwnedPair> pairs;
  for (std::size_t a : lengths) {
    for (std::size_t b : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{256}}) {
      OwnedPair pair;
      pair.query = test::random_codes(rng, a, letters);
      pair.target = test::random_codes(rng, b, letters);
      if (!pair.query.empty() && !pair.target.empty()) pair.seed = Seed{0, 0, 1};
      pairs.push_back(pair);
    }
    if (a == 0) continue;
    OwnedPair related;
    const std::string flank = test::random_codes(rng, a / 3, letters);
    related.query = test::random_codes(rng, a / 5, letters) + test::random_codes(rng, a, letters);
    related.target = flank + test::mutated_codes(rng, related.query.substr(a / 5), letters, 0.15, 4) + flank;
    const std::uint32_t length =
        static_cast<std::uint32_t>(std::min<std::size_t>(3, related.target.size() - flank.size()));
    related.seed = Seed{static_cast<std::uint32_t>(a / 5), static_cast<std::uint32_t>(flank.size()), length};
    if (std::uint64_t{related.seed.query_begin} + length > related.query.size() ||
        std::uint64_t{related.seed.target_begin} + length > related.target.size())
      related.seed = Seed{0, 0, 0};
    pairs.push_back(related);
  }
  return pairs;
}

// Independent of the engine's own replay: the operations consume exactly the span and score the score.
void check_operations(const OwnedPair& pair, const ScoringScheme& scoring, const PairAlignment& alignment) {
  std::int64_t score = 0;
  std::size_t i = alignment.query_begin, j = alignment.subject_begin;
  std::uint32_t identities = 0, gaps = 0;
  for (std::size_t column = 0; column < alignment.operations.size(); ++column) {
    const char op = alignment.operations[column];
    const bool continues = column > 0 && alignment.operations[column - 1] == op;
    if (op == 'M') {
      REQUIRE(i < alignment.query_end);
      REQUIRE(j < alignment.subject_end);
      score += scoring.score(static_cast<std::uint8_t>(pair.query[i]), static_cast<std::uint8_t>(pair.target[j]));
      identities += pair.query[i] == pair.target[j] ? 1 : 0;
      ++i;
      ++j;
    } else {
      REQUIRE((op == 'I' || op == 'D'));
      score -= (continues ? 0 : scoring.gap_open()) + scoring.gap_extend();
      ++gaps;
      ++(op == 'I' ? i : j);
    }
  }
  REQUIRE(i == alignment.query_end);
  REQUIRE(j == alignment.subject_end);
  REQUIRE(score == alignment.score);
  CHECK(alignment.identities == identities);
  CHECK(alignment.gaps == gaps);
}

void check_mode(AlignmentMode mode, const ScoringScheme& scoring, const std::vector<OwnedPair>& pairs,
                unsigned threads) {
  AlignOptions options;
  options.mode = mode;
  options.operations = true;
  options.threads = threads;
  options.device = Device::cpu;
  options.xdrop = XDrop{25};
  AlignEngine engine(scoring, options);
  const std::vector<PairAlignment> results = engine.align(views(pairs));
  REQUIRE(results.size() == pairs.size());
  options.operations = false;
  AlignEngine spans_only(scoring, options);
  const std::vector<PairAlignment> spans = spans_only.align(views(pairs));
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const OwnedPair& pair = pairs[p];
    INFO(alignment_mode_name(mode) << " " << scoring.matrix().name() << " " << scoring.gap_open() << "/"
                                   << scoring.gap_extend() << " pair " << p << ": " << pair.query.size() << " x "
                                   << pair.target.size());
    std::int64_t score;
    std::uint32_t query_begin, query_end, subject_begin, subject_end;
    if (mode == AlignmentMode::xdrop) {
      const XdropSpan expected = reference::xdrop_reference(pair.query, pair.target, pair.seed, scoring, options.xdrop);
      score = expected.score;
      query_begin = expected.query_begin;
      query_end = expected.query_end;
      subject_begin = expected.subject_begin;
      subject_end = expected.subject_end;
    } else {
      const Span expected = reference::span(pair.query, pair.target, scoring, mode);
      score = expected.score;
      query_begin = expected.query_begin;
      query_end = expected.query_end;
      subject_begin = expected.subject_begin;
      subject_end = expected.subject_end;
    }
    const PairAlignment& got = results[p];
    REQUIRE(got.score == score);
    REQUIRE(got.query_begin == query_begin);
    REQUIRE(got.query_end == query_end);
    REQUIRE(got.subject_begin == subject_begin);
    REQUIRE(got.subject_end == subject_end);
    check_operations(pair, scoring, got);
    REQUIRE(spans[p].score == score);
    REQUIRE(spans[p].query_begin == query_begin);
    REQUIRE(spans[p].subject_end == subject_end);
  }
}

}  // namespace

TEST_CASE("align engine: local, global, semiglobal and xdrop against the references", "[align][engine]") {
  std::mt19937_64 rng(601);
  for (const auto& scoring : schemes()) {
    const std::vector<OwnedPair> pairs = make_pairs(rng, letters_of(scoring));
    for (const AlignmentMode mode :
         {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal, AlignmentMode::xdrop})
      check_mode(mode, scoring, pairs, 2);
  }
}

TEST_CASE("align engine: saturation of narrow scores on long identical pairs", "[align][engine]") {
  // 2,500 tryptophans score 11 each: 27,500, beyond 16-bit arithmetic's reach with any margin; the DNA pair
  // 2 * 20,000 = 40,000.
  const ScoringScheme blosum(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const std::string tryptophans(2500, static_cast<char>(Alphabet::protein().encode('W')));
  const std::vector<OwnedPair> protein_pairs = {{tryptophans, tryptophans, Seed{1000, 1000, 5}}};
  for (const AlignmentMode mode :
       {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal, AlignmentMode::xdrop})
    check_mode(mode, blosum, protein_pairs, 1);
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  std::mt19937_64 rng(603);
  const std::string genome = test::random_codes(rng, 20000, 4);
  AlignOptions options;
  options.mode = AlignmentMode::xdrop;
  options.device = Device::cpu;
  options.operations = true;
  AlignEngine engine(dna, options);
  const auto results = engine.align({{genome, genome, Seed{7000, 7000, 17}}});
  CHECK(results[0].score == 40000);
  CHECK(results[0].operations == std::string(20000, 'M'));
  CHECK(engine.cells() < 20000.0 * 300);  // the band, not the 400 M cells of the rectangle
}

TEST_CASE("align engine: the same results for any thread count and batch split", "[align][engine]") {
  std::mt19937_64 rng(607);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  std::vector<OwnedPair> pairs;
  std::uniform_int_distribution<std::size_t> length(1, 400);
  for (int n = 0; n < 60; ++n) {
    OwnedPair pair;
    pair.query = test::random_codes(rng, length(rng), 20);
    pair.target = n % 3 ? test::mutated_codes(rng, pair.query, 20, 0.3, 5) : test::random_codes(rng, length(rng), 20);
    pair.seed = Seed{0, 0, 0};
    pairs.push_back(pair);
  }
  for (const AlignmentMode mode :
       {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal, AlignmentMode::xdrop}) {
    std::vector<PairAlignment> first;
    for (const unsigned threads : {1u, 2u, 3u, 8u}) {
      AlignOptions options;
      options.mode = mode;
      options.threads = threads;
      options.device = Device::cpu;
      options.operations = true;
      AlignEngine engine(scoring, options);
      std::vector<PairAlignment> results;
      if (threads == 3) {  // in two batches
        const auto all = views(pairs);
        const std::vector<SequencePair> head(all.begin(), all.begin() + 17), tail(all.begin() + 17, all.end());
        results = engine.align(head);
        for (auto& result : engine.align(tail)) results.push_back(std::move(result));
      } else {
        results = engine.align(views(pairs));
      }
      if (first.empty()) {
        first = results;
        continue;
      }
      INFO(alignment_mode_name(mode) << ", " << threads << " threads");
      REQUIRE(results.size() == first.size());
      for (std::size_t p = 0; p < results.size(); ++p) {
        REQUIRE(results[p].score == first[p].score);
        REQUIRE(results[p].query_begin == first[p].query_begin);
        REQUIRE(results[p].subject_end == first[p].subject_end);
        REQUIRE(results[p].operations == first[p].operations);
      }
    }
  }
}

TEST_CASE("align engine: bad options and seeds", "[align][engine]") {
  const ScoringScheme scoring(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  AlignOptions options;
  options.mode = AlignmentMode::xdrop;
  options.xdrop = XDrop{-1};
  CHECK_THROWS_AS(AlignEngine(scoring, options), std::invalid_argument);
  options.xdrop = XDrop{10};
  options.device = Device::cpu;
  AlignEngine engine(scoring, options);
  const std::string a = "\x00\x01\x02\x03", b = "\x00\x01";
  CHECK_THROWS_AS(engine.align({{a, b, Seed{3, 1, 2}}}), std::out_of_range);
  CHECK_THROWS_AS(parse_alignment_mode("banded"), std::invalid_argument);
  CHECK(parse_alignment_mode("semiglobal") == AlignmentMode::semiglobal);
}

#if defined(WARPSEARCH_HAVE_PARASAIL)
TEST_CASE("align engine: parasail agrees on local, global and semiglobal scores", "[align][engine][parasail]") {
  // parasail's gap open is ours + extend; code c is the letter kLetters[c] of a matrix that is ours.
  static constexpr char kLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345";
  std::mt19937_64 rng(609);
  for (const auto& scoring : schemes()) {
    parasail_matrix_t* matrix = parasail_matrix_create(kLetters, 0, 0);
    for (int a = 0; a < kMaxCodes; ++a)
      for (int b = 0; b < kMaxCodes; ++b)
        parasail_matrix_set_value(matrix, a, b,
                                  scoring.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
    const std::vector<OwnedPair> pairs = make_pairs(rng, letters_of(scoring));
    std::vector<OwnedPair> nonempty;
    for (const auto& pair : pairs)
      if (!pair.query.empty() && !pair.target.empty()) nonempty.push_back(pair);
    const int open = scoring.gap_open() + scoring.gap_extend(), extend = scoring.gap_extend();
    for (const AlignmentMode mode : {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal}) {
      AlignOptions options;
      options.mode = mode;
      options.device = Device::cpu;
      AlignEngine engine(scoring, options);
      const auto results = engine.align(views(nonempty));
      for (std::size_t p = 0; p < nonempty.size(); ++p) {
        std::string q, t;
        for (char c : nonempty[p].query) q += kLetters[static_cast<std::size_t>(c)];
        for (char c : nonempty[p].target) t += kLetters[static_cast<std::size_t>(c)];
        const int ql = static_cast<int>(q.size()), tl = static_cast<int>(t.size());
        parasail_result_t* result =
            mode == AlignmentMode::local    ? parasail_sw(q.c_str(), ql, t.c_str(), tl, open, extend, matrix)
            : mode == AlignmentMode::global ? parasail_nw(q.c_str(), ql, t.c_str(), tl, open, extend, matrix)
                                            : parasail_sg_dx(q.c_str(), ql, t.c_str(), tl, open, extend, matrix);
        const int expected = parasail_result_get_score(result);
        parasail_result_free(result);
        INFO(alignment_mode_name(mode) << " " << scoring.matrix().name() << " pair " << p);
        CHECK(results[p].score == expected);
      }
    }
    parasail_matrix_free(matrix);
  }
}
#endif

#if defined(WARPSEARCH_HAVE_CUDA)
TEST_CASE("align engine: the GPU backend gives the CPU backend's results", "[align][engine][gpu]") {
  if (gpu::usable_device_count() == 0) {
    WARN("no usable GPU: the GPU align backend is not tested here (run the tests on a GPU machine)");
    return;
  }
  std::mt19937_64 rng(611);
  for (const auto& scoring : schemes()) {
    std::vector<OwnedPair> pairs = make_pairs(rng, letters_of(scoring));
    // Very different lengths in one batch, up to a few thousand residues.
    for (const std::size_t length : {1000, 3000}) {
      const std::string query = test::random_codes(rng, length, letters_of(scoring));
      pairs.push_back({query, test::mutated_codes(rng, query, letters_of(scoring), 0.2, 5), Seed{}});
    }
    for (const AlignmentMode mode :
         {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal, AlignmentMode::xdrop}) {
      for (const bool operations : {false, true}) {
        AlignOptions options;
        options.mode = mode;
        options.operations = operations;
        options.xdrop = XDrop{mode == AlignmentMode::xdrop && operations ? 200 : 30};
        options.device = Device::cpu;
        AlignEngine cpu_engine(scoring, options);
        const auto expected = cpu_engine.align(views(pairs));
        options.device = Device::gpu;
        AlignEngine gpu_engine(scoring, options);
        const auto got = gpu_engine.align(views(pairs));
        CHECK(gpu_engine.cells() == cpu_engine.cells());
        for (std::size_t p = 0; p < pairs.size(); ++p) {
          INFO(gpu_engine.backend_description()
               << " " << alignment_mode_name(mode) << " " << scoring.matrix().name() << " pair " << p << ": "
               << pairs[p].query.size() << " x " << pairs[p].target.size());
          REQUIRE(got[p].score == expected[p].score);
          REQUIRE(got[p].query_begin == expected[p].query_begin);
          REQUIRE(got[p].query_end == expected[p].query_end);
          REQUIRE(got[p].subject_begin == expected[p].subject_begin);
          REQUIRE(got[p].subject_end == expected[p].subject_end);
          REQUIRE(got[p].operations == expected[p].operations);
        }
      }
    }
  }
  // X-drop: a seed that does not fit names the pair as the CPU backend does.
  AlignOptions xdrop;
  xdrop.mode = AlignmentMode::xdrop;
  xdrop.device = Device::gpu;
  AlignEngine engine(schemes().front(), xdrop);
  const std::string codes = test::random_codes(rng, 2, 20);
  const std::vector<OwnedPair> bad = {{codes, codes, Seed{0, 0, 1}}, {codes, codes, Seed{1, 1, 2}}};
  CHECK_THROWS_AS(engine.align(views(bad)), std::out_of_range);
  try {
    engine.align(views(bad));
  } catch (const std::out_of_range& e) {
    CHECK(std::string(e.what()).rfind("pair 2 of the batch: ", 0) == 0);
  }
}
#endif
