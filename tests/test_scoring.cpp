// Scoring: built-in matrices against NCBI's own matrix files, the letters beyond the 20, matrix file
// errors, scoring scheme validation, nucleotide scoring.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/alphabet.hpp"
#include "profile/scoring.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

const char* const kNcbiDataDir = "/usr/share/ncbi/data";  // Debian's ncbi-data package

// An independent reader of NCBI's matrix format: letter pair -> score. Empty when the file is absent.
std::map<std::pair<char, char>, int> read_ncbi_matrix(const std::string& path) {
  std::map<std::pair<char, char>, int> scores;
  std::ifstream in(path);
  if (!in) return scores;
  std::string line, header;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    if (header.empty()) {
      std::string letter;
      while (fields >> letter) header += letter;
      continue;
    }
    char row = 0;
    fields >> row;
    for (char column : header) {
      int value = 0;
      fields >> value;
      scores[{row, column}] = value;
    }
  }
  return scores;
}

template <typename F>
void require_throws_with(F&& f, const std::string& a, const std::string& b = "") {
  bool threw = false;
  try {
    f();
  } catch (const std::exception& e) {
    threw = true;
    const std::string what = e.what();
    INFO("message: " << what);
    CHECK(what.find(a) != std::string::npos);
    if (!b.empty()) CHECK(what.find(b) != std::string::npos);
  }
  CHECK(threw);
}

const std::string kLetters = "ARNDCQEGHILKMFPSTWYVBJZX*";

// A complete matrix file in NCBI format (an identity-like matrix), with the given edits applied by
// the caller.
std::string matrix_text(const std::string& letters) {
  std::string text = "# test matrix\n  ";
  for (char c : letters) text += std::string(" ") + c;
  text += "\n";
  for (char r : letters) {
    text += r;
    for (char c : letters) text += r == c ? " 5" : " -2";
    text += "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("built-in matrices equal NCBI's matrix files entry by entry", "[scoring]") {
  for (const auto& name : SubstitutionMatrix::builtin_names()) {
    const auto file = read_ncbi_matrix(std::string(kNcbiDataDir) + "/" + name);
    if (file.empty()) {
      WARN("NCBI matrix file " << kNcbiDataDir << "/" << name << " not found (Debian package ncbi-data); skipped");
      continue;
    }
    INFO("matrix " << name);
    const SubstitutionMatrix matrix = SubstitutionMatrix::builtin(name);
    const Alphabet& protein = Alphabet::protein();
    int compared = 0;
    for (const auto& [pair, score] : file) {
      const std::uint8_t a = protein.encode(static_cast<unsigned char>(pair.first));
      const std::uint8_t b = protein.encode(static_cast<unsigned char>(pair.second));
      REQUIRE(a < protein.size());
      REQUIRE(b < protein.size());
      INFO(pair.first << "/" << pair.second);
      CHECK(matrix.score(a, b) == score);
      ++compared;
    }
    CHECK(compared == 25 * 25);
    // Loading the same file through from_file gives the same matrix.
    const SubstitutionMatrix loaded = SubstitutionMatrix::from_file(std::string(kNcbiDataDir) + "/" + name);
    for (int a = 0; a < kMaxCodes; ++a)
      for (int b = 0; b < kMaxCodes; ++b)
        CHECK(loaded.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)) ==
              matrix.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
  }
}

TEST_CASE("published spot values of the built-in matrices", "[scoring]") {
  // Values from the BLOSUM62 and PAM30 tables as printed by NCBI (independent of any file here).
  const Alphabet& p = Alphabet::protein();
  auto code = [&](char c) { return p.encode(static_cast<unsigned char>(c)); };
  const auto b62 = SubstitutionMatrix::builtin("blosum62");
  CHECK(b62.name() == "BLOSUM62");
  CHECK(b62.score(code('W'), code('W')) == 11);
  CHECK(b62.score(code('C'), code('C')) == 9);
  CHECK(b62.score(code('A'), code('A')) == 4);
  CHECK(b62.score(code('E'), code('K')) == 1);
  CHECK(b62.score(code('W'), code('F')) == 1);
  CHECK(b62.min_score() == -4);
  CHECK(b62.max_score() == 11);
  const auto pam30 = SubstitutionMatrix::builtin("PAM30");
  CHECK(pam30.score(code('W'), code('W')) == 13);
  CHECK(pam30.min_score() == -17);
  REQUIRE_THROWS(SubstitutionMatrix::builtin("BLOSUM63"));
  require_throws_with([] { SubstitutionMatrix::builtin("BLOSUM63"); }, "BLOSUM63", "BLOSUM62");
}

