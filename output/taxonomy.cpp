#include "output/taxonomy.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <stdexcept>
#include <unordered_set>

#include "base/text.hpp"
#include "output/output.hpp"

namespace warpsearch {
namespace {

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::string_view trimmed(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

// A taxid: digits, at most 2^32 - 1; nullopt-like false otherwise.
bool parse_taxid(std::string_view text, std::uint32_t& taxid) {
  if (!all_digits(text) || text.size() > 10) return false;
  const unsigned long long value = std::stoull(std::string(text));
  if (value > 0xFFFFFFFFull) return false;
  taxid = static_cast<std::uint32_t>(value);
  return true;
}

std::string_view without_version(std::string_view accession) {
  const auto dot = accession.rfind('.');
  if (dot == std::string_view::npos || !all_digits(accession.substr(dot + 1))) return accession;
  return accession.substr(0, dot);
}

std::ifstream open_text(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + std::string(what) + " " + quoted_excerpt(path));
  return in;
}

// The fields of a .dmp line: "a\t|\tb\t|\t...\t|" -> {a, b, ...}.
std::vector<std::string_view> dmp_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  while (!line.empty()) {
    const std::size_t bar = line.find('|');
    fields.push_back(trimmed(line.substr(0, bar)));
    if (bar == std::string_view::npos) break;
    line.remove_prefix(bar + 1);
  }
  if (!fields.empty() && fields.back().empty()) fields.pop_back();
  return fields;
}

}  // namespace

std::vector<std::string> taxid_map_keys(std::string_view fasta_id) {
  std::vector<std::string> keys;
  // The molecule type only decides whether a bare RefSeq or UniProt accession gets its database tag,
  // which changes no accession.
  const SequenceId id = parse_sequence_id(fasta_id, SequenceType::protein);
  if (id.gi != 0) keys.push_back("gi|" + std::to_string(id.gi));
  if (id.gi == 0 || id.accession != std::to_string(id.gi)) keys.emplace_back(without_version(id.accession));
  return keys;
}

TaxidMap TaxidMap::read(const std::string& path) {
  std::ifstream in = open_text(path, "taxid map");
  TaxidMap map;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::string_view text = trimmed(line);
    if (text.empty()) continue;
    const std::size_t blank = text.find_first_of(" \t");
    const std::string_view seqid = text.substr(0, blank);
    const std::string_view value = blank == std::string_view::npos ? std::string_view() : trimmed(text.substr(blank));
    std::uint32_t taxid = 0;
    if (value.empty() || !parse_taxid(value, taxid))
      throw std::runtime_error("taxid map " + quoted_excerpt(path) + ", line " + std::to_string(number) +
                               ": expected 'SEQID TAXID' (a taxid is a number below 2^32), not " +
                               quoted_excerpt(text));
    // A number alone is a GI, as makeblastdb reads it.
    const std::vector<std::string> keys =
        all_digits(seqid) ? std::vector<std::string>{"gi|" + std::string(seqid)} : taxid_map_keys(seqid);
    if (!keys.empty()) map.keys_[keys.front()] = taxid;
  }
  if (in.bad()) throw std::runtime_error("cannot read taxid map " + quoted_excerpt(path));
  return map;
}

std::uint32_t TaxidMap::taxid_of(std::string_view fasta_id) const {
  for (const std::string& key : taxid_map_keys(fasta_id)) {
    const auto found = keys_.find(key);
    if (found != keys_.end()) return found->second;
  }
  return 0;
}

