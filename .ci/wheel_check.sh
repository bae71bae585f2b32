#!/usr/bin/env bash
# The package as pip installs it: build the wheel, install it into a fresh environment outside the checkout, then,
# from a folder outside the checkout, run `attnviz --help` and capture with an embedded model. The capture must read
# the model from the installed package (attnviz/assets), never from this checkout's assets/. Then the wheel with its
# `notebook` extra, and nothing else, executes the tutorial notebook headless (nbclient) in that environment.
#
# PYTHON (default python3) builds the wheel and the environment; pip's cache makes the reinstall quick.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
started=$(date +%s)

"$python" -m pip wheel --no-deps -q -w "$work/dist" .
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$work"/dist/attnviz-*.whl
installed=$(( $(date +%s) - started ))

cd "$work"
"$work/venv/bin/attnviz" --help >/dev/null
"$work/venv/bin/attnviz" capture --model demo-zh-en --text 早上好！ --target "Good morning!" -o capture.json >/dev/null
"$work/venv/bin/python" - "$work/venv" "$repo" <<'CHECK'
import json
import sys
from pathlib import Path

import attnviz
from attnviz.model.catalogue import catalogue_folder

venv, repo = (Path(arg).resolve() for arg in sys.argv[1:])
capture = json.loads(Path("capture.json").read_text(encoding="utf-8"))
# A catalogue model is named, not located, in a capture's provenance: the folder is the one the catalogue reads.
assert capture["provenance"]["model"]["name"] == "demo-zh-en", capture["provenance"]["model"]
folder = catalogue_folder("demo-zh-en").resolve()
assert Path(attnviz.__file__).resolve().is_relative_to(venv), f"attnviz imported from {attnviz.__file__}"
assert folder.is_relative_to(venv) and not folder.is_relative_to(repo), f"model read from {folder}"
assert {"encoder", "decoder", "cross"} <= set(capture["maps"]), sorted(capture["maps"])
assert capture["target_text"] == "Good morning!"
print(f"wheel check: attnviz {attnviz.__version__} from {Path(attnviz.__file__).parent}, model from {folder}")
CHECK
# The tutorial, run by the installed package alone: its kernel is this environment's interpreter.
"$work/venv/bin/python" -m pip install -q "$(ls "$work"/dist/attnviz-*.whl)[notebook]"
cp "$repo/docs/notebooks/tutorial.ipynb" "$work/tutorial.ipynb"
"$work/venv/bin/python" - "$work" <<'NOTEBOOK'
import sys
from pathlib import Path

import nbformat
from ipykernel.kernelspec import write_kernel_spec
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

work = Path(sys.argv[1])
write_kernel_spec(work / "kernels" / "wheel")  # a kernel of this interpreter, whatever else Jupyter knows
specs = KernelSpecManager(kernel_dirs=[str(work / "kernels")], ensure_native_kernel=False)
notebook = nbformat.read(work / "tutorial.ipynb", as_version=4)
client = NotebookClient(notebook, km=KernelManager(kernel_name="wheel", kernel_spec_manager=specs), timeout=600,
                        resources={"metadata": {"path": str(work)}})
client.execute()
errors = [out for cell in notebook.cells for out in cell.get("outputs", ()) if out.get("output_type") == "error"]
assert not errors, errors
print(f"wheel check: the tutorial ran ({len(notebook.cells)} cells) with the wheel and its notebook extra only")
NOTEBOOK
echo "wheel check: built and installed in ${installed} s, all in $(( $(date +%s) - started )) s;" \
  "wheel $(du -h "$work"/dist/attnviz-*.whl | cut -f1), environment $(du -sh "$work/venv" | cut -f1)"
