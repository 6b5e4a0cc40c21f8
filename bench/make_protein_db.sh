#!/usr/bin/env bash
# Builds the real protein benchmark database OUTDIR/proteins.fa (75,000 proteins, 32,735,032 residues,
# about 35 MB) from Debian packages, the same every time:
#   1. mmseqs2-examples  /usr/share/doc/mmseqs2/example-data/DB.fasta.gz   20,000 UniProtKB proteins, 9,055,569 aa
#   2. plast-example     /usr/share/doc/plast-example/db/tursiops.fa.gz    16,598 Ensembl dolphin proteins, 9,510,404 aa
#   3. metastudent-data  dataset_201401/MFO/goasp.fasta (a BLAST database of 459,503 GO-annotated UniProtKB
#      proteins): its first 38,402 sequences in database order, 14,169,059 aa, read with blastdbcmd
#      (ncbi-blast+). Their headers "ACC|GO:..." are written as "ACC GO:..." so that the identifier is the
#      accession.
# Sequences are written as the packages have them (a few contain X, B, Z or U; see docs/scoring.md).
# Missing packages are installed with apt-get (mmseqs2-examples, plast-example, ncbi-blast+); metastudent-data
# (225 MB download, 780 MB installed) is not installed: unless it is already there, its .deb is fetched with
# 'apt-get download' into a temporary directory and only the MFO database is unpacked from it.
#
# usage: bench/make_protein_db.sh OUTDIR      prints sequences, residues and the SHA-256 of proteins.fa
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
outdir=$1
mkdir -p "$outdir"
out="$outdir/proteins.fa"
metastudent_count=38402

mmseqs_db=/usr/share/doc/mmseqs2/example-data/DB.fasta.gz
tursiops=/usr/share/doc/plast-example/db/tursiops.fa.gz
metastudent_dir=/usr/share/metastudent-data/dataset_201401/MFO

install() {  # install PACKAGE... with apt-get (needs root)
  echo "make_protein_db: installing $* (apt-get)" >&2
  if [[ $(id -u) -eq 0 ]]; then apt-get install -y -q "$@" >&2
  else sudo apt-get install -y -q "$@" >&2; fi
}
[[ -r $mmseqs_db ]] || install mmseqs2-examples
[[ -r $tursiops ]] || install plast-example
command -v blastdbcmd >/dev/null || install ncbi-blast+

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ ! -r $metastudent_dir/goasp.fasta.psq ]]; then
  echo "make_protein_db: fetching metastudent-data (apt-get download, 225 MB) to unpack its MFO database" >&2
  (cd "$work" && apt-get download -q metastudent-data) >&2
  deb=$(ls "$work"/metastudent-data_*.deb)
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" ./usr/share/metastudent-data/dataset_201401/MFO/
  rm -f "$deb"
  metastudent_dir=$work/usr/share/metastudent-data/dataset_201401/MFO
fi

tmp="$out.tmp.$$"
{
  zcat "$mmseqs_db"
  zcat "$tursiops"
  # blastdbcmd writes the whole database; keep the first $metastudent_count records (reading to the end
  # avoids a broken pipe).
  blastdbcmd -db "$metastudent_dir/goasp.fasta" -entry all -line_length 60 |
    awk -v n="$metastudent_count" '/^>/ { k++; if (k <= n) sub(/\|/, " ") } k <= n'
} >"$tmp"
mv "$tmp" "$out"

awk '/^>/ { n++; next } { r += length($0) } END { printf "%s: %d sequences, %d residues\n", FILENAME, n, r }' "$out"
sha256sum "$out"