Taxonomy Taxonomy::load(const std::string& directory) {
  Taxonomy taxonomy;
  const auto each_line =
      [&](const std::string& name, bool required,
          const std::function<void(const std::vector<std::string_view>&, const std::string&, std::size_t)>& take) {
        const std::string path = directory + "/" + name;
        std::ifstream in(path);
        if (!in) {
          if (!required) return;
          throw std::runtime_error("--taxdump " + quoted_excerpt(directory) + ": cannot open " + name +
                                   " (an NCBI taxdump directory holds names.dmp and nodes.dmp)");
        }
        std::string line;
        for (std::size_t number = 1; std::getline(in, line); ++number)
          if (!trimmed(line).empty()) take(dmp_fields(line), path, number);
        if (in.bad()) throw std::runtime_error("cannot read " + quoted_excerpt(path));
      };
  const auto fail = [](const std::string& path, std::size_t number, const std::string& what) {
    throw std::runtime_error(quoted_excerpt(path) + ", line " + std::to_string(number) + ": " + what);
  };
  each_line("nodes.dmp", true,
            [&](const std::vector<std::string_view>& fields, const std::string& path, std::size_t n) {
              std::uint32_t taxid = 0, parent = 0;
              if (fields.size() < 3 || !parse_taxid(fields[0], taxid) || !parse_taxid(fields[1], parent))
                fail(path, n, "expected 'TAXID | PARENT | RANK | ...'");
              Node& node = taxonomy.nodes_[taxid];
              node.parent = parent;
              node.rank = std::string(fields[2]);
            });
  each_line("names.dmp", true,
            [&](const std::vector<std::string_view>& fields, const std::string& path, std::size_t n) {
              std::uint32_t taxid = 0;
              if (fields.size() < 4 || !parse_taxid(fields[0], taxid))
                fail(path, n, "expected 'TAXID | NAME | UNIQUE | CLASS |'");
              const auto found = taxonomy.nodes_.find(taxid);
              if (found == taxonomy.nodes_.end()) return;  // a name of a node the tree does not hold
              Node& node = found->second;
              const std::string_view name_class = fields[3];
              std::string* slot = name_class == "scientific name"       ? &node.scientific
                                  : name_class == "genbank common name" ? &node.genbank_common
                                  : name_class == "common name"         ? &node.common
                                  : name_class == "blast name"          ? &node.blast
                                                                        : nullptr;
              // The first of several common names, as NCBI lists the preferred one first.
              if (slot != nullptr && slot->empty()) *slot = std::string(fields[1]);
            });
  each_line("merged.dmp", false,
            [&](const std::vector<std::string_view>& fields, const std::string& path, std::size_t n) {
              std::uint32_t old_taxid = 0, new_taxid = 0;
              if (fields.size() < 2 || !parse_taxid(fields[0], old_taxid) || !parse_taxid(fields[1], new_taxid))
                fail(path, n, "expected 'OLD_TAXID | NEW_TAXID |'");
              taxonomy.merged_[old_taxid] = new_taxid;
            });
  return taxonomy;
}

const Taxonomy::Node* Taxonomy::node(std::uint32_t taxid) const {
  auto found = nodes_.find(taxid);
  if (found == nodes_.end()) {
    const auto merged = merged_.find(taxid);
    if (merged == merged_.end()) return nullptr;
    found = nodes_.find(merged->second);
    if (found == nodes_.end()) return nullptr;
  }
  return &found->second;
}

bool Taxonomy::knows(std::uint32_t taxid) const { return taxid != 0 && node(taxid) != nullptr; }

std::string Taxonomy::scientific_name(std::uint32_t taxid) const {
  const Node* n = node(taxid);
  return n ? n->scientific : std::string();
}

std::string Taxonomy::common_name(std::uint32_t taxid) const {
  const Node* n = node(taxid);
  if (n == nullptr) return {};
  return !n->genbank_common.empty() ? n->genbank_common : !n->common.empty() ? n->common : n->scientific;
}

// The walks up the tree stop at the root (its own parent) and after as many steps as there are nodes,
// so that a damaged nodes.dmp with a cycle cannot hang them.
std::string Taxonomy::blast_name(std::uint32_t taxid) const {
  const Node* n = node(taxid);
  for (std::size_t steps = 0; n != nullptr && steps <= nodes_.size(); ++steps) {
    if (!n->blast.empty()) return n->blast;
    const Node* up = node(n->parent);
    if (up == n) break;
    n = up;
  }
  return {};
}

