"""Save the default view computed ahead (`first_view`): its capture and manifest beside the models.

    python -m app_pages.shared.save_first_view   # after retraining the default model, or changing what a capture holds

Apart from `first_view`, which the caches read: saving computes through the caches, so it sits above both.
"""

from __future__ import annotations

import json
from pathlib import Path

from app_pages.shared import caches, first_view, model_runs
from app_pages.shared.state import ViewState
from attnviz.export.schema import capture_to_npz
from attnviz.model.load import catalogue_folder, load_model
from attnviz.run import RunRequest


def write(view: ViewState | None = None) -> Path:
    """Compute the view's capture (default: the default view) with its model on CPU, as the page does, and save it
    with its manifest in `first_view.FOLDER`. Returns the capture's path."""
    view = view or ViewState()
    wanted = first_view.input_of(view)
    model_runs.use_interactive_threads()  # the app's thread count: another one sums in another order (other bits)
    handle = load_model(view.model, "cpu")
    request = RunRequest(wanted["text"], wanted["target"], wanted["mode"], truncate=wanted["truncate"])
    capture = caches.compute_analysis(handle, request)
    folder = first_view.FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    capture_path = folder / f"{view.model}.npz"
    capture_path.write_bytes(capture_to_npz(capture))
    manifest = {
        "file": capture_path.name,
        "input": wanted,
        "files_sha256": first_view.model_files_sha256(catalogue_folder(view.model)),
        "computed_on": first_view.computed_on(),
    }
    (folder / f"{view.model}.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", "utf-8")
    return capture_path


if __name__ == "__main__":
    print(f"saved {write()}")