TEST_CASE("matrices are symmetric; U scores as C, O as X, padding as the minimum", "[scoring]") {
  const Alphabet& p = Alphabet::protein();
  const auto u = p.encode('U'), o = p.encode('O'), c = p.encode('C'), x = p.encode('X');
  REQUIRE(u == 25);
  REQUIRE(o == 26);
  for (const auto& name : SubstitutionMatrix::builtin_names()) {
    INFO("matrix " << name);
    const auto m = SubstitutionMatrix::builtin(name);
    for (int a = 0; a < kMaxCodes; ++a)
      for (int b = 0; b < kMaxCodes; ++b)
        CHECK(m.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)) ==
              m.score(static_cast<std::uint8_t>(b), static_cast<std::uint8_t>(a)));
    for (int b = 0; b < p.size(); ++b) {
      const auto bb = static_cast<std::uint8_t>(b);
      const auto as_letter = p.scored_as(bb);
      CHECK(m.score(u, bb) == m.score(c, as_letter));
      CHECK(m.score(o, bb) == m.score(x, as_letter));
    }
    CHECK(m.score(u, u) == m.score(c, c));
    CHECK(m.score(o, o) == m.score(x, x));
    CHECK(m.score(u, o) == m.score(c, x));
    for (int pad = p.size(); pad < kMaxCodes; ++pad)
      for (int b = 0; b < kMaxCodes; ++b)
        CHECK(m.score(static_cast<std::uint8_t>(pad), static_cast<std::uint8_t>(b)) == m.min_score());
    int lowest = 1000, highest = -1000;
    for (int a = 0; a < 25; ++a)
      for (int b = 0; b < 25; ++b) {
        lowest = std::min(lowest, m.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
        highest = std::max(highest, m.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
      }
    CHECK(m.min_score() == lowest);
    CHECK(m.max_score() == highest);
  }
}

TEST_CASE("matrix files: good files load, bad ones fail naming the file and line", "[scoring]") {
  test::TempDir dir;
  SECTION("a complete file in another letter order, lower case, with a CR LF and an extra letter") {
    std::string order = "*XZJBVYWTSPFMKLIHGEQCDNRA";
    std::string text = matrix_text(order + "U");
    std::string crlf;
    for (char ch : text) crlf += ch == '\n' ? std::string("\r\n") : std::string(1, ch);
    test::write_file(dir.file("m.txt"), crlf);
    const auto m = SubstitutionMatrix::from_file(dir.file("m.txt"));
    CHECK(m.name() == dir.file("m.txt"));
    for (int a = 0; a < 25; ++a)
      for (int b = 0; b < 25; ++b)
        CHECK(m.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)) == (a == b ? 5 : -2));
  }
  SECTION("missing file") {
    require_throws_with([&] { SubstitutionMatrix::from_file(dir.file("none")); }, dir.file("none"), "cannot open");
  }
  SECTION("a missing letter") {
    std::string letters = kLetters;
    letters.erase(letters.find('J'), 1);
    test::write_file(dir.file("m.txt"), matrix_text(letters));
    require_throws_with([&] { SubstitutionMatrix::from_file(dir.file("m.txt")); }, dir.file("m.txt"), "'J'");
  }
  SECTION("a short row names its line") {
    std::string text = matrix_text(kLetters);
    // Row 'N' is line 5 (comment, header, A, R, N); drop its last score.
    std::istringstream lines(text);
    std::string line, edited;
    for (int n = 1; std::getline(lines, line); ++n) {
      if (n == 5) line = line.substr(0, line.rfind(' '));
      edited += line + "\n";
    }
    test::write_file(dir.file("m.txt"), edited);
    require_throws_with([&] { SubstitutionMatrix::from_file(dir.file("m.txt")); }, dir.file("m.txt") + ":5:", "fewer");
  }
  SECTION("a long row, a non-integer and an out-of-range score name their line") {
    std::string text = matrix_text(kLetters);
    test::write_file(dir.file("long.txt"), text.substr(0, text.find("\nR")) + " 7" + text.substr(text.find("\nR")));
    require_throws_with([&] { SubstitutionMatrix::from_file(dir.file("long.txt")); },
                        dir.file("long.txt") + ":3:", "more");
    std::string bad = text;
    bad.replace(bad.find("A 5"), 3, "A x5");
    test::write_file(dir.file("bad.txt"), bad);
    require_throws_with([&] { SubstitutionMatrix::from_file(dir.file("bad.txt")); }, dir.file("bad.txt") + ":3:", "x5");
    std::string big = text;
    big.replace(big.find("A 5"), 3, "A 500");
    test::write_file(dir.file("big.txt"), big);
    require_throws_with([&] { SubstitutionMatrix::from_file(dir.file("big.txt")); },
                        dir.file("big.txt") + ":3:", "500");
  }
  SECTION("a bad header") {
    test::write_file(dir.file("h.txt"), "# x\nAR N D\n");
    require_throws_with([&] { SubstitutionMatrix::from_file(dir.file("h.txt")); }, dir.file("h.txt") + ":2:", "header");
    test::write_file(dir.file("numbers.txt"), "1 2 3\n");
    require_throws_with([&] { SubstitutionMatrix::from_file(dir.file("numbers.txt")); },
                        dir.file("numbers.txt") + ":1:");
    test::write_file(dir.file("empty.txt"), "# only a comment\n");
    require_throws_with([&] { SubstitutionMatrix::from_file(dir.file("empty.txt")); }, dir.file("empty.txt"), "header");
  }
  SECTION("a row given twice") {
    std::string text = matrix_text(kLetters);
    const std::string row_a = text.substr(text.find("\nA") + 1, text.find("\nR") - text.find("\nA"));
    test::write_file(dir.file("twice.txt"), text + row_a);
    require_throws_with([&] { SubstitutionMatrix::from_file(dir.file("twice.txt")); },
                        dir.file("twice.txt") + ":28:", "second");
  }
}

