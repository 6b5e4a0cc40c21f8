#include <stdexcept>

#include "tools/commands.hpp"

namespace warpsearch::tools {

int run_search(int, char**) { throw std::runtime_error("'search' is not built yet"); }

}  // namespace warpsearch::tools
