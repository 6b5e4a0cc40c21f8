// BLAST's text fields and sequence IDs: each format's escaping (tabular, CSV, JSON, XML, SAM) and the
// parts of a FASTA ID as BLAST reads them (output/output.hpp).
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "output/output.hpp"

namespace warpsearch {
namespace {

// ---------------------------------------------------------------------------------------------------------
// Identifiers

bool all_of(std::string_view s, int (*predicate)(int)) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [&](char c) { return predicate(static_cast<unsigned char>(c)) != 0; });
}

// "NP_000001.1" -> "NP_000001"; a version is a dot and digits at the end.
std::string_view without_version(std::string_view accession) {
  const auto dot = accession.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == accession.size() || !all_of(accession.substr(dot + 1), isdigit))
    return accession;
  return accession.substr(0, dot);
}

bool is_refseq_accession(std::string_view id, SequenceType type) {
  const std::string_view bare = without_version(id);
  if (bare.size() < 4 || bare[2] != '_' || !all_of(bare.substr(3), isalnum)) return false;
  static const char* const protein[] = {"AP", "NP", "XP", "YP", "WP"};
  static const char* const nucleotide[] = {"AC", "NC", "NG", "NM", "NR", "NT", "NW", "NZ", "XM", "XR"};
  const std::string_view prefix = bare.substr(0, 2);
  if (type == SequenceType::protein)
    return std::any_of(std::begin(protein), std::end(protein), [&](const char* p) { return prefix == p; });
  return std::any_of(std::begin(nucleotide), std::end(nucleotide), [&](const char* p) { return prefix == p; });
}

// UniProt's accession pattern: [OPQ][0-9][A-Z0-9]{3}[0-9] or [A-NR-Z][0-9]([A-Z][A-Z0-9]{2}[0-9]){1,2}.
bool is_uniprot_accession(std::string_view id) {
  const std::string_view a = without_version(id);
  auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  auto alnum = [&](char c) { return upper(c) || digit(c); };
  if (a.size() == 6 && (a[0] == 'O' || a[0] == 'P' || a[0] == 'Q'))
    return digit(a[1]) && alnum(a[2]) && alnum(a[3]) && alnum(a[4]) && digit(a[5]);
  if ((a.size() != 6 && a.size() != 10) || !upper(a[0]) || (a[0] >= 'O' && a[0] <= 'Q') || !digit(a[1])) return false;
  for (std::size_t i = 2; i < a.size(); i += 4)
    if (!upper(a[i]) || !alnum(a[i + 1]) || !alnum(a[i + 2]) || !digit(a[i + 3])) return false;
  return true;
}

std::vector<std::string_view> split_bars(std::string_view id) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const auto bar = id.find('|', start);
    parts.push_back(id.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    if (bar == std::string_view::npos) return parts;
    start = bar + 1;
  }
}

bool is_accession_tag(std::string_view tag) {
  static const char* const tags[] = {"sp",  "tr",  "ref", "gb",  "emb", "dbj", "pir", "prf", "tpg",
                                     "tpe", "tpd", "gpp", "nat", "pat", "bbs", "bbm", "gim"};
  return std::any_of(std::begin(tags), std::end(tags), [&](const char* t) { return tag == t; });
}

// ---------------------------------------------------------------------------------------------------------
// Escaping

// Appends the valid UTF-8 sequence at text[i] (advancing i), or U+FFFD for an invalid byte.
void append_utf8(std::string_view text, std::size_t& i, std::string& out) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (c < 0x80) {
    out += static_cast<char>(c);
    ++i;
    return;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
    code = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    code = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    code = c & 0x07u;
  }
  bool valid = length > 0 && i + length <= text.size();
  for (std::size_t k = 1; valid && k < length; ++k) {
    valid = (byte(i + k) & 0xC0) == 0x80;
    code = (code << 6) | (byte(i + k) & 0x3Fu);
  }
  // Overlong forms, surrogates and code points beyond U+10FFFF are invalid too.
  if (valid)
    valid = !(length == 3 && code < 0x800) && !(length == 4 && (code < 0x10000 || code > 0x10FFFF)) &&
            !(code >= 0xD800 && code <= 0xDFFF);
  if (!valid) {
    out += "\xEF\xBF\xBD";
    ++i;
    return;
  }
  out.append(text.substr(i, length));
  i += length;
}

}  // namespace

