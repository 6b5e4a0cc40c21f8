// The search's taxonomy options: --taxdump (names for the taxonomy columns) and the subject filter
// --taxids, --negative-taxids, --taxidlist, --negative-taxidlist (BLAST's -taxids ... ; output/taxonomy.hpp).
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>

#include "db/database.hpp"
#include "output/taxonomy.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch::tools {

// The environment variable naming a taxdump directory when --taxdump is not given.
inline constexpr const char* kTaxdumpVariable = "WARPSEARCH_TAXDUMP";

class TaxonomyOptions {
 public:
  void add_to(boost::program_options::options_description& options);

  // Loads the taxdump (--taxdump, else $WARPSEARCH_TAXDUMP, else none) and, when a filter is given, sets
  // search.subject_filter. Errors (unreadable files, a filter on a database without taxids, both a
  // list and its file) are UsageErrors naming the option.
  void apply(const boost::program_options::variables_map& given, const Database& database, SearchOptions& search);

  // The loaded names, or nullptr; valid as long as this object.
  const Taxonomy* taxonomy() const { return taxonomy_ ? &*taxonomy_ : nullptr; }
  // With a filter, the residues and number of the subjects it lets through (zeros without one): for
  // OutputContext::searched_residues and searched_subjects.
  const SubjectCount& searched() const { return searched_; }

 private:
  std::string taxdump_, taxids_, negative_taxids_, taxidlist_, negative_taxidlist_;
  std::optional<Taxonomy> taxonomy_;
  SubjectCount searched_;
};

}  // namespace warpsearch::tools
