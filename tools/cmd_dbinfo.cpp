#include <stdexcept>

#include "tools/commands.hpp"

namespace warpsearch::tools {

int run_dbinfo(int, char**) { throw std::runtime_error("'dbinfo' is not built yet"); }

}  // namespace warpsearch::tools
