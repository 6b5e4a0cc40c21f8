#include <stdexcept>

#include "tools/commands.hpp"

namespace warpsearch::tools {

int run_makedb(int, char**) { throw std::runtime_error("'makedb' is not built yet"); }

}  // namespace warpsearch::tools
