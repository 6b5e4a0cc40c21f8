// BLAST's structured reports: XML (outfmt 5) and JSON (15).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "output/report.hpp"

namespace warpsearch {

using namespace report;  // NOLINT: the writers' shared parts

void OutputFormat::QueryReport::xml(std::ostream& out) const {
  if (query_number == 1) {
    out << "  <BlastOutput_program>" << program << "</BlastOutput_program>\n"
        << "  <BlastOutput_version>" << upper_case(program) << " " << kBlastVersion
        << " (warpsearch " WARPSEARCH_VERSION ")</BlastOutput_version>\n"
        << "  <BlastOutput_reference>Stephen F. Altschul, Thomas L. Madden, Alejandro A. Sch&amp;auml;ffer, "
           "Jinghui Zhang, Zheng Zhang, Webb Miller, and David J. Lipman (1997), &quot;Gapped BLAST and "
           "PSI-BLAST: a new generation of protein database search programs&quot;, Nucleic Acids Res. "
           "25:3389-3402.</BlastOutput_reference>\n"
        << "  <BlastOutput_db>" << xml_text(s.context.database_name) << "</BlastOutput_db>\n"
        << "  <BlastOutput_query-ID>" << blast_query_id << "</BlastOutput_query-ID>\n"
        << "  <BlastOutput_query-def>" << xml_text(query_title) << "</BlastOutput_query-def>\n"
        << "  <BlastOutput_query-len>" << query_length << "</BlastOutput_query-len>\n"
        << "  <BlastOutput_param>\n    <Parameters>\n";
    if (!nucleotide_scoring)
      out << "      <Parameters_matrix>" << xml_text(scoring.matrix().name()) << "</Parameters_matrix>\n";
    out << "      <Parameters_expect>" << number(s.context.max_evalue) << "</Parameters_expect>\n";
    if (nucleotide_scoring) {
      const int match = scoring.score(alphabet.encode('A'), alphabet.encode('A'));
      const int mismatch = scoring.score(alphabet.encode('A'), alphabet.encode('C'));
      out << "      <Parameters_sc-match>" << match << "</Parameters_sc-match>\n"
          << "      <Parameters_sc-mismatch>" << mismatch << "</Parameters_sc-mismatch>\n";
    }
    out << "      <Parameters_gap-open>" << scoring.gap_open() << "</Parameters_gap-open>\n"
        << "      <Parameters_gap-extend>" << scoring.gap_extend() << "</Parameters_gap-extend>\n"
        << "      <Parameters_filter>F</Parameters_filter>\n    </Parameters>\n  </BlastOutput_param>\n"
        << "<BlastOutput_iterations>\n";
  }
  out << "<Iteration>\n  <Iteration_iter-num>" << query_number << "</Iteration_iter-num>\n"
      << "  <Iteration_query-ID>" << blast_query_id << "</Iteration_query-ID>\n"
      << "  <Iteration_query-def>" << xml_text(query_title) << "</Iteration_query-def>\n"
      << "  <Iteration_query-len>" << query_length << "</Iteration_query-len>\n<Iteration_hits>\n";
  std::size_t hit_number = 0;
  for (const auto& group : groups) {
    const Hit& first = *group.front();
    const SequenceId sid = parse_sequence_id(database.id(first.subject), type);
    // BLAST's XML says so where a subject has no description (its JSON leaves the title empty).
    std::string xml_title = subject_title(first.subject);
    if (xml_title.empty()) xml_title = "No definition line";
    out << "<Hit>\n  <Hit_num>" << ++hit_number << "</Hit_num>\n"
        << "  <Hit_id>" << xml_text(sid.seqid) << "</Hit_id>\n"
        << "  <Hit_def>" << xml_text(xml_title) << "</Hit_def>\n"
        << "  <Hit_accession>" << xml_text(sid.report_accession) << "</Hit_accession>\n"
        << "  <Hit_len>" << first.subject_length << "</Hit_len>\n  <Hit_hsps>\n";
    std::size_t hsp_number = 0;
    for (const Hit* hit_pointer : group) {
      const Hit& hit = *hit_pointer;
      const Presented p = structured(present(query, hit, alphabet, scoring), hit);
      out << "    <Hsp>\n      <Hsp_num>" << ++hsp_number << "</Hsp_num>\n"
          << "      <Hsp_bit-score>" << number(hit.bitscore) << "</Hsp_bit-score>\n"
          << "      <Hsp_score>" << hit.score << "</Hsp_score>\n"
          << "      <Hsp_evalue>" << evalue_number(hit.evalue) << "</Hsp_evalue>\n"
          << "      <Hsp_query-from>" << p.qstart << "</Hsp_query-from>\n"
          << "      <Hsp_query-to>" << p.qend << "</Hsp_query-to>\n"
          << "      <Hsp_hit-from>" << p.sstart << "</Hsp_hit-from>\n"
          << "      <Hsp_hit-to>" << p.send << "</Hsp_hit-to>\n"
          << "      <Hsp_query-frame>"
          << (translated(hit) ? hit.query_frame
              : nucleotide    ? 1
                              : 0)
          << "</Hsp_query-frame>\n"
          << "      <Hsp_hit-frame>"
          << (translated(hit) ? hit.subject_frame
              : nucleotide    ? frame(hit)
                              : 0)
          << "</Hsp_hit-frame>\n"
          << "      <Hsp_identity>" << hit.identities << "</Hsp_identity>\n"
          << "      <Hsp_positive>" << p.positives << "</Hsp_positive>\n"
          << "      <Hsp_gaps>" << hit.gaps << "</Hsp_gaps>\n"
          << "      <Hsp_align-len>" << hit.operations.size() << "</Hsp_align-len>\n"
          << "      <Hsp_qseq>" << p.qseq << "</Hsp_qseq>\n"
          << "      <Hsp_hseq>" << p.sseq << "</Hsp_hseq>\n"
          << "      <Hsp_midline>" << p.midline << "</Hsp_midline>\n    </Hsp>\n";
    }
    out << "  </Hit_hsps>\n</Hit>\n";
  }
  out << "</Iteration_hits>\n  <Iteration_stat>\n    <Statistics>\n"
      << "      <Statistics_db-num>" << database.info().subjects << "</Statistics_db-num>\n"
      << "      <Statistics_db-len>" << database.info().residues << "</Statistics_db-len>\n"
      << "      <Statistics_hsp-len>" << stats_length_adjustment() << "</Statistics_hsp-len>\n"
      << "      <Statistics_eff-space>" << std::llround(stats_search_space()) << "</Statistics_eff-space>\n"
      << "      <Statistics_kappa>" << (s.statistics ? number(s.statistics->parameters().K) : "0")
      << "</Statistics_kappa>\n"
      << "      <Statistics_lambda>" << (s.statistics ? number(s.statistics->parameters().lambda) : "0")
      << "</Statistics_lambda>\n"
      << "      <Statistics_entropy>" << (s.statistics ? number(s.statistics->parameters().H) : "0")
      << "</Statistics_entropy>\n    </Statistics>\n  </Iteration_stat>\n";
  if (groups.empty()) out << "  <Iteration_message>No hits found</Iteration_message>\n";
  out << "</Iteration>\n";
  return;
}

void OutputFormat::QueryReport::blast_json(std::ostream& out) const {
  auto json_number = [](double value) { return std::isnan(value) ? std::string("null") : number(value); };
  if (query_number > 1) out << ",\n";
  out << "{\n    \"report\": {\n"
      << "      \"program\": \"" << program << "\",\n"
      << "      \"version\": "
      << json_string(upper_case(program) + " " + kBlastVersion + " (warpsearch " WARPSEARCH_VERSION ")") << ",\n"
      << "      \"reference\": \"Stephen F. Altschul, Thomas L. Madden, Alejandro A. Sch&auml;ffer, Jinghui "
         "Zhang, Zheng Zhang, Webb Miller, and David J. Lipman (1997), \\\"Gapped BLAST and PSI-BLAST: a new "
         "generation of protein database search programs\\\", Nucleic Acids Res. 25:3389-3402.\",\n"
      << "      \"search_target\": {\n        \"db\": " << json_string(s.context.database_name) << "\n      },\n"
      << "      \"params\": {\n";
  if (nucleotide_scoring) {
    out << "        \"expect\": " << number(s.context.max_evalue) << ",\n"
        << "        \"sc_match\": " << scoring.score(alphabet.encode('A'), alphabet.encode('A')) << ",\n"
        << "        \"sc_mismatch\": " << scoring.score(alphabet.encode('A'), alphabet.encode('C')) << ",\n";
  } else {
    out << "        \"matrix\": " << json_string(scoring.matrix().name()) << ",\n"
        << "        \"expect\": " << number(s.context.max_evalue) << ",\n";
  }
  out << "        \"gap_open\": " << scoring.gap_open() << ",\n"
      << "        \"gap_extend\": " << scoring.gap_extend() << ",\n"
      << "        \"filter\": \"F\"";
  // The genetic codes of the translated sides, as BLAST names them.
  if (program == "blastx" || program == "tblastx")
    out << ",\n        \"query_gencode\": " << s.context.query_genetic_code;
  if (program == "tblastn" || program == "tblastx")
    out << ",\n        \"db_gencode\": " << s.context.database_genetic_code;
  out << "\n      },\n"
      << "      \"results\": {\n        \"search\": {\n"
      << "          \"query_id\": \"" << blast_query_id << "\",\n"
      << "          \"query_title\": " << json_string(query_title) << ",\n"
      << "          \"query_len\": " << query_length << ",\n"
      << "          \"hits\": [\n";
  std::size_t hit_number = 0;
  for (const auto& group : groups) {
    const Hit& first = *group.front();
    const SequenceId sid = parse_sequence_id(database.id(first.subject), type);
    if (hit_number > 0) out << ",\n";
    out << "            {\n              \"num\": " << ++hit_number << ",\n"
        << "              \"description\": [\n                {\n"
        << "                  \"id\": " << json_string(sid.seqid) << ",\n"
        << "                  \"accession\": " << json_string(sid.report_accession) << ",\n"
        << "                  \"title\": " << json_string(subject_title(first.subject));
    // BLAST names the subject's taxid when it has one, and its scientific name where its taxdb does.
    if (const std::uint32_t taxid = database.taxid(first.subject); taxid != 0) {
      out << ",\n                  \"taxid\": " << taxid;
      if (s.context.taxonomy != nullptr && s.context.taxonomy->knows(taxid))
        out << ",\n                  \"sciname\": " << json_string(s.context.taxonomy->scientific_name(taxid));
    }
    out << "\n"
        << "                }\n              ],\n"
        << "              \"len\": " << first.subject_length << ",\n"
        << "              \"hsps\": [\n";
    std::size_t hsp_number = 0;
    for (const Hit* hit_pointer : group) {
      const Hit& hit = *hit_pointer;
      const Presented p = structured(present(query, hit, alphabet, scoring), hit);
      if (hsp_number > 0) out << ",\n";
      out << "                {\n"
          << "                  \"num\": " << ++hsp_number << ",\n"
          << "                  \"bit_score\": " << json_number(hit.bitscore) << ",\n"
          << "                  \"score\": " << hit.score << ",\n"
          << "                  \"evalue\": " << (std::isnan(hit.evalue) ? "null" : evalue_number(hit.evalue)) << ",\n"
          << "                  \"identity\": " << hit.identities << ",\n";
      // Translated hits have frames (BLAST names only the translated side's) where blastn has strands.
      if (!nucleotide || translated(hit)) out << "                  \"positive\": " << p.positives << ",\n";
      out << "                  \"query_from\": " << p.qstart << ",\n"
          << "                  \"query_to\": " << p.qend << ",\n";
      if (hit.query_frame != 0) out << "                  \"query_frame\": " << hit.query_frame << ",\n";
      if (nucleotide && !translated(hit))
        out << "                  \"query_strand\": \"Plus\",\n"
            << "                  \"hit_strand\": \"" << (hit.strand == Strand::minus ? "Minus" : "Plus") << "\",\n";
      out << "                  \"hit_from\": " << p.sstart << ",\n"
          << "                  \"hit_to\": " << p.send << ",\n";
      if (hit.subject_frame != 0) out << "                  \"hit_frame\": " << hit.subject_frame << ",\n";
      out << "                  \"align_len\": " << hit.operations.size() << ",\n"
          << "                  \"gaps\": " << hit.gaps << ",\n"
          << "                  \"qseq\": \"" << p.qseq << "\",\n"
          << "                  \"hseq\": \"" << p.sseq << "\",\n"
          << "                  \"midline\": \"" << p.midline << "\"\n"
          << "                }";
    }
    out << "\n              ]\n            }";
  }
  out << (groups.empty() ? "" : "\n") << "          ],\n"
      << "          \"stat\": {\n"
      << "            \"db_num\": " << database.info().subjects << ",\n"
      << "            \"db_len\": " << database.info().residues << ",\n"
      << "            \"hsp_len\": " << stats_length_adjustment() << ",\n"
      << "            \"eff_space\": " << std::llround(stats_search_space()) << ",\n"
      << "            \"kappa\": " << (s.statistics ? number(s.statistics->parameters().K) : "0") << ",\n"
      << "            \"lambda\": " << (s.statistics ? number(s.statistics->parameters().lambda) : "0") << ",\n"
      << "            \"entropy\": " << (s.statistics ? number(s.statistics->parameters().H) : "0") << "\n"
      << "          }" << (groups.empty() ? ",\n          \"message\": \"No hits found\"\n" : "\n")
      << "        }\n      }\n    }\n  }\n";
  return;
}

}  // namespace warpsearch
