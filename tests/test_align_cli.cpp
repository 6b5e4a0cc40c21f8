// warpsearch align from the command line: every mode's rows against the references, the CIGAR and aligned
// strings replayed, SAM records, --pairs with seeds, thread-count determinism, the user's errors, and
// --device gpu against --device cpu (skipped with a warning where no GPU is usable).
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/alphabet.hpp"
#include "kernels/reference/reference.hpp"
#include "kernels/reference/reference_xdrop.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

#if defined(WARPSEARCH_HAVE_CUDA)
#include "kernels/gpu/gpu_scorer.hpp"
#endif

using namespace warpsearch;
using test::read_file;
using test::run_warpsearch;
using test::TempDir;
using test::write_file;

namespace {

using warpsearch::test::contains;
std::string quoted(const std::string& path) { return "'" + path + "'"; }

std::vector<std::vector<std::string>> rows_of(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::istringstream columns(line);
    for (std::string field; std::getline(columns, field, '\t');) fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

struct Fixture {
  std::vector<std::string> queries, targets;  // residue codes
  const Alphabet& alphabet;
  TempDir dir;
  std::string query_file, target_file;

  Fixture(std::mt19937_64& rng, const Alphabet& alpha, int count) : alphabet(alpha) {
    const int letters = alpha.type() == SequenceType::nucleotide ? 4 : 20;
    std::uniform_int_distribution<std::size_t> length(1, 300);
    std::string query_fasta, target_fasta;
    for (int n = 0; n < count; ++n) {
      std::string query = test::random_codes(rng, length(rng), letters);
      std::string target = n % 4 == 0 ? test::random_codes(rng, length(rng), letters)
                                      : test::random_codes(rng, length(rng) / 4, letters) +
                                            test::mutated_codes(rng, query, letters, 0.1 * (n % 3), 4) +
                                            test::random_codes(rng, length(rng) / 4, letters);
      if (target.empty()) target = test::random_codes(rng, 5, letters);
      query_fasta +=
          ">q" + std::to_string(n) + " query number " + std::to_string(n) + "\n" + alpha.decode_string(query) + "\n";
      target_fasta += ">t" + std::to_string(n) + "\n" + alpha.decode_string(target) + "\n";
      queries.push_back(std::move(query));
      targets.push_back(std::move(target));
    }
    query_file = dir.file("queries.fa");
    target_file = dir.file("targets.fa");
    write_file(query_file, query_fasta);
    write_file(target_file, target_fasta);
  }
  std::string inputs() const { return "--query " + quoted(query_file) + " --target " + quoted(target_file); }
};

// Score of a CIGAR (M/I/D, optionally with S clips) over the sequences from the given 0-based starts.
std::int64_t replay_cigar(const std::string& cigar, const std::string& query, const std::string& target, std::size_t i,
                          std::size_t j, const ScoringScheme& scoring, std::size_t* query_end,
                          std::size_t* target_end) {
  std::int64_t score = 0;
  std::size_t run = 0;
  for (const char c : cigar) {
    if (c >= '0' && c <= '9') {
      run = run * 10 + static_cast<std::size_t>(c - '0');
      continue;
    }
    if (c == 'M') {
      for (std::size_t k = 0; k < run; ++k, ++i, ++j) {
        REQUIRE(i < query.size());
        REQUIRE(j < target.size());
        score += scoring.score(static_cast<std::uint8_t>(query[i]), static_cast<std::uint8_t>(target[j]));
      }
    } else if (c == 'I' || c == 'D') {
      score -= scoring.gap_cost(static_cast<long long>(run));
      (c == 'I' ? i : j) += run;
    } else {
      REQUIRE(c == 'S');
    }
    run = 0;
  }
  *query_end = i;
  *target_end = j;
  return score;
}

std::string ungapped(const std::string& aligned) {
  std::string letters;
  for (char c : aligned)
    if (c != '-') letters += c;
  return letters;
}

}  // namespace

TEST_CASE("align cli: every mode's rows equal the references, and the CIGAR replays", "[cli][align]") {
  std::mt19937_64 rng(701);
  for (const Alphabet* alphabet : {&Alphabet::protein(), &Alphabet::nucleotide()}) {
    Fixture fixture(rng, *alphabet, 24);
    const bool dna = alphabet->type() == SequenceType::nucleotide;
    const ScoringScheme scoring =
        dna ? ScoringScheme(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2})
            : ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
    for (const char* mode : {"local", "global", "semiglobal", "xdrop"}) {
      const auto result = run_warpsearch("align --quiet --device cpu " + fixture.inputs() + " --mode " + mode +
                                         " --cigar --aligned" + (std::string(mode) == "xdrop" ? " --xdrop 30" : ""));
      INFO(alphabet->name() << " " << mode << ": " << result.err);
      REQUIRE(result.exit_code == 0);
      const auto rows = rows_of(result.out);
      REQUIRE(rows.size() == fixture.queries.size() + 1);
      CHECK(result.out.rfind("query_id\ttarget_id\tscore\tquery_start\tquery_end\ttarget_start\ttarget_end\tcigar\t"
                             "query_aligned\ttarget_aligned\n",
                             0) == 0);
      for (std::size_t p = 0; p < fixture.queries.size(); ++p) {
        const auto& row = rows[p + 1];
        const std::string& query = fixture.queries[p];
        const std::string& target = fixture.targets[p];
        INFO("pair " << p);
        REQUIRE(row.size() == 10);
        CHECK(row[0] == "q" + std::to_string(p));
        CHECK(row[1] == "t" + std::to_string(p));
        std::int64_t score;
        std::uint32_t qb, qe, tb, te;
        if (std::string(mode) == "xdrop") {
          const XdropSpan span = reference::xdrop_reference(query, target, Seed{0, 0, 0}, scoring, XDrop{30});
          score = span.score, qb = span.query_begin, qe = span.query_end, tb = span.subject_begin,
          te = span.subject_end;
        } else {
          const Span span = reference::span(query, target, scoring, parse_alignment_mode(mode));
          score = span.score, qb = span.query_begin, qe = span.query_end, tb = span.subject_begin,
          te = span.subject_end;
        }
        REQUIRE(row[2] == std::to_string(score));
        // 1-based inclusive; an empty side prints 0 0.
        CHECK(row[3] == (qb == qe ? "0" : std::to_string(qb + 1)));
        CHECK(row[4] == (qb == qe ? "0" : std::to_string(qe)));
        CHECK(row[5] == (tb == te ? "0" : std::to_string(tb + 1)));
        CHECK(row[6] == (tb == te ? "0" : std::to_string(te)));
        if (qb == qe && tb == te) {
          CHECK(row[7] == "*");
          continue;
        }
        std::size_t query_end = 0, target_end = 0;
        CHECK(replay_cigar(row[7], query, target, qb, tb, scoring, &query_end, &target_end) == score);
        CHECK(query_end == qe);
        CHECK(target_end == te);
        CHECK(ungapped(row[8]) == alphabet->decode_string(query.substr(qb, qe - qb)));
        CHECK(ungapped(row[9]) == alphabet->decode_string(target.substr(tb, te - tb)));
        CHECK(row[8].size() == row[9].size());
      }
    }
  }
}

