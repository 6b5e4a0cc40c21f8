// NCBI taxonomy for searches: the taxonomy ID of each database subject (stored by makedb from a taxid map,
// as makeblastdb -taxid_map), the names of an NCBI taxdump (names.dmp, nodes.dmp) for the output columns
// sscinames, scomnames, sblastnames and sskingdoms, and the subject filter of BLAST's -taxids and
// -negative_taxids.
//
// Which map line names which record: both sides are reduced to a key, as makeblastdb compares Seq-ids.
// A record's keys are its GI (gi|N) when its ID holds one, then its accession without version (the
// accession of parse_sequence_id(), output/output.hpp); a map entry's key is that of its seqid read the
// same way (a number alone is a GI). "P69905", "sp|P69905|HBA_HUMAN", "P69905.1" all name the record
// "sp|P69905|HBA_HUMAN"; "NP_000001" and "ref|NP_000001.3|" name "ref|NP_000001.2|". The first key of a
// record found in the map gives its taxid; a key listed twice takes the later line's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/alphabet.hpp"
#include "db/database.hpp"
#include "db/subject_filter.hpp"

namespace warpsearch {

// A taxid map file: lines "SEQID TAXID" (blank or TAB separated; blank lines skipped).
class TaxidMap {
 public:
  // Throws std::runtime_error naming the file and line of a malformed line.
  static TaxidMap read(const std::string& path);
  // The taxid of the record with this FASTA ID; 0 when the map has none for it.
  std::uint32_t taxid_of(std::string_view fasta_id) const;
  std::size_t size() const { return keys_.size(); }

 private:
  std::unordered_map<std::string, std::uint32_t> keys_;
};

// The keys of a FASTA ID, in the order they are looked up (see the header comment).
std::vector<std::string> taxid_map_keys(std::string_view fasta_id);

// The names and tree of an NCBI taxdump directory: names.dmp and nodes.dmp (merged.dmp too, when
// present: a merged taxid is read as the one it was merged into). Read-only after load(); may be read
// from many threads.
class Taxonomy {
 public:
  // Throws std::runtime_error naming the file and line of anything it cannot read.
  static Taxonomy load(const std::string& directory);

  bool knows(std::uint32_t taxid) const;
  // "" when the taxid is unknown (the output columns then say N/A, as BLAST does).
  std::string scientific_name(std::uint32_t taxid) const;
  // The GenBank common name, else the common name, else the scientific name (as BLAST's taxdb).
  std::string common_name(std::uint32_t taxid) const;
  // The "blast name" of the taxon or of its nearest ancestor that has one (NCBI gives such names to
  // large groups: "primates", "bacteria"); "" when none has.
  std::string blast_name(std::uint32_t taxid) const;
  // The scientific name of the ancestor (or the taxon itself) of rank superkingdom or domain, or the
  // acellular root (Viruses); "" when there is none.
  std::string super_kingdom(std::uint32_t taxid) const;
  // Whether taxid is ancestor or lies below it in the tree.
  bool descends_from(std::uint32_t taxid, std::uint32_t ancestor) const;

 private:
  struct Node {
    std::uint32_t parent = 0;
    std::string rank;
    std::string scientific, genbank_common, common, blast;
  };
  const Node* node(std::uint32_t taxid) const;
  std::unordered_map<std::uint32_t, Node> nodes_;
  std::unordered_map<std::uint32_t, std::uint32_t> merged_;
};

// "9606,10090" (commas, blanks allowed) -> taxids. option names the option in messages.
std::vector<std::uint32_t> parse_taxid_list(std::string_view text, const std::string& option);
// A taxid list file: taxids separated by blanks or line breaks ('#' starts a comment).
std::vector<std::uint32_t> read_taxid_list(const std::string& path);

// BLAST's -taxids / -negative_taxids: with include non-empty, only subjects whose taxid is listed are
// searched; subjects whose taxid is in exclude are not. With a taxonomy, a listed taxid stands for
// itself and every taxon below it (BLAST+ 2.15 and later with taxonomy4blast.sqlite3); without one, for
// itself only. Taxid 0 (none) is listed like any other, as BLAST does.
struct TaxidFilter {
  std::vector<std::uint32_t> include, exclude;
  bool empty() const { return include.empty() && exclude.empty(); }
};

// Per subject (by FASTA position), whether the filter lets it be searched. Throws std::invalid_argument
// when the database stores no taxids (made without --taxid-map or --taxid).
std::vector<bool> subjects_passing(const Database& database, const TaxidFilter& filter, const Taxonomy* taxonomy);

}  // namespace warpsearch
