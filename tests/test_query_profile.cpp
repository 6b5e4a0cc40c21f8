// Query profiles: every element of the sequential and striped layouts against the matrix directly.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/alphabet.hpp"
#include "profile/query_profile.hpp"
#include "profile/scoring.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

// The score a kernel must see at query position i for subject code c: the matrix score, or the
// padding code's score past the end of the query.
int expected_score(const SubstitutionMatrix& m, const std::string& query, std::size_t i, int c) {
  const auto code = static_cast<std::uint8_t>(c);
  if (i < query.size()) return m.score(code, static_cast<std::uint8_t>(query[i]));
  return m.score(code, m.alphabet().pad_code());
}

std::vector<std::size_t> lengths() { return {1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1000}; }

template <typename Element>
void check_striped(const SubstitutionMatrix& m, const std::string& query, int lanes) {
  const StripedProfile<Element> profile(m, query, lanes);
  INFO("lanes " << lanes << " element bytes " << sizeof(Element) << " length " << query.size());
  const auto S = static_cast<std::uint32_t>((query.size() + static_cast<std::size_t>(lanes) - 1) /
                                            static_cast<std::size_t>(lanes));
  REQUIRE(profile.segment_length() == S);
  REQUIRE(profile.lanes() == lanes);
  REQUIRE(profile.query_length() == query.size());
  const int bias = std::is_unsigned_v<Element> ? -m.min_score() : 0;
  REQUIRE(profile.bias() == bias);
  REQUIRE(profile.size_bytes() == std::size_t{kMaxCodes} * S * static_cast<std::size_t>(lanes) * sizeof(Element));
  REQUIRE(reinterpret_cast<std::uintptr_t>(profile.data()) % 64 == 0);
  const auto* bytes = reinterpret_cast<const unsigned char*>(profile.data());
  bool all_equal = true;
  for (int c = 0; c < kMaxCodes; ++c)
    for (std::uint32_t s = 0; s < S; ++s)
      for (int l = 0; l < lanes; ++l) {
        const std::size_t position = static_cast<std::size_t>(l) * S + s;
        const int want = expected_score(m, query, position, c) + bias;
        // Read the element at its documented byte offset, independently of the accessors.
        const std::size_t offset =
            ((static_cast<std::size_t>(c) * S + s) * static_cast<std::size_t>(lanes) + static_cast<std::size_t>(l)) *
            sizeof(Element);
        Element stored;
        std::memcpy(&stored, bytes + offset, sizeof(Element));
        if (static_cast<int>(stored) != want ||
            static_cast<int>(profile.element(static_cast<std::uint8_t>(c), s, l)) != want) {
          all_equal = false;
          INFO("code " << c << " segment " << s << " lane " << l);
          CHECK(static_cast<int>(stored) == want);
        }
      }
  CHECK(all_equal);
}

}  // namespace

TEST_CASE("sequential profile: every score, padding, 32-bit words", "[profile]") {
  std::mt19937_64 rng(20261121);
  for (const char* name : {"BLOSUM62", "PAM30", "BLOSUM45"}) {
    const auto m = SubstitutionMatrix::builtin(name);
    for (std::size_t length : lengths()) {
      // Letters, U and O included, and a padding code and an unused code as query residues.
      std::string query = test::random_codes(rng, length, Alphabet::protein().size());
      if (length > 3) {
        query[0] = static_cast<char>(Alphabet::protein().pad_code());
        query[1] = 31;
      }
      INFO(name << " length " << length);
      const SequentialProfile profile(m, query);
      const std::uint32_t padded = static_cast<std::uint32_t>((length + 3) / 4 * 4);
      REQUIRE(profile.query_length() == length);
      REQUIRE(profile.padded_length() == padded);
      REQUIRE(profile.size_bytes() == std::size_t{kMaxCodes} * padded);
      REQUIRE(reinterpret_cast<std::uintptr_t>(profile.data()) % 64 == 0);
      bool all_equal = true;
      for (int c = 0; c < kMaxCodes; ++c) {
        for (std::uint32_t i = 0; i < padded; ++i) {
          const int want = expected_score(m, query, i, c);
          const int byte = profile.data()[static_cast<std::size_t>(c) * padded + i];
          if (byte != want || profile.score(static_cast<std::uint8_t>(c), i) != want) {
            all_equal = false;
            CHECK(byte == want);
          }
        }
        for (std::uint32_t w = 0; w < padded / 4; ++w) {
          std::uint32_t loaded;  // what a kernel's 32-bit load sees (little-endian host)
          std::memcpy(&loaded, profile.data() + static_cast<std::size_t>(c) * padded + 4 * w, 4);
          std::uint32_t want = 0;
          for (int k = 0; k < 4; ++k)
            want |= std::uint32_t{static_cast<std::uint8_t>(
                        static_cast<std::int8_t>(expected_score(m, query, 4 * w + static_cast<std::uint32_t>(k), c)))}
                    << (8 * k);
          if (loaded != want || profile.word(static_cast<std::uint8_t>(c), w) != want) {
            all_equal = false;
            CHECK(loaded == want);
          }
        }
      }
      CHECK(all_equal);
      // The padding tail scores the minimum against every code.
      for (std::uint32_t i = static_cast<std::uint32_t>(length); i < padded; ++i)
        for (int c = 0; c < kMaxCodes; ++c) CHECK(profile.score(static_cast<std::uint8_t>(c), i) == m.min_score());
    }
  }
}

