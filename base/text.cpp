#include "base/text.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace warpsearch {
namespace {

// Length of the valid UTF-8 sequence starting at text[i] that is not a C1 control, else 0.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  std::uint32_t code = 0, minimum = 0;
  if (lead >= 0xC2 && lead <= 0xDF)
    length = 2, code = lead & 0x1F, minimum = 0xA0;  // U+0080..9F: C1
  else if (lead >= 0xE0 && lead <= 0xEF)
    length = 3, code = lead & 0x0F, minimum = 0x800;
  else if (lead >= 0xF0 && lead <= 0xF4)
    length = 4, code = lead & 0x07, minimum = 0x10000;
  else
    return 0;
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = code << 6 | (byte(i + k) & 0x3F);
  }
  if (code < minimum || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

}  // namespace

std::string printable_excerpt(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 16);
  std::size_t i = 0;
  while (i < text.size() && i < max_bytes) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const std::size_t length = utf8_length(text, i);
      if (length > 0) {
        if (i + length > max_bytes) break;  // not half a character
        out.append(text.substr(i, length));
        i += length;
        continue;
      }
    }
    if (c == '\t')
      out += "\\t";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", c);
      out += escaped;
    }
    ++i;
  }
  if (i < text.size()) out += "...(" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::string quoted_excerpt(std::string_view text, std::size_t max_bytes) {
  return "'" + printable_excerpt(text, max_bytes) + "'";
}

}  // namespace warpsearch
