#include "core/alignment_mode.hpp"

#include <stdexcept>
#include <string>

#include "base/text.hpp"

namespace warpsearch {

AlignmentMode parse_alignment_mode(std::string_view name) {
  if (name == "local") return AlignmentMode::local;
  if (name == "global") return AlignmentMode::global;
  if (name == "semiglobal") return AlignmentMode::semiglobal;
  if (name == "xdrop") return AlignmentMode::xdrop;
  throw std::invalid_argument("unknown alignment mode " + quoted_excerpt(name) +
                              " (known: local, global, semiglobal, xdrop)");
}

const char* alignment_mode_name(AlignmentMode mode) {
  switch (mode) {
    case AlignmentMode::local: return "local";
    case AlignmentMode::global: return "global";
    case AlignmentMode::semiglobal: return "semiglobal";
    case AlignmentMode::xdrop: return "xdrop";
  }
  return "?";
}

void require_table_mode(AlignmentMode mode, const char* kernel) {
  if (mode == AlignmentMode::xdrop)
    throw std::invalid_argument(std::string(kernel) +
                                ": xdrop is not one of its modes (local, global, semiglobal); X-drop extensions "
                                "have their own aligners");
}

}  // namespace warpsearch
