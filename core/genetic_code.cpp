#include "core/genetic_code.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/alphabet.hpp"

namespace warpsearch {
namespace {

// NCBI's genetic codes, transcribed from NCBI's table of genetic codes (gc.prt, the ncbieaa strings;
// public domain), as BLAST+ compiles it in. Codes 27-30 read CTG as L (older gc.prt files, such as
// version 4.2 in Debian's ncbi-data, print A there, an error NCBI corrected later; BLAST+ 2.12 reads
// L). 32 and 33 are the codes NCBI added last.
struct CodeRow {
  int id;
  const char* name;
  const char* amino_acids;
};
constexpr CodeRow kCodes[] = {
    {1, "Standard", "FFLLSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {2, "Vertebrate Mitochondrial", "FFLLSSSSYY**CCWWLLLLPPPPHHQQRRRRIIMMTTTTNNKKSS**VVVVAAAADDEEGGGG"},
    {3, "Yeast Mitochondrial", "FFLLSSSSYY**CCWWTTTTPPPPHHQQRRRRIIMMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {4, "Mold Mitochondrial; Protozoan Mitochondrial; Coelenterate Mitochondrial; Mycoplasma; Spiroplasma",
     "FFLLSSSSYY**CCWWLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {5, "Invertebrate Mitochondrial", "FFLLSSSSYY**CCWWLLLLPPPPHHQQRRRRIIMMTTTTNNKKSSSSVVVVAAAADDEEGGGG"},
    {6, "Ciliate Nuclear; Dasycladacean Nuclear; Hexamita Nuclear",
     "FFLLSSSSYYQQCC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {9, "Echinoderm Mitochondrial; Flatworm Mitochondrial",
     "FFLLSSSSYY**CCWWLLLLPPPPHHQQRRRRIIIMTTTTNNNKSSSSVVVVAAAADDEEGGGG"},
    {10, "Euplotid Nuclear", "FFLLSSSSYY**CCCWLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {11, "Bacterial, Archaeal and Plant Plastid", "FFLLSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {12, "Alternative Yeast Nuclear", "FFLLSSSSYY**CC*WLLLSPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {13, "Ascidian Mitochondrial", "FFLLSSSSYY**CCWWLLLLPPPPHHQQRRRRIIMMTTTTNNKKSSGGVVVVAAAADDEEGGGG"},
    {14, "Alternative Flatworm Mitochondrial", "FFLLSSSSYYY*CCWWLLLLPPPPHHQQRRRRIIIMTTTTNNNKSSSSVVVVAAAADDEEGGGG"},
    {15, "Blepharisma Macronuclear", "FFLLSSSSYY*QCC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {16, "Chlorophycean Mitochondrial", "FFLLSSSSYY*LCC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {21, "Trematode Mitochondrial", "FFLLSSSSYY**CCWWLLLLPPPPHHQQRRRRIIMMTTTTNNNKSSSSVVVVAAAADDEEGGGG"},
    {22, "Scenedesmus obliquus Mitochondrial", "FFLLSS*SYY*LCC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {23, "Thraustochytrium Mitochondrial", "FF*LSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {24, "Pterobranchia Mitochondrial", "FFLLSSSSYY**CCWWLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSSKVVVVAAAADDEEGGGG"},
    {25, "Candidate Division SR1 and Gracilibacteria",
     "FFLLSSSSYY**CCGWLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {26, "Pachysolen tannophilus Nuclear", "FFLLSSSSYY**CC*WLLLAPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {27, "Karyorelict Nuclear", "FFLLSSSSYYQQCCWWLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {28, "Condylostoma Nuclear", "FFLLSSSSYYQQCCWWLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {29, "Mesodinium Nuclear", "FFLLSSSSYYYYCC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {30, "Peritrich Nuclear", "FFLLSSSSYYEECC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {31, "Blastocrithidia Nuclear", "FFLLSSSSYYEECCWWLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {32, "Balanophoraceae Plastid", "FFLLSSSSYY*WCC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"},
    {33, "Cephalodiscidae Mitochondrial", "FFLLSSSSYYY*CCWWLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSSKVVVVAAAADDEEGGGG"},
};

// Our nucleotide codes A C G T (0..3) as NCBI's base order T C A G indexes them.
constexpr unsigned kNcbiBase[4] = {2, 1, 3, 0};

}  // namespace

GeneticCode::GeneticCode(int id, std::string name, std::string amino_acids)
    : id_(id), name_(std::move(name)), amino_acids_(std::move(amino_acids)) {
  const Alphabet& protein = Alphabet::protein();
  const std::uint8_t unknown = protein.encode('X');
  for (unsigned b1 = 0; b1 < 5; ++b1)
    for (unsigned b2 = 0; b2 < 5; ++b2)
      for (unsigned b3 = 0; b3 < 5; ++b3) {
        // Every resolution of the codon (N = A, C, G, T); one amino acid if they all agree, else X.
        char agreed = 0;
        bool disagree = false;
        for (unsigned r1 = 0; r1 < 4; ++r1)
          for (unsigned r2 = 0; r2 < 4; ++r2)
            for (unsigned r3 = 0; r3 < 4; ++r3) {
              if ((b1 < 4 && r1 != b1) || (b2 < 4 && r2 != b2) || (b3 < 4 && r3 != b3)) continue;
              const char letter = amino_acids_[16 * kNcbiBase[r1] + 4 * kNcbiBase[r2] + kNcbiBase[r3]];
              if (agreed == 0)
                agreed = letter;
              else if (letter != agreed)
                disagree = true;
            }
        table_[b1 * 25 + b2 * 5 + b3] = disagree ? unknown : protein.encode(static_cast<unsigned char>(agreed));
      }
}

const GeneticCode& GeneticCode::ncbi(int id) {
  static const std::vector<GeneticCode> codes = [] {
    std::vector<GeneticCode> all;
    for (const CodeRow& row : kCodes) all.push_back(GeneticCode(row.id, row.name, row.amino_acids));
    return all;
  }();
  for (const GeneticCode& code : codes)
    if (code.id() == id) return code;
  std::string known;
  for (const CodeRow& row : kCodes) known += (known.empty() ? "" : " ") + std::to_string(row.id);
  throw std::invalid_argument("genetic code " + std::to_string(id) + " does not exist (NCBI's codes: " + known + ")");
}

std::vector<int> GeneticCode::ids() {
  std::vector<int> ids;
  for (const CodeRow& row : kCodes) ids.push_back(row.id);
  return ids;
}

void translate_frame(const char* nucleotide_codes, std::size_t size, int frame, const GeneticCode& code, char* out) {
  translate_frame(nucleotide_codes, size, frame, code, out, 0, static_cast<std::size_t>(frame_length(size, frame)));
}

void translate_frame(const char* nucleotide_codes, std::size_t size, int frame, const GeneticCode& code, char* out,
                     std::size_t first, std::size_t last) {
  if (frame == 0 || frame < -3 || frame > 3)
    throw std::invalid_argument("frame " + std::to_string(frame) + " does not exist (frames are +1..+3, -1..-3)");
  last = std::min(last, static_cast<std::size_t>(frame_length(size, frame)));
  const auto at = [&](std::size_t i) { return static_cast<std::uint8_t>(nucleotide_codes[i]); };
  if (frame > 0) {
    const std::size_t offset = static_cast<std::size_t>(frame - 1);
    for (std::size_t a = first; a < last; ++a) {
      const std::size_t i = offset + 3 * a;
      out[a] = static_cast<char>(code.translate(at(i), at(i + 1), at(i + 2)));
    }
    return;
  }
  // The reverse complement read from its start: base i of it is the complement of base size - 1 - i.
  const Alphabet& nucleotide = Alphabet::nucleotide();
  const auto reverse = [&](std::size_t i) { return nucleotide.complement(at(size - 1 - i)); };
  const std::size_t offset = static_cast<std::size_t>(-frame - 1);
  for (std::size_t a = first; a < last; ++a) {
    const std::size_t i = offset + 3 * a;
    out[a] = static_cast<char>(code.translate(reverse(i), reverse(i + 1), reverse(i + 2)));
  }
}

std::string translate_frame(std::string_view nucleotide_codes, int frame, const GeneticCode& code) {
  std::string protein(static_cast<std::size_t>(frame_length(nucleotide_codes.size(), frame)), '\0');
  translate_frame(nucleotide_codes.data(), nucleotide_codes.size(), frame, code, protein.data());
  return protein;
}

NucleotideSpan nucleotide_span(int frame, std::uint64_t begin, std::uint64_t end, std::uint64_t bases) {
  const std::uint64_t offset = static_cast<std::uint64_t>(frame > 0 ? frame - 1 : -frame - 1);
  if (frame > 0) return {offset + 3 * begin + 1, offset + 3 * end};
  return {bases - (offset + 3 * begin), bases - (offset + 3 * end) + 1};
}

}  // namespace warpsearch
