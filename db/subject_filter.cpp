#include "db/subject_filter.hpp"

namespace warpsearch {

SubjectCount passing_size(const Database& database, const std::vector<bool>& passing) {
  SubjectCount count;
  for (std::size_t c = 0; c < database.num_chunks(); ++c) {
    const Chunk chunk = database.chunk(c);
    const std::uint32_t* lengths = chunk.lengths();
    const std::uint64_t* original = chunk.original_indices();
    for (std::size_t s = 0; s < chunk.size(); ++s)
      if (passing.at(original[s])) {
        count.residues += lengths[s];
        ++count.subjects;
      }
  }
  return count;
}

}  // namespace warpsearch
