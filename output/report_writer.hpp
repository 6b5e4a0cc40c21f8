// ReportWriter: one output's query reports, written in query order as the search hands the results
// over, and formatted on several threads meanwhile (OutputFormat::write_report, each report numbered as
// it is handed over), so that a burst of results (the queries the output held back for an earlier one)
// is formatted in a fraction of the time; the bytes are those OutputFormat::write writes, in the same
// order, in every format.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "base/ordered_tasks.hpp"
#include "output/output.hpp"

namespace warpsearch {

class ReportWriter {
 public:
  // After format.begin(out, ...). written() runs after each report is written, in query order, on
  // whichever thread wrote it (to flush stdout, say). query objects must outlive the writer.
  ReportWriter(const OutputFormat& format, std::ostream& out, const Database& database, unsigned threads,
               std::function<void()> written);

  void write(const Query& query, QueryResult&& result);
  // Waits until every report is written; rethrows what formatting or writing threw.
  void finish();

 private:
  const OutputFormat& format_;
  std::ostream& out_;
  const Database& database_;
  std::function<void()> written_;
  std::size_t submitted_ = 0;
  std::optional<OrderedTasks<std::string>> formatting_;  // none: written on the caller's thread
};

}  // namespace warpsearch