std::string tabular_field(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    if (c == '\t' || c == '\r' || c == '\n') c = ' ';
  return out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      append_utf8(text, i, out);
      continue;
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string xml_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      append_utf8(text, i, out);
      continue;
    }
    ++i;
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t': out += "&#x9;"; break;
      case '\n': out += "&#xA;"; break;
      case '\r': out += "&#xD;"; break;
      default:
        // XML 1.0 has no way to write the other control characters, not even as references.
        if (c < 0x20)
          out += "\xEF\xBF\xBD";
        else
          out += static_cast<char>(c);
    }
  }
  return out;
}

std::string sam_qname(std::string_view text) {
  std::string out(text.substr(0, 254));
  for (auto& c : out)
    if (c < '!' || c > '~' || c == '@') c = '_';
  return out.empty() ? std::string("_") : out;
}

std::string sam_rname(std::string_view text) {
  auto allowed = [](char c, bool first) {
    if (std::isalnum(static_cast<unsigned char>(c))) return true;
    if (c == '*' || c == '=') return !first;
    return std::string_view("!#$%&+./:;?@^_|~-").find(c) != std::string_view::npos;
  };
  std::string out(text);
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!allowed(out[i], i == 0)) out[i] = '_';
  return out.empty() ? std::string("_") : out;
}

namespace {

SequenceId parse_sequence_id_parts(std::string_view fasta_id, SequenceType type) {
  SequenceId id;
  id.seqid = std::string(fasta_id);
  auto set_accession = [&](std::string_view accession_version) {
    id.accession_version = std::string(accession_version);
    id.accession = std::string(without_version(accession_version));
  };
  const auto parts = split_bars(fasta_id);
  if (parts.size() == 1) {
    if (is_refseq_accession(fasta_id, type))
      id.seqid = "ref|" + id.seqid + "|";
    else if (type == SequenceType::protein && is_uniprot_accession(fasta_id))
      id.seqid = "sp|" + id.seqid + "|";
    else {
      id.accession = id.accession_version = id.seqid;
      return id;
    }
    set_accession(fasta_id);
    return id;
  }
  std::size_t at = 0;
  if (parts[0] == "gi" && parts.size() >= 2 && all_of(parts[1], isdigit)) {
    id.gi = std::stoull(std::string(parts[1]));
    at = 2;
    if (parts.size() == 2 || (parts.size() == 3 && parts[2].empty())) {
      id.accession = id.accession_version = std::string(parts[1]);
      return id;
    }
  }
  const std::string_view tag = parts[at];
  std::size_t tag_offset = 0;  // where the tag starts in fasta_id
  for (std::size_t i = 0; i < at; ++i) tag_offset += parts[i].size() + 1;
  const std::string_view after_tag = fasta_id.substr(std::min(fasta_id.size(), tag_offset + tag.size() + 1));
  const std::string_view first = at + 1 < parts.size() ? parts[at + 1] : std::string_view();
  const std::string_view second = at + 2 < parts.size() ? parts[at + 2] : std::string_view();
  if (tag == "lcl" && !after_tag.empty()) {
    id.seqid = std::string(after_tag);
    id.accession = id.accession_version = id.seqid;
  } else if (is_accession_tag(tag) && !first.empty()) {
    set_accession(first);
  } else if (tag == "pdb" && !first.empty()) {
    id.accession = id.accession_version = std::string(first) + (second.empty() ? "" : "_" + std::string(second));
  } else if (tag == "gnl" && !first.empty()) {
    id.report_accession = std::string(after_tag.substr(std::min(after_tag.size(), first.size() + 1)));
    id.accession = id.accession_version = std::string(first) + ":" + id.report_accession;
  } else if (at == 0) {
    // An unknown database tag: BLAST reads "abc|def" as a general ID of database abc.
    id.seqid = "gnl|" + id.seqid;
    id.report_accession = std::string(after_tag);
    id.accession = id.accession_version = std::string(tag) + ":" + id.report_accession;
  } else {
    id.accession = id.accession_version = std::string(fasta_id);
  }
  return id;
}

}  // namespace

SequenceId parse_sequence_id(std::string_view fasta_id, SequenceType type) {
  SequenceId id = parse_sequence_id_parts(fasta_id, type);
  if (id.report_accession.empty()) id.report_accession = id.accession;
  return id;
}

}  // namespace warpsearch
