"""Save the default view computed ahead (`first_view`): its captures and manifest beside the models.

    python -m app_pages.shared.save_first_view   # after retraining the default model, or changing what a capture holds

One capture per CPU capability torch can run on the saving CPU (`provenance.kernel_capabilities`: AVX2, and AVX512
where the CPU has it), each computed in its own process with ATEN_CPU_CAPABILITY set before torch loads: a server on
either kind of CPU then finds the view its own kernels compute. Apart from `first_view`, which the caches read:
saving computes through the caches, so it sits above both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from app_pages.shared import caches, first_view, model_runs
from app_pages.shared.state import ViewState
from attnviz.export.schema import capture_to_npz
from attnviz.model.load import catalogue_folder, load_model
from attnviz.provenance import kernel_capabilities
from attnviz.run import RunRequest

SAVED_CAPABILITIES = ("AVX2", "AVX512")  # the x86 kernels torch's wheels dispatch to on CPUs of the last decade


def write(view: ViewState | None = None, folder: Path | None = None) -> Path:
    """Compute the view's capture (default: the default view) with its model on CPU, as the page does, in this
    process (its torch capability, `first_view.computed_on`), save it in `folder` (default `first_view.FOLDER`)
    and enter it in the manifest there (replacing one computed on the same, and every one of another input or
    other model files). Returns the capture's path."""
    view = view or ViewState()
    folder = folder or first_view.FOLDER
    wanted = first_view.input_of(view)
    model_runs.use_interactive_threads()  # the app's thread count: another one sums in another order (other bits)
    handle = load_model(view.model, "cpu")
    request = RunRequest(wanted["text"], wanted["target"], wanted["mode"], truncate=wanted["truncate"])
    capture = caches.compute_analysis(handle, request)
    here = first_view.computed_on()
    folder.mkdir(parents=True, exist_ok=True)
    capture_path = folder / f"{view.model}.{here['capability']}.npz"
    capture_path.write_bytes(capture_to_npz(capture))
    manifest_path = folder / f"{view.model}.json"
    files = first_view.model_files_sha256(catalogue_folder(view.model))
    manifest = json.loads(manifest_path.read_text("utf-8")) if manifest_path.is_file() else {}
    same = manifest.get("input") == wanted and manifest.get("files_sha256") == files
    others = [saved for saved in manifest.get("views", []) if same and saved.get("computed_on") != here]
    views = sorted([*others, {"file": capture_path.name, "computed_on": here}], key=lambda saved: saved["file"])
    manifest = {"input": wanted, "files_sha256": files, "views": views}
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", "utf-8")
    return capture_path


def write_every_capability(folder: Path | None = None) -> list[Path]:
    """`write` of the default view once per capability of SAVED_CAPABILITIES this CPU runs, each in a process of
    its own (torch reads ATEN_CPU_CAPABILITY once, when it loads)."""
    written = []
    for capability in (c for c in SAVED_CAPABILITIES if c in kernel_capabilities()):
        env = {**os.environ, "ATEN_CPU_CAPABILITY": capability.lower()}
        command = [sys.executable, "-m", "app_pages.shared.save_first_view", "--this-process"]
        if folder is not None:
            command += ["--folder", str(folder)]
        done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        written.append(Path(done.stdout.strip().splitlines()[-1]))
    return written


if __name__ == "__main__":
    arguments = sys.argv[1:]
    chosen = Path(arguments[arguments.index("--folder") + 1]) if "--folder" in arguments else None
    if "--this-process" in arguments:
        print(write(folder=chosen))
    else:
        for path in write_every_capability(chosen):
            print(f"saved {path}")
