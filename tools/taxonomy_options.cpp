#include "tools/taxonomy_options.hpp"

#include <cstdlib>
#include <stdexcept>

#include "tools/commands.hpp"

namespace po = boost::program_options;

namespace warpsearch::tools {

void TaxonomyOptions::add_to(po::options_description& options) {
  options.add_options()(
      "taxdump", po::value(&taxdump_)->value_name("DIR"),
      "NCBI taxdump directory (names.dmp, nodes.dmp) naming the subjects' taxa in the columns sscinames, scomnames, "
      "sblastnames, sskingdoms; with a filter, a taxid also stands for the taxa below it (default: "
      "$WARPSEARCH_TAXDUMP)")(
      "taxids", po::value(&taxids_)->value_name("LIST"),
      "search only subjects of these NCBI taxonomy IDs, e.g. 9606,10090 (the database needs makedb --taxid-map)")(
      "negative-taxids", po::value(&negative_taxids_)->value_name("LIST"),
      "search every subject but those of these taxonomy IDs")("taxidlist", po::value(&taxidlist_)->value_name("FILE"),
                                                              "as --taxids, the IDs read from a file")(
      "negative-taxidlist", po::value(&negative_taxidlist_)->value_name("FILE"),
      "as --negative-taxids, the IDs read from a file");
}

void TaxonomyOptions::apply(const po::variables_map& given, const Database& database, SearchOptions& search) {
  std::string directory = taxdump_;
  std::string option = "--taxdump";
  if (!given.count("taxdump")) {
    const char* variable = std::getenv(kTaxdumpVariable);
    if (variable != nullptr && *variable != '\0') {
      directory = variable;
      option = std::string("$") + kTaxdumpVariable;
    }
  }
  if (!directory.empty()) {
    try {
      taxonomy_.emplace(Taxonomy::load(directory));
    } catch (const std::runtime_error& e) {
      throw UsageError{option + ": " + e.what()};
    }
  }
  if (given.count("taxids") && given.count("taxidlist"))
    throw UsageError{"--taxids and --taxidlist exclude each other"};
  if (given.count("negative-taxids") && given.count("negative-taxidlist"))
    throw UsageError{"--negative-taxids and --negative-taxidlist exclude each other"};
  if ((given.count("taxids") || given.count("taxidlist")) &&
      (given.count("negative-taxids") || given.count("negative-taxidlist")))
    throw UsageError{"a list of taxids to search and a list to leave out exclude each other (as in BLAST)"};
  TaxidFilter filter;
  try {
    if (given.count("taxids")) filter.include = parse_taxid_list(taxids_, "--taxids");
    if (given.count("negative-taxids")) filter.exclude = parse_taxid_list(negative_taxids_, "--negative-taxids");
    if (given.count("taxidlist")) filter.include = read_taxid_list(taxidlist_);
    if (given.count("negative-taxidlist")) filter.exclude = read_taxid_list(negative_taxidlist_);
  } catch (const std::exception& e) {
    throw UsageError{e.what()};
  }
  if (given.count("taxidlist") && filter.include.empty())
    throw UsageError{"--taxidlist " + taxidlist_ + " lists no taxonomy ID"};
  if (filter.empty()) return;
  try {
    search.subject_filter = subjects_passing(database, filter, taxonomy());
  } catch (const std::invalid_argument& e) {
    throw UsageError{e.what()};
  }
  searched_ = passing_size(database, search.subject_filter);
  // As BLAST, which refuses taxids it does not find in the database.
  if (searched_.subjects == 0)
    throw UsageError{std::string(filter.include.empty() ? "the taxids left out leave" : "the taxids asked for select") +
                     " no subject of database " + database.path() +
                     (filter.include.empty() || taxonomy_
                          ? ""
                          : " (without --taxdump a taxid stands for itself, not the taxa below it)")};
}

}  // namespace warpsearch::tools
