#!/usr/bin/env bash
# The real torch-npu wheel in an environment of its own (CANN and an NPU are not expected here): proves that
# `import attnviz` works, the device report says why the NPU is unavailable, capture runs on CPU, and asking for
# the NPU fails with a sentence. See tests/integration/test_npu_env.py.
#
# The environment lives outside the repository (ATTNVIZ_NPU_VENV, default /tmp/attnviz-npu-venv) and is rebuilt
# only when requirements.txt or requirements-npu.txt change.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${ATTNVIZ_NPU_VENV:-/tmp/attnviz-npu-venv}"
stamp="$venv/.requirements.sha256"
wanted="$(cat requirements.txt requirements-npu.txt | sha256sum | cut -d' ' -f1)"
started=$(date +%s)

if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q -r requirements-npu.txt "pytest>=8"
  echo "$wanted" > "$stamp"
fi

# Fails (and so fails CI) if the wheel is missing, rather than letting every test skip.
version="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch-npu"))')"
echo "npu check: torch-npu $version ready in $(( $(date +%s) - started )) s; environment $(du -sh "$venv" | cut -f1)"

"$venv/bin/python" -m pytest tests/integration/test_npu_env.py -q -p no:cacheprovider