std::string Taxonomy::super_kingdom(std::uint32_t taxid) const {
  const Node* n = node(taxid);
  for (std::size_t steps = 0; n != nullptr && steps <= nodes_.size(); ++steps) {
    if (n->rank == "superkingdom" || n->rank == "domain" || n->rank == "acellular root") return n->scientific;
    const Node* up = node(n->parent);
    if (up == n) break;
    n = up;
  }
  return {};
}

bool Taxonomy::descends_from(std::uint32_t taxid, std::uint32_t ancestor) const {
  const Node* target = node(ancestor);
  const Node* n = node(taxid);
  if (taxid == ancestor) return true;
  for (std::size_t steps = 0; n != nullptr && target != nullptr && steps <= nodes_.size(); ++steps) {
    if (n == target) return true;
    const Node* up = node(n->parent);
    if (up == n) break;
    n = up;
  }
  return false;
}

std::vector<std::uint32_t> parse_taxid_list(std::string_view text, const std::string& option) {
  std::vector<std::uint32_t> taxids;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view word = trimmed(text.substr(0, comma));
    std::uint32_t taxid = 0;
    if (!parse_taxid(word, taxid))
      throw std::invalid_argument(option + " takes taxonomy IDs separated by commas, e.g. 9606,10090; not " +
                                  quoted_excerpt(text));
    taxids.push_back(taxid);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return taxids;
}

std::vector<std::uint32_t> read_taxid_list(const std::string& path) {
  std::ifstream in = open_text(path, "taxid list");
  std::vector<std::uint32_t> taxids;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    std::string_view text = line;
    text = text.substr(0, text.find('#'));
    while (!(text = trimmed(text)).empty()) {
      const std::size_t blank = text.find_first_of(" \t,");
      const std::string_view word = text.substr(0, blank);
      std::uint32_t taxid = 0;
      if (!parse_taxid(word, taxid))
        throw std::runtime_error("taxid list " + quoted_excerpt(path) + ", line " + std::to_string(number) + ": " +
                                 quoted_excerpt(word) + " is not a taxonomy ID");
      taxids.push_back(taxid);
      text.remove_prefix(blank == std::string_view::npos ? text.size() : blank + 1);
    }
  }
  if (in.bad()) throw std::runtime_error("cannot read taxid list " + quoted_excerpt(path));
  return taxids;
}

std::vector<bool> subjects_passing(const Database& database, const TaxidFilter& filter, const Taxonomy* taxonomy) {
  if (!database.has_taxids())
    throw std::invalid_argument("database " + quoted_excerpt(database.path()) +
                                " stores no taxonomy IDs: make it with 'warpsearch makedb --taxid-map FILE' (or "
                                "--taxid N) to filter by taxonomy");
  // Each distinct taxid of the database is decided once: a database holds far fewer taxa than subjects.
  std::unordered_map<std::uint32_t, bool> decided;
  const auto listed = [&](std::uint32_t taxid, const std::vector<std::uint32_t>& list) {
    for (const std::uint32_t wanted : list)
      if (taxid == wanted || (taxonomy != nullptr && taxid != 0 && taxonomy->descends_from(taxid, wanted))) return true;
    return false;
  };
  const std::uint64_t subjects = database.info().subjects;
  std::vector<bool> passing(subjects);
  for (std::uint64_t s = 0; s < subjects; ++s) {
    const std::uint32_t taxid = database.taxid(s);
    auto found = decided.find(taxid);
    if (found == decided.end()) {
      const bool in = (filter.include.empty() || listed(taxid, filter.include)) && !listed(taxid, filter.exclude);
      found = decided.emplace(taxid, in).first;
    }
    passing[s] = found->second;
  }
  return passing;
}

}  // namespace warpsearch
