#!/usr/bin/env bash
# Build the Haystack 1.x reference environment: a throwaway virtualenv holding farm-haystack 1.26.4 (the
# EvaluationResult evalframe reproduces) and what its evaluation code imports. It is read by
# benchmarks/vs_haystack.py and scripts/make_haystack1_golden.py (tests/data/haystack1/ was generated in it);
# evalframe itself never imports Haystack, and the test suite does not need this environment.
#
#   usage: benchmarks/setup_haystack1.sh [DIR]       DIR defaults to /tmp/haystack1 (the scripts' default too)
#   check: HAYSTACK_TELEMETRY_ENABLED=False DIR/bin/python -c "from haystack.schema import EvaluationResult"
#
# Environment: PYTHON (default python3; the environment has been built with Python 3.11, farm-haystack needs >= 3.8),
# TORCH_INDEX_URL (e.g. https://download.pytorch.org/whl/cpu for a CPU-only torch, a much smaller download).
# The download is a few GB (torch); running it again on a finished DIR only re-checks it.
set -euo pipefail

dir=${1:-/tmp/haystack1}
python=${PYTHON:-python3}
check='from haystack.schema import EvaluationResult; from haystack.pipelines.base import calculate_f1_str'
export HAYSTACK_TELEMETRY_ENABLED=False  # Haystack 1.x sends usage events unless told not to

if [ "${dir}" = "-h" ] || [ "${dir}" = "--help" ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
if [ -x "${dir}/bin/python" ] && "${dir}/bin/python" -c "${check}" 2>/dev/null; then
  echo "the Haystack 1.x reference environment in ${dir} is ready (nothing to do)"
  exit 0
fi

"${python}" -m venv "${dir}"
pip=("${dir}/bin/python" -m pip install --quiet)
"${pip[@]}" --upgrade pip
"${pip[@]}" 'farm-haystack==1.26.4.post0'
# Pipeline.eval's helpers (semantic answer similarity, the context matching) import these at module level
"${pip[@]}" ${TORCH_INDEX_URL:+--index-url "${TORCH_INDEX_URL}"} 'torch==2.13.0'
"${pip[@]}" rapidfuzz 'sentence-transformers<3'
# The versions the reference environment has always had (tests/data/haystack1/metrics.json records pandas 2.2.3).
# farm-haystack 1.26.4.post0's metadata asks for transformers >= 4.46: pip installs the pin anyway and prints that
# conflict, which is expected.
"${pip[@]}" 'transformers==4.39.3' 'pandas==2.2.3'

"${dir}/bin/python" -c "${check}"
echo "the Haystack 1.x reference environment is ready in ${dir}"
echo "  benchmarks:  python benchmarks/vs_haystack.py --haystack ${dir}"
echo "  golden data: ${dir}/bin/python scripts/make_haystack1_golden.py"
