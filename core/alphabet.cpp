#include "core/alphabet.hpp"

#include <cctype>
#include <stdexcept>

namespace warpsearch {
namespace {
constexpr std::string_view kProteinMatrixLetters = "ARNDCQEGHILKMFPSTWYVBJZX*";
constexpr std::string_view kNucleotideLetters = "ACGTN";
}  // namespace

Alphabet::Alphabet(SequenceType type) : type_(type) {
  encode_.fill(kInvalid);
  decode_.fill('?');
  auto set = [&](char letter, std::uint8_t code) {
    encode_[static_cast<unsigned char>(letter)] = code;
    encode_[static_cast<unsigned char>(std::tolower(letter))] = code;
  };
  if (type == SequenceType::protein) {
    matrix_letters_ = kProteinMatrixLetters;
    for (std::size_t i = 0; i < kProteinMatrixLetters.size(); ++i) {
      set(kProteinMatrixLetters[i], static_cast<std::uint8_t>(i));
      decode_[i] = kProteinMatrixLetters[i];
      scored_as_[i] = static_cast<std::uint8_t>(i);
    }
    const auto letters = static_cast<std::uint8_t>(kProteinMatrixLetters.size());
    set('U', letters);
    decode_[letters] = 'U';
    scored_as_[letters] = static_cast<std::uint8_t>(kProteinMatrixLetters.find('C'));
    set('O', letters + 1);
    decode_[letters + 1] = 'O';
    scored_as_[letters + 1] = static_cast<std::uint8_t>(kProteinMatrixLetters.find('X'));
    size_ = letters + 2;
  } else {
    matrix_letters_ = kNucleotideLetters;
    for (std::size_t i = 0; i < kNucleotideLetters.size(); ++i) {
      set(kNucleotideLetters[i], static_cast<std::uint8_t>(i));
      decode_[i] = kNucleotideLetters[i];
      scored_as_[i] = static_cast<std::uint8_t>(i);
    }
    set('U', 3);  // RNA reads as DNA
    for (char ambiguous : std::string_view("RYKMSWBDHV")) set(ambiguous, 4);
    size_ = static_cast<int>(kNucleotideLetters.size());
    const std::uint8_t complement[] = {3, 2, 1, 0, 4};
    for (int i = 0; i < size_; ++i) complement_[i] = complement[i];
  }
  decode_[size_] = '#';
  scored_as_[size_] = static_cast<std::uint8_t>(size_);
  if (type == SequenceType::protein)
    for (int i = 0; i <= size_; ++i) complement_[i] = static_cast<std::uint8_t>(i);
  complement_[size_] = static_cast<std::uint8_t>(size_);
}

const Alphabet& Alphabet::protein() {
  static const Alphabet alphabet(SequenceType::protein);
  return alphabet;
}
const Alphabet& Alphabet::nucleotide() {
  static const Alphabet alphabet(SequenceType::nucleotide);
  return alphabet;
}
const Alphabet& Alphabet::of(SequenceType type) { return type == SequenceType::protein ? protein() : nucleotide(); }

std::string Alphabet::encode_string(std::string_view letters) const {
  std::string codes(letters.size(), '\0');
  for (std::size_t i = 0; i < letters.size(); ++i) {
    const std::uint8_t code = encode(static_cast<unsigned char>(letters[i]));
    if (code >= kIgnored)
      throw std::invalid_argument(std::string("'") + letters[i] + "' is not a " + name() + " residue");
    codes[i] = static_cast<char>(code);
  }
  return codes;
}

std::string Alphabet::decode_string(std::string_view codes) const {
  std::string letters(codes.size(), '\0');
  for (std::size_t i = 0; i < codes.size(); ++i) letters[i] = decode(static_cast<std::uint8_t>(codes[i]));
  return letters;
}

SequenceType guess_sequence_type(std::string_view sample) {
  std::size_t letters = 0, nucleotides = 0;
  for (unsigned char c : sample) {
    if (!std::isalpha(c)) continue;
    ++letters;
    switch (std::toupper(c)) {
      case 'A':
      case 'C':
      case 'G':
      case 'T':
      case 'U':
      case 'N': ++nucleotides; break;
      default: break;
    }
  }
  if (letters == 0) return SequenceType::protein;
  return nucleotides * 10 >= letters * 9 ? SequenceType::nucleotide : SequenceType::protein;
}

}  // namespace warpsearch
