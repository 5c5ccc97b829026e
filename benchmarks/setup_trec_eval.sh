#!/usr/bin/env bash
# Build trec_eval 10.0 (NIST's C program, the reference the trec measures follow) from its public source, for
# benchmarks/vs_peers.py, which runs it as one of the peers (whole process: `trec_eval -m ... qrels run`). evalframe
# itself never runs it, and the test suite does not need it.
#
#   usage: benchmarks/setup_trec_eval.sh [--out DIR] [--source TARBALL]
#          DIR defaults to ~/.cache/evalframe-bench; the binary is DIR/trec_eval-10.0/trec_eval (vs_peers.py's
#          default --trec-eval), and its path is the last line printed.
#   --source: a tarball of the tag v10.0 already at hand (GitHub's archive, or `git archive --prefix=trec_eval-10.0/
#          v10.0 | gzip` of a clone), for a machine that cannot reach GitHub; else it is downloaded from
#          https://github.com/usnistgov/trec_eval/archive/refs/tags/v10.0.tar.gz
#
# The tarball is checked to be the tag's commit (the commit id git writes into every archive it makes). The build is
# trec_eval's own Makefile as it comes (`make`: its CFLAGS are `-g -Wall`, no -O), what a user who builds it gets.
# Needs curl (for the download), tar, gzip, make and a C compiler (`cc`; Debian: build-essential). Running it again
# on a finished DIR only re-checks the binary.
set -euo pipefail

out=${HOME}/.cache/evalframe-bench
source_tarball=
url=https://github.com/usnistgov/trec_eval/archive/refs/tags/v10.0.tar.gz
commit=f4253652c8efd0d86ddffd0d163cc0a0f813111a  # tag v10.0 ("Updating CHANGELOG for version 10.0")

while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --source) source_tarball=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup_trec_eval.sh: unknown argument '$1' (--out DIR, --source TARBALL)" >&2; exit 2 ;;
  esac
done

dir=${out}/trec_eval-10.0
binary=${dir}/trec_eval
check() { [ -x "${binary}" ] && "${binary}" -v 2>&1 | grep -q 'trec_eval version 10\.0'; }
if check; then
  echo "trec_eval 10.0 is built in ${dir} (nothing to do)"
  echo "${binary}"
  exit 0
fi
for tool in tar gzip make cc; do
  command -v "${tool}" >/dev/null || { echo "setup_trec_eval.sh: '${tool}' is needed (Debian: apt-get install build-essential)" >&2; exit 1; }
done

mkdir -p "${out}"
tarball=${out}/trec_eval-10.0.tar.gz
if [ -n "${source_tarball}" ]; then
  cp "${source_tarball}" "${tarball}.part"
else
  curl -fsSL --retry 2 -o "${tarball}.part" "${url}" || {
    echo "setup_trec_eval.sh: could not download ${url}; fetch the tag v10.0 another way and pass it with --source" >&2
    rm -f "${tarball}.part"; exit 1; }
fi
if command -v git >/dev/null; then
  got=$(gzip -dc "${tarball}.part" | git get-tar-commit-id || true)
  if [ "${got}" != "${commit}" ]; then
    echo "setup_trec_eval.sh: the tarball is commit '${got}', not the tag v10.0's ${commit}" >&2
    rm -f "${tarball}.part"; exit 1
  fi
fi
mv "${tarball}.part" "${tarball}"

rm -rf "${dir}"
mkdir -p "${dir}"
tar xzf "${tarball}" -C "${dir}" --strip-components=1
make -C "${dir}" --quiet >"${dir}/build.log" 2>&1 || { cat "${dir}/build.log" >&2; exit 1; }
check || { echo "setup_trec_eval.sh: ${binary} was built but does not say it is version 10.0" >&2; exit 1; }
echo "trec_eval 10.0 is built in ${dir}"
echo "  benchmark: python benchmarks/vs_peers.py --trec-eval ${binary}"
echo "${binary}"
