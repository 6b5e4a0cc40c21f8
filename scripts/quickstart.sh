#!/usr/bin/env bash
# Builds warpsearch, packs the bundled UniProt sample into a database and searches it with the bundled
# queries (on the GPU where one is usable, else on the CPU). The hits go to build/quickstart.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
rm -rf build/sample.wsdb
build/tools/warpsearch makedb data/uniprot_sample.fa build/sample.wsdb
build/tools/warpsearch dbinfo build/sample.wsdb
build/tools/warpsearch search -q data/queries.fa -d build/sample.wsdb -o build/quickstart.tsv --max-target-seqs 5
echo "qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore"
head -n 20 build/quickstart.tsv
