// printable_excerpt: user text as messages show it (base/text.hpp).
#include <string>

#include "base/text.hpp"
#include "tests/catch.hpp"

namespace ws = warpsearch;

TEST_CASE("printable_excerpt: control bytes escaped, UTF-8 kept, long text cut at a character", "[text]") {
  CHECK(ws::printable_excerpt("plain id_1.fa") == "plain id_1.fa");
  CHECK(ws::printable_excerpt("a\x1b[31mb\x07") == "a\\x1B[31mb\\x07");
  CHECK(ws::printable_excerpt("t\tn\nr\r") == "t\\tn\\nr\\r");
  CHECK(ws::printable_excerpt(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(ws::printable_excerpt("del\x7f") == "del\\x7F");
  // Valid UTF-8 stays; C1 controls (U+009B, a CSI on some terminals) and broken sequences do not.
  CHECK(ws::printable_excerpt("caf\xc3\xa9 \xe2\x9c\x93") == "caf\xc3\xa9 \xe2\x9c\x93");
  CHECK(ws::printable_excerpt("x\xc2\x9b"
                              "31m") == "x\\xC2\\x9B31m");
  CHECK(ws::printable_excerpt("bad\xff\xfe") == "bad\\xFF\\xFE");
  CHECK(ws::printable_excerpt("\xe2\x9c") == "\\xE2\\x9C");
  CHECK(ws::printable_excerpt("\xed\xa0\x80") == "\\xED\\xA0\\x80");  // a surrogate
  // Cut after max_bytes, never inside a character, with the full size.
  const std::string long_text(1 << 20, 'A');
  CHECK(ws::printable_excerpt(long_text, 10) == "AAAAAAAAAA...(1048576 bytes)");
  CHECK(ws::printable_excerpt("ab\xc3\xa9", 3) == "ab...(4 bytes)");
  CHECK(ws::printable_excerpt(long_text).size() < 2 * ws::kExcerptBytes);
  CHECK(ws::quoted_excerpt("") == "''");
  CHECK(ws::quoted_excerpt("id") == "'id'");
}