TEST_CASE("striped profile: every element for SSE, AVX2 and AVX-512 widths", "[profile]") {
  std::mt19937_64 rng(7);
  const auto b62 = SubstitutionMatrix::builtin("BLOSUM62");
  const auto pam30 = SubstitutionMatrix::builtin("PAM30");
  const auto dna = SubstitutionMatrix::nucleotide(2, -3);
  for (std::size_t length : lengths()) {
    const std::string protein = test::random_codes(rng, length, Alphabet::protein().size());
    const std::string nucleotide = test::random_codes(rng, length, Alphabet::nucleotide().size());
    for (int lanes : {16, 32, 64}) {
      check_striped<std::int8_t>(b62, protein, lanes);
      check_striped<std::uint8_t>(b62, protein, lanes);
      check_striped<std::uint8_t>(pam30, protein, lanes);
      check_striped<std::int8_t>(dna, nucleotide, lanes);
    }
    for (int lanes : {8, 16, 32}) {
      check_striped<std::int16_t>(b62, protein, lanes);
      check_striped<std::int16_t>(dna, nucleotide, lanes);
    }
  }
  // Odd widths a GPU kernel may want are allowed as long as they are powers of two.
  check_striped<std::int16_t>(b62, "\x01\x02\x03", 4);
  check_striped<std::int8_t>(b62, "\x01\x02\x03", 1);
}

TEST_CASE("striped profile: a hand-checked small example", "[profile]") {
  // Query ARND (codes 0 1 2 3) in 4 lanes of int8: S = 1, lane l holds position l.
  // BLOSUM62 row W: W-A -3, W-R -3, W-N -4, W-D -4.
  const auto b62 = SubstitutionMatrix::builtin("BLOSUM62");
  const Alphabet& p = Alphabet::protein();
  const std::string query = p.encode_string("ARND");
  const StripedProfile<std::int8_t> profile(b62, query, 4);
  const auto w = p.encode('W');
  CHECK(profile.segment_length() == 1);
  CHECK(profile.element(w, 0, 0) == -3);
  CHECK(profile.element(w, 0, 1) == -3);
  CHECK(profile.element(w, 0, 2) == -4);
  CHECK(profile.element(w, 0, 3) == -4);
  // Query ARNDC in 2 lanes: S = 3, lane 0 holds A R N, lane 1 holds D C and one padding position.
  const StripedProfile<std::uint8_t> biased(b62, p.encode_string("ARNDC"), 2);
  CHECK(biased.segment_length() == 3);
  CHECK(biased.bias() == 4);
  const auto a = p.encode('A');
  CHECK(biased.element(a, 0, 0) == 4 + 4);   // A-A
  CHECK(biased.element(a, 1, 0) == -1 + 4);  // A-R
  CHECK(biased.element(a, 0, 1) == -2 + 4);  // A-D
  CHECK(biased.element(a, 1, 1) == 0 + 4);   // A-C
  CHECK(biased.element(a, 2, 1) == 0);       // padding: minimum + bias
}

TEST_CASE("profiles reject bad input", "[profile]") {
  const auto b62 = SubstitutionMatrix::builtin("BLOSUM62");
  REQUIRE_THROWS_AS(SequentialProfile(b62, ""), std::invalid_argument);
  REQUIRE_THROWS_AS(SequentialProfile(b62, std::string(1, '\x20')), std::invalid_argument);
  REQUIRE_THROWS_AS(StripedProfile<std::int8_t>(b62, "", 16), std::invalid_argument);
  REQUIRE_THROWS_AS(StripedProfile<std::int8_t>(b62, "\x01", 12), std::invalid_argument);
  REQUIRE_THROWS_AS(StripedProfile<std::int16_t>(b62, "\x01", 0), std::invalid_argument);
  REQUIRE_THROWS_AS(StripedProfile<std::int16_t>(b62, "\x01", 128), std::invalid_argument);
  // Profiles move without copying their buffers.
  SequentialProfile first(b62, "\x01\x02");
  const std::int8_t* data = first.data();
  SequentialProfile second = std::move(first);
  CHECK(second.data() == data);
  CHECK(second.score(0, 0) == -1);
}