TEST_CASE("scoring schemes are validated", "[scoring]") {
  const auto b62 = SubstitutionMatrix::builtin("BLOSUM62");
  const ScoringScheme ok(b62, GapOpen{11}, GapExtend{1});
  CHECK(ok.gap_open() == 11);
  CHECK(ok.gap_extend() == 1);
  CHECK(ok.gap_cost(1) == 12);
  CHECK(ok.gap_cost(5) == 16);
  CHECK_NOTHROW(ScoringScheme(b62, GapOpen{0}, GapExtend{1}));
  require_throws_with([&] { ScoringScheme(b62, GapOpen{-1}, GapExtend{1}); }, "open", "-1");
  require_throws_with([&] { ScoringScheme(b62, GapOpen{11}, GapExtend{0}); }, "extend", "0");
  require_throws_with([&] { ScoringScheme(b62, GapOpen{11}, GapExtend{-2}); }, "extend", "-2");
  require_throws_with([&] { ScoringScheme(b62, GapOpen{120}, GapExtend{8}); }, "127");
  test::TempDir dir;
  std::string text = "  ";
  for (char c : kLetters) text += std::string(" ") + c;
  text += "\n";
  for (char r : kLetters) {
    text += r;
    for (std::size_t i = 0; i < kLetters.size(); ++i) text += " 1";
    text += "\n";
  }
  test::write_file(dir.file("positive.txt"), text);
  const auto positive = SubstitutionMatrix::from_file(dir.file("positive.txt"));
  require_throws_with([&] { ScoringScheme(positive, GapOpen{11}, GapExtend{1}); }, "positive and negative");
}

TEST_CASE("nucleotide scoring: match, mismatch, N and padding", "[scoring]") {
  const auto m = SubstitutionMatrix::nucleotide(2, -3);
  const Alphabet& n = Alphabet::nucleotide();
  CHECK(m.name() == "2/-3");
  CHECK(m.type() == SequenceType::nucleotide);
  const std::string bases = "ACGT";
  for (char a : bases)
    for (char b : bases)
      CHECK(m.score(n.encode(static_cast<unsigned char>(a)), n.encode(static_cast<unsigned char>(b))) ==
            (a == b ? 2 : -3));
  const auto N = n.encode('N');
  // N: blastn's average of one match and three mismatches, (2 - 9) / 4 rounded to -2 (with 1/-2: -1).
  for (char b : std::string("ACGTN")) {
    CHECK(m.score(N, n.encode(static_cast<unsigned char>(b))) == -2);
    CHECK(m.score(n.encode(static_cast<unsigned char>(b)), N) == -2);
    CHECK(SubstitutionMatrix::nucleotide(1, -2).score(N, n.encode(static_cast<unsigned char>(b))) == -1);
  }
  // Ambiguity codes read as N; U reads as T; lower case as upper case.
  CHECK(n.encode('R') == N);
  CHECK(n.encode('y') == N);
  CHECK(n.encode('U') == n.encode('T'));
  CHECK(n.encode('a') == n.encode('A'));
  for (int pad = n.size(); pad < kMaxCodes; ++pad)
    for (int b = 0; b < kMaxCodes; ++b)
      CHECK(m.score(static_cast<std::uint8_t>(pad), static_cast<std::uint8_t>(b)) == -3);
  CHECK(m.min_score() == -3);
  CHECK(m.max_score() == 2);
  REQUIRE_THROWS(SubstitutionMatrix::nucleotide(0, -1));
  REQUIRE_THROWS(SubstitutionMatrix::nucleotide(1, 0));
  REQUIRE_THROWS(SubstitutionMatrix::nucleotide(1, 2));
  REQUIRE_THROWS(SubstitutionMatrix::nucleotide(200, -1));
  REQUIRE_THROWS(SubstitutionMatrix::nucleotide(1, -200));
}
