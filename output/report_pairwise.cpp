// BLAST's pairwise report (outfmt 0).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "output/report.hpp"

namespace warpsearch {

using namespace report;  // NOLINT: the writers' shared parts

void OutputFormat::QueryReport::pairwise(std::ostream& out) const {
  // BLAST's report names a protein subject without a description "unnamed protein product".
  const auto pairwise_title = [&](std::uint64_t subject) {
    std::string title = subject_title(subject);
    return title.empty() && !nucleotide ? std::string("unnamed protein product") : title;
  };
  out << wrapped("Query= " + query_title, 79) << "\nLength=" << query_length << "\n";
  if (groups.empty()) {
    out << "\n\n***** No hits found *****\n\n\n\n";
  } else {
    out << "                                                                      Score     E\n"
           "Sequences producing significant alignments:                          (Bits)  Value\n\n";
    for (const auto& group : groups) {
      const Hit& first = *group.front();
      const SequenceId sid = parse_sequence_id(database.id(first.subject), type);
      std::string text = tabular_field(sid.accession_version + " " + pairwise_title(first.subject));
      if (text.size() > 68) text = text.substr(0, 65) + "...";
      char line[256];
      std::snprintf(line, sizeof line, "%-68s  %-8s%-5s", text.c_str(), pairwise_bitscore(first.bitscore).c_str(),
                    pairwise_evalue(first.evalue).c_str());
      out << line << "\n";
    }
    out << "\n\n";
    for (const auto& group : groups) {
      const Hit& first = *group.front();
      const SequenceId sid = parse_sequence_id(database.id(first.subject), type);
      out << wrapped(">" + tabular_field(sid.accession_version + " " + pairwise_title(first.subject)), 79)
          << "Length=" << first.subject_length << "\n\n";
      for (const Hit* hit_pointer : group) {
        const Hit& hit = *hit_pointer;
        const Presented p = present(query, hit, alphabet, scoring);
        const std::size_t length = hit.operations.size();
        auto percent = [&](std::uint32_t part) { return coverage_percent(part, length); };
        out << " Score = " << pairwise_bitscore(hit.bitscore) << " bits (" << hit.score
            << "),  Expect = " << pairwise_evalue(hit.evalue) << "\n"
            << " Identities = " << hit.identities << "/" << length << " (" << percent(hit.identities) << "%)";
        if (!nucleotide || translated(hit))
          out << ", Positives = " << p.positives << "/" << length << " (" << percent(p.positives) << "%)";
        out << ", Gaps = " << hit.gaps << "/" << length << " (" << percent(hit.gaps) << "%)\n";
        // Translated hits name their frames (blastx the query's, tblastn the subject's, tblastx both).
        const auto signed_frame = [](int f) { return (f > 0 ? "+" : "") + std::to_string(f); };
        if (translated(hit))
          out << " Frame = "
              << (hit.query_frame != 0 && hit.subject_frame != 0
                      ? signed_frame(hit.query_frame) + "/" + signed_frame(hit.subject_frame)
                      : signed_frame(hit.query_frame != 0 ? hit.query_frame : hit.subject_frame))
              << "\n";
        else if (nucleotide)
          out << " Strand=Plus/" << (hit.strand == Strand::minus ? "Minus" : "Plus") << "\n";
        out << "\n";
        // Blocks of 60 columns: coordinates of the first and last residue shown on each line.
        const int width = static_cast<int>(std::max(std::to_string(std::max(p.qstart, p.qend)).size(),
                                                    std::to_string(std::max(p.sstart, p.send)).size()));
        // A line's coordinates run over its residues: one position each, or three bases each for a
        // translated sequence (downwards on a minus strand or frame).
        std::int64_t q = static_cast<std::int64_t>(p.qstart), sbj = static_cast<std::int64_t>(p.sstart);
        const std::int64_t qstep = p.qstart <= p.qend ? 1 : -1, sstep = p.sstart <= p.send ? 1 : -1;
        const std::int64_t qwidth = hit.query_frame != 0 ? 3 : 1, swidth = hit.subject_frame != 0 ? 3 : 1;
        for (std::size_t at = 0; at < length; at += 60) {
          const std::size_t n = std::min<std::size_t>(60, length - at);
          const std::string qpart = p.qseq.substr(at, n), spart = p.sseq.substr(at, n);
          const auto qresidues =
              static_cast<std::int64_t>(n - static_cast<std::size_t>(std::count(qpart.begin(), qpart.end(), '-')));
          const auto sresidues =
              static_cast<std::int64_t>(n - static_cast<std::size_t>(std::count(spart.begin(), spart.end(), '-')));
          const std::int64_t qlast = qresidues ? q + qstep * (qwidth * qresidues - 1) : q - qstep;
          const std::int64_t slast = sresidues ? sbj + sstep * (swidth * sresidues - 1) : sbj - sstep;
          char prefix[64];
          std::snprintf(prefix, sizeof prefix, "Query  %-*llu  ", width, static_cast<unsigned long long>(q));
          out << prefix << qpart << "  " << qlast << "\n"
              << std::string(7 + static_cast<std::size_t>(width) + 2, ' ') << p.midline.substr(at, n) << "\n";
          std::snprintf(prefix, sizeof prefix, "Sbjct  %-*llu  ", width, static_cast<unsigned long long>(sbj));
          out << prefix << spart << "  " << slast << "\n\n";
          q = qlast + qstep;
          sbj = slast + sstep;
        }
        out << "\n";
      }
    }
  }
  if (s.statistics) {
    const auto& k = s.statistics->parameters();
    char line[160];
    std::snprintf(line, sizeof line, "\nGapped\nLambda      K        H\n   %5.3f   %6.4f    %5.3f \n\n", k.lambda, k.K,
                  k.H);
    out << line << "Effective search space used: " << std::llround(stats_search_space()) << "\n\n\n";
  }
  return;
}

}  // namespace warpsearch