TEST_CASE("align cli: --pairs with seeds, SAM, files and threads", "[cli][align]") {
  std::mt19937_64 rng(703);
  Fixture fixture(rng, Alphabet::nucleotide(), 12);
  const ScoringScheme scoring(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  // Pairs in another order, some twice, with seeds (1-based) in the middle, at the ends and none.
  std::string pairs_text = "# query target qseed tseed length\n\n";
  struct Expected {
    std::size_t query, target;
    Seed seed;
  };
  std::vector<Expected> expected;
  for (std::size_t n = 0; n < 12; ++n) {
    const std::size_t q = (n * 5) % 12, t = n % 3 == 0 ? q : (n * 7) % 12;
    const auto& query = fixture.queries[q];
    const auto& target = fixture.targets[t];
    Seed seed{static_cast<std::uint32_t>(rng() % query.size()), static_cast<std::uint32_t>(rng() % target.size()), 1};
    std::string row = "q" + std::to_string(q) + "\tt" + std::to_string(t);
    if (n % 4 == 1) {
      seed = Seed{0, 0, 0};  // no seed columns
    } else if (n % 4 == 2) {
      row += " " + std::to_string(seed.query_begin + 1) + " " + std::to_string(seed.target_begin + 1);  // --seed-length
    } else {
      seed.length = static_cast<std::uint32_t>(
          std::min<std::size_t>({4, query.size() - seed.query_begin, target.size() - seed.target_begin}));
      row += "\t" + std::to_string(seed.query_begin + 1) + "\t" + std::to_string(seed.target_begin + 1) + "\t" +
             std::to_string(seed.length);
    }
    pairs_text += row + "\n";
    expected.push_back({q, t, seed});
  }
  const std::string pairs = fixture.dir.file("pairs.tsv");
  write_file(pairs, pairs_text);
  const std::string out = fixture.dir.file("out.tsv");
  const auto result = run_warpsearch("align --quiet --device cpu " + fixture.inputs() + " --pairs " + quoted(pairs) +
                                     " --mode xdrop --xdrop 20 --seed-length 1 --threads 1 -o " + quoted(out));
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto rows = rows_of(read_file(out));
  REQUIRE(rows.size() == expected.size() + 1);
  for (std::size_t n = 0; n < expected.size(); ++n) {
    const XdropSpan span = reference::xdrop_reference(
        fixture.queries[expected[n].query], fixture.targets[expected[n].target], expected[n].seed, scoring, XDrop{20});
    INFO("row " << n);
    CHECK(rows[n + 1][0] == "q" + std::to_string(expected[n].query));
    CHECK(rows[n + 1][2] == std::to_string(span.score));
    CHECK(rows[n + 1][6] == (span.subject_begin == span.subject_end ? "0" : std::to_string(span.subject_end)));
  }
  // Identical for any thread count, and on stdout.
  const auto threaded = run_warpsearch("align --quiet --device cpu " + fixture.inputs() + " --pairs " + quoted(pairs) +
                                       " --mode xdrop --xdrop 20 --threads 3 --batch 5");
  REQUIRE(threaded.exit_code == 0);
  CHECK(threaded.out == read_file(out));

  // SAM: the header names every target; each record's CIGAR (soft clips included) covers the whole query
  // and replays to AS.
  const auto sam = run_warpsearch("align --quiet --device cpu " + fixture.inputs() + " --outfmt sam --mode local");
  INFO(sam.err);
  REQUIRE(sam.exit_code == 0);
  const auto lines = rows_of(sam.out);
  REQUIRE(lines.size() == 1 + 12 + 1 + 12);
  CHECK(lines[0][0] == "@HD");
  for (std::size_t t = 0; t < 12; ++t) {
    CHECK(lines[1 + t][0] == "@SQ");
    CHECK(lines[1 + t][1] == "SN:t" + std::to_string(t));
    CHECK(lines[1 + t][2] == "LN:" + std::to_string(fixture.targets[t].size()));
  }
  CHECK(lines[13][0] == "@PG");
  for (std::size_t p = 0; p < 12; ++p) {
    const auto& record = lines[14 + p];
    INFO("SAM record " << p);
    REQUIRE(record.size() == 13);
    CHECK(record[0] == "q" + std::to_string(p));
    CHECK(record[9] == Alphabet::nucleotide().decode_string(fixture.queries[p]));
    const Span span = reference::span(fixture.queries[p], fixture.targets[p], scoring, AlignmentMode::local);
    CHECK(record[11] == "AS:i:" + std::to_string(span.score));
    if (span.score == 0) {
      CHECK(record[1] == "4");
      continue;
    }
    CHECK(record[1] == "0");
    CHECK(record[2] == "t" + std::to_string(p));
    CHECK(record[3] == std::to_string(span.subject_begin + 1));
    std::size_t query_end = 0, target_end = 0;
    const std::string& cigar = record[5];
    const std::size_t clip =
        cigar.find('S') != std::string::npos && cigar.find('S') < cigar.find_first_of("MID") ? std::stoul(cigar) : 0;
    CHECK(clip == span.query_begin);
    CHECK(replay_cigar(cigar, fixture.queries[p], fixture.targets[p], clip, span.subject_begin, scoring, &query_end,
                       &target_end) == span.score);
    CHECK(target_end == span.subject_end);
    const std::size_t tail = fixture.queries[p].size() - span.query_end;
    CHECK((tail == 0 ? cigar.back() != 'S'
                     : cigar.size() >= 2 &&
                           cigar.substr(cigar.size() - 1 - std::to_string(tail).size()) == std::to_string(tail) + "S"));
  }
}

TEST_CASE("align cli: an empty local alignment, and hand-checked rows", "[cli][align]") {
  TempDir dir;
  write_file(dir.file("a.fa"), ">a\nAAAA\n>b\nACGTACGT\n");
  write_file(dir.file("b.fa"), ">x\nCCC\n>y\nACGTTACGT\n");
  const auto result =
      run_warpsearch("align --quiet --device cpu -q " + quoted(dir.file("a.fa")) + " -t " + quoted(dir.file("b.fa")) +
                     " --match 2 --mismatch -3 --gapopen 1 --gapextend 1 --cigar --aligned");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto rows = rows_of(result.out);
  REQUIRE(rows.size() == 3);
  // No positive cell: score 0, every coordinate 0, '*' for the CIGAR and the aligned strings.
  CHECK(rows[1] == std::vector<std::string>{"a", "x", "0", "0", "0", "0", "0", "*", "*", "*"});
  // 8 matches and one gap of length 1: 16 - (1 + 1) = 14. The deleted T is either of the target's two.
  REQUIRE(rows[2].size() == 10);
  CHECK(std::vector<std::string>(rows[2].begin(), rows[2].begin() + 7) ==
        std::vector<std::string>{"b", "y", "14", "1", "8", "1", "9"});
  CHECK((rows[2][7] == "4M1D4M" || rows[2][7] == "3M1D5M"));
  CHECK(rows[2][8] == (rows[2][7] == "4M1D4M" ? "ACGT-ACGT" : "ACG-TACGT"));
  CHECK(rows[2][9] == "ACGTTACGT");
}

TEST_CASE("align cli: user errors are named, exit non-zero and leave no output", "[cli][align]") {
  TempDir dir;
  write_file(dir.file("a.fa"), ">a\nACGTACGT\n>b\nACGT\n>c\nGGGG\n");
  write_file(dir.file("b.fa"), ">x\nACGT\n>y\nACGTT\n");
  write_file(dir.file("p.fa"), ">p\nMKVLAT\n");
  const std::string a = quoted(dir.file("a.fa")), b = quoted(dir.file("b.fa")), out = dir.file("out.tsv");
  const auto expect_error = [&](const std::string& arguments, std::initializer_list<std::string> parts) {
    const auto result = run_warpsearch("align --device cpu " + arguments + " -o " + quoted(out));
    INFO(arguments << "\n" << result.err);
    CHECK(result.exit_code != 0);
    for (const auto& part : parts) CHECK(contains(result.err, part));
    CHECK_FALSE(test::path_exists(out));
  };
  expect_error("-q " + a + " -t " + b, {"a.fa has 3 records", "b.fa has 2"});
  expect_error("-q " + b + " -t " + a, {"b.fa has 2 records", "a.fa has 3"});
  // The same with the files parsed in blocks on several threads each.
  expect_error("--threads 6 -q " + a + " -t " + b, {"a.fa has 3 records", "b.fa has 2"});
  expect_error("--threads 6 -q " + b + " -t " + a, {"b.fa has 2 records", "a.fa has 3"});
  write_file(dir.file("unknown.tsv"), "a x\nb zz\n");
  expect_error("-q " + a + " -t " + b + " --pairs " + quoted(dir.file("unknown.tsv")),
               {"unknown.tsv:2", "'zz'", "b.fa"});
  write_file(dir.file("range.tsv"), "a x 1 1 4\nb y 3 4 3\n");
  expect_error("-q " + a + " -t " + b + " --mode xdrop --pairs " + quoted(dir.file("range.tsv")),
               {"range.tsv:2", "does not fit"});
  write_file(dir.file("zero.tsv"), "a x 0 1\n");
  expect_error("-q " + a + " -t " + b + " --mode xdrop --pairs " + quoted(dir.file("zero.tsv")),
               {"zero.tsv:1", "at least 1"});
  write_file(dir.file("columns.tsv"), "a x 1\n");
  expect_error("-q " + a + " -t " + b + " --pairs " + quoted(dir.file("columns.tsv")),
               {"columns.tsv:1", "2, 4 or 5 columns"});
  expect_error("-q " + quoted(dir.file("p.fa")) + " -t " + quoted(dir.file("p.fa")) + " --outfmt sam",
               {"SAM", "nucleotide"});
  expect_error("-q " + a + " -t " + a + " --mode banded", {"unknown alignment mode 'banded'"});
  expect_error("-q " + a + " -t " + a + " --xdrop 10", {"--xdrop is for --mode xdrop"});
  expect_error("-q " + a + " -t " + a + " --mode xdrop --xdrop -5", {"--xdrop must be at least 0"});
  expect_error("-q " + a + " -t " + a + " --outfmt bam", {"--outfmt takes tsv or sam"});
  expect_error("-q " + a, {"--target"});
  write_file(dir.file("dup.fa"), ">x\nACGT\n>x\nACGA\n");
  write_file(dir.file("dup.tsv"), "a x\n");
  expect_error("-q " + a + " -t " + quoted(dir.file("dup.fa")) + " --pairs " + quoted(dir.file("dup.tsv")),
               {"dup.fa", "records 1 and 2", "'x'"});
  write_file(dir.file("two.fa"), ">a\nACGT\n>b\nACGA\n");
  expect_error("-q " + quoted(dir.file("two.fa")) + " -t " + quoted(dir.file("dup.fa")) + " --outfmt sam",
               {"dup.fa", "records 1 and 2", "unique"});
}

#if defined(WARPSEARCH_HAVE_CUDA)
TEST_CASE("align cli: --device gpu writes the bytes --device cpu writes", "[cli][align][gpu]") {
  if (gpu::usable_device_count() == 0) {
    WARN("no usable GPU: align --device gpu is not tested here (run the tests on a GPU machine)");
    return;
  }
  std::mt19937_64 rng(709);
  for (const Alphabet* alphabet : {&Alphabet::protein(), &Alphabet::nucleotide()}) {
    Fixture fixture(rng, *alphabet, 40);
    for (const char* mode : {"local", "global", "semiglobal", "xdrop"}) {
      for (const char* columns : {"", " --cigar --aligned"}) {
        const std::string arguments = "align --quiet " + fixture.inputs() + " --mode " + mode + columns;
        const auto cpu = run_warpsearch(arguments + " --device cpu");
        const auto gpu = run_warpsearch(arguments + " --device gpu");
        INFO(alphabet->name() << " " << mode << columns << "\n" << gpu.err);
        REQUIRE(cpu.exit_code == 0);
        REQUIRE(gpu.exit_code == 0);
        CHECK(gpu.out == cpu.out);
      }
    }
  }
  // X-drop with seeds from --pairs, and SAM.
  TempDir dir;
  const Alphabet& dna = Alphabet::nucleotide();
  std::string a_fasta, b_fasta, pairs;
  for (int n = 0; n < 30; ++n) {
    const std::string core = test::random_codes(rng, 200 + 37 * static_cast<std::size_t>(n), 4);
    const std::string flank = test::random_codes(rng, static_cast<std::size_t>(n) * 3, 4);
    const std::string a = flank + core + flank;
    const std::string b = test::mutated_codes(rng, core, 4, 0.1, 3);
    a_fasta += ">a" + std::to_string(n) + "\n" + dna.decode_string(a) + "\n";
    b_fasta += ">b" + std::to_string(n) + "\n" + dna.decode_string(b) + "\n";
    pairs += "a" + std::to_string(n) + "\tb" + std::to_string(n) + "\t" + std::to_string(flank.size() + 1) + "\t1\t1\n";
  }
  write_file(dir.file("a.fa"), a_fasta);
  write_file(dir.file("b.fa"), b_fasta);
  write_file(dir.file("pairs.tsv"), pairs);
  for (const char* columns : {"", " --cigar", " --outfmt sam"}) {
    for (const char* x : {"0", "20", "100"}) {
      const std::string arguments = "align --quiet --mode xdrop --xdrop " + std::string(x) + " -q " +
                                    quoted(dir.file("a.fa")) + " -t " + quoted(dir.file("b.fa")) + " --pairs " +
                                    quoted(dir.file("pairs.tsv")) + columns;
      const auto cpu = run_warpsearch(arguments + " --device cpu");
      const auto gpu = run_warpsearch(arguments + " --device gpu");
      INFO("xdrop --pairs X " << x << columns << "\n" << gpu.err);
      REQUIRE(cpu.exit_code == 0);
      REQUIRE(gpu.exit_code == 0);
      // SAM's @PG line records the command line, which differs in its --device.
      const auto without_program_line = [](const std::string& sam) {
        std::string kept;
        std::size_t at = 0;
        while (at < sam.size()) {
          const std::size_t end = std::min(sam.find('\n', at), sam.size() - 1) + 1;
          if (sam.compare(at, 4, "@PG\t") != 0) kept.append(sam, at, end - at);
          at = end;
        }
        return kept;
      };
      CHECK(without_program_line(gpu.out) == without_program_line(cpu.out));
    }
  }
}
#endif
