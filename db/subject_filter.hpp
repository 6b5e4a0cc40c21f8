// A search restricted to some of the database's subjects (by taxonomy, output/taxonomy.hpp): the size
// of what is searched, which E-values use.
#pragma once

#include <cstdint>
#include <vector>

#include "db/database.hpp"

namespace warpsearch {

// The residues and the number of the subjects a per-subject filter (subjects_passing) lets through: the
// database size that E-values use in a filtered search, as BLAST sizes a database restricted by taxids.
struct SubjectCount {
  std::uint64_t residues = 0, subjects = 0;
};
SubjectCount passing_size(const Database& database, const std::vector<bool>& passing);

}  // namespace warpsearch
