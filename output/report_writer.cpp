#include "output/report_writer.hpp"

#include <memory>
#include <sstream>
#include <utility>

namespace warpsearch {

ReportWriter::ReportWriter(const OutputFormat& format, std::ostream& out, const Database& database, unsigned threads,
                           std::function<void()> written)
    : format_(format), out_(out), database_(database), written_(std::move(written)) {
  // A few reports per thread in flight: enough to keep the threads busy, little held in memory.
  if (threads > 1)
    formatting_.emplace(threads, std::size_t{4} * threads, [this](std::string& text) {
      out_ << text;
      if (written_) written_();
    });
}

void ReportWriter::write(const Query& query, QueryResult&& result) {
  if (!formatting_) {
    format_.write(out_, query, result, database_);
    if (written_) written_();
    return;
  }
  const std::size_t number = ++submitted_;
  auto held = std::make_shared<QueryResult>(std::move(result));
  formatting_->submit([this, &query, held, number] {
    std::ostringstream text;
    format_.write_report(text, query, *held, database_, number);
    return text.str();
  });
}

void ReportWriter::finish() {
  if (formatting_) formatting_->finish();
}

}  // namespace warpsearch
