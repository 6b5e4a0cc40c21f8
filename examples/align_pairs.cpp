// Aligns pairs of DNA sequences end to end (global) and prints each alignment with its CIGAR.
#include <iostream>
#include <vector>

#include <warpsearch/warpsearch.hpp>

int main() {
  const std::vector<warpsearch::Sequence> queries = {{"read1", "ACGTTGCATGCATGCAAGT"}, {"read2", "TTGACCGGTACCA"}};
  const std::vector<warpsearch::Sequence> targets = {{"ref1", "ACGTTGCATCATGCAAGT"}, {"ref2", "TTGACCGGGTACCA"}};
  warpsearch::AlignOptions options;
  options.mode = warpsearch::AlignMode::global;
  options.type = warpsearch::SequenceType::nucleotide;  // match 2, mismatch -3, gaps 5/2
  options.cigar = true;
  options.aligned = true;
  try {
    const std::vector<warpsearch::Alignment> alignments = warpsearch::align(queries, targets, options);
    for (std::size_t i = 0; i < alignments.size(); ++i) {
      const warpsearch::Alignment& a = alignments[i];
      std::cout << queries[i].id << '\t' << targets[i].id << "\tscore " << a.score << '\t' << a.cigar << '\n'
                << "  " << a.query_aligned << "\n  " << a.target_aligned << '\n';
    }
  } catch (const std::exception& e) {
    std::cerr << "align_pairs: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
