"""The sentences of attnviz's errors in English; `attnviz.i18n.errors` joins both languages."""

STRINGS: dict[str, str] = {
    "error_SettingError": "A setting is not valid",
    # attnviz.settings
    "error.setting_in_environment": "The environment variable {variable}={value!r} is not valid: {accepts}.",
    "error.setting_in_secrets": "The setting {key} = {value!r} in {file} is not valid: {accepts}.",
    "error.secrets_unreadable": "{file} cannot be read as TOML: {detail}",
    "error.secrets_not_a_table": "In {file}, [{table}] must be a table of settings (server_mode = true, …).",
    "error.secrets_unknown_key": "{file} has an unknown setting {key!r} in [attnviz]; the settings are {known}.",
    # attnviz.model.devices
    "error.device_unknown": "Unknown device {device!r}; use auto, npu, npu:N, cuda, cuda:N, mps or cpu.",
    "error.device_unavailable": "Device {device!r} is not available: {reason} Choose auto or cpu.",
    "error.device_missing": "Device {device!r} does not exist: this machine has {count} {kind} device(s), "
    "numbered 0 to {last}.",
    "error.placement_device_unavailable": "The placement puts layers on {device!r}, which this machine does not "
    "have: {reason} Remove {device!r} from the device map and the memory limits, or run where it exists.",
    "error.placement_no_accelerator": "The placement puts layers on accelerator {device!r}, but this machine has "
    "none: NPU: {npu} CUDA: {cuda} Place the layers on cpu and disk only.",
    # attnviz.model.load
    "error.model_not_given": "No model given; pick one from the catalogue or give a Hugging Face id or folder.",
    "error.model_is_file": "{name!r} is a file; give the folder that holds config.json and the weights.",
    "error.model_folder_missing": "No model folder at {name!r}; check the path, or pick a model from the catalogue.",
    "error.model_no_config": "{folder!r} has no config.json; it is not a Hugging Face model folder.",
    "error.model_pickle_only": "{folder!r} holds only pickle weights (.bin/.pt), which can run code when loaded; "
    "convert them to safetensors, or set {variable}=1 if you trust this folder.",
    "error.model_no_weights": "{folder!r} has no weights (*.safetensors).",
    "error.model_folder_unloadable": "Could not load the model folder {name!r} (is it complete and uncorrupted?): "
    "{detail}",
    "error.model_hub_unloadable": "Could not load {name!r} from the Hugging Face hub or the local cache ({cache}): "
    "the hub is unreachable or the id is wrong. Download it where there is internet, or give a local folder. "
    "({detail})",
    # attnviz.model.objects (a model object the caller holds) and load_model's device maps
    "error.model_object_not_transformers": "A {kind} is not a Hugging Face Transformers model; give a "
    "PreTrainedModel (or a PEFT model around one), or a name or folder for load_model.",
    "error.model_object_unsupported": "attnviz cannot see the attention of a {kind}: its layers do not call "
    "transformers' attention interface; choose a model whose architecture does (Llama, Qwen2, BERT, BART, T5, …).",
    "error.tokenizer_object_invalid": "A {kind} is not a tokenizer; give the tokenizer the model was trained with.",
    "error.tokenizer_too_large": "This tokenizer has {tokens:,} tokens but {model!r} reads only {rows:,}; give the "
    "tokenizer that belongs to the model.",
    "error.tokenizer_special_differs": "This tokenizer's {token} token is id {tokenizer_id} but {model!r} expects "
    "{model_id}; give the tokenizer that belongs to the model.",
    "error.max_memory_too_small": "{name!r} does not fit in max_memory ({memory}) on its own; raise the limits, "
    "add cpu to them, or give an offload folder for the layers that do not fit.",
    "error.device_map_invalid": "The device map {value!r} cannot be used: use one of {names}, or a JSON map of "
    "module paths to places.",
    "error.device_map_place": "The device map {value!r} cannot be used: {place!r} is not a place; use npu:N, "
    "cuda:N, cpu or disk.",
    "error.max_memory_size": "The memory limits {value!r} cannot be used: {size!r} (for {place}) is not a size; "
    "write one like 30GiB.",
    "error.max_memory_place": "The memory limits {value!r} cannot be used: {place!r} is not a place; use npu:N, "
    "cuda:N, cpu or disk.",
    "error.offload_unreadable": "{name!r} cannot run with max_memory ({memory}): {tensor} would go to disk, "
    "but it is computed when the model is built, not stored in its weights, so it cannot be read back; raise the "
    "limits so that it stays on the CPU or an accelerator.",
    "error.offload_no_input_device": "{name!r} cannot run with max_memory ({memory}): its first layer, where "
    "the inputs go, went to disk, which leaves no device to read them on; give the CPU or an accelerator room for "
    "the first layers.",
    # attnviz.notebook.show
    "error.notebook_needs_ipython": "Showing figures inline needs IPython (a Jupyter kernel): {extra}; or pass "
    "display=False and use the figures returned.",
    "error.notebook_option_unknown": "attnviz.show has no option {option!r}; the options are {options}.",
    "error.notebook_needs_ipywidgets": "attnviz.explore needs ipywidgets (the notebook's controls): {extra}; or "
    "use attnviz.show with the options you want.",
    # attnviz.model.policy
    "error.server_refuses_hub_id": "This server does not allow loading {model!r}; ask its operator to add it to "
    "{variable}.",
    "error.server_refuses_folder": "This server does not allow loading models from {folder!r}; only catalogue "
    "models and folders under {variable} are allowed.",
    "error.model_over_size_limit": "{folder!r} has {size:.0f} MB of weights, above this server's limit of "
    "{limit:.0f} MB.",
    # attnviz.model.memory
    "error.text_too_long": "The {what} has {length:,} characters, more than the limit of {limit:,}; shorten it, "
    "or raise the limit with the environment variable {variable}.",
    "error.capture_mode_unknown": "Unknown capture mode {mode!r}; use 'full' or 'lazy'.",
    "error.over_memory_budget": "{what} needs about {needed} of memory, above the budget of {budget}; {advice}, "
    "or raise the budget with the environment variable {variable} (megabytes).",
    "memory.input_text": "text",
    "memory.input_target": "target",
    "memory.capturing": "Capturing {tokens:,} tokens with {model} ({mode} mode)",
    "memory.capturing_pair": "Capturing {tokens:,} tokens and a {target:,}-token target with {model} ({mode} mode)",
    "memory.capturing_batch": "Capturing {batch} texts of up to {tokens:,} tokens with {model} ({mode} mode)",
    "memory.capturing_batch_pair": "Capturing {batch} texts of up to {tokens:,} tokens and a {target:,}-token "
    "target with {model} ({mode} mode)",
    "memory.advice_full": "use fewer tokens, or lazy mode, as the app opens long texts (capture_lazy in Python; "
    "about {lazy} here: queries and keys are kept and a head is computed when it is opened)",
    "memory.advice_lazy": "use fewer tokens",
    # figure export: size and resolution (attnviz.export.sizing)
    "error.export_width": "The figure width must be a whole number of pixels from {low} to {high}; got {value}.",
    "error.export_height": "The figure height must be a whole number of pixels from {low} to {high}; got {value}.",
    "error.export_scale": "The PNG scale must be a number from {low}× to {high}×; got {value}.",
    "error.export_dpi": "The PNG resolution must be from {low} to {high} dpi; got {value}.",
    "error.export_scale_and_dpi": "Give the PNG resolution as a scale or as dpi, not both (got scale {scale} and "
    "{dpi} dpi).",
    "error.export_pixels": "A {width} × {height} px figure at {scale}× would be a PNG of more than {limit} pixels; "
    "make it smaller or lower the scale.",
    "error.export_preset": "There is no print preset called {value!r}; use one of: {choices}.",
    "error.export_preset_width": "The preset {preset!r} sets the width ({width} px); give a height, a scale or dpi "
    "with it, or a width without a preset.",
    # capture files (attnviz.export.schema, attnviz.export.upload)
    "error.capture_not_attnviz": 'This is not an attnviz capture (no "schema": "{schema}"); export it with '
    "attnviz first.",
    "error.capture_schema_version": "This capture uses schema version {version}; this attnviz reads version "
    "{supported}. Save it again with this version of attnviz.",
    "error.capture_no_maps": 'The capture has no "maps" (an object of attention maps by kind); export it again.',
    "error.capture_not_bytes": "A capture upload must be the file's bytes; got {kind}.",
    "error.capture_too_large": "This file is {size} MB; captures up to {limit} MB can be opened here. Save fewer "
    "layers or a shorter text, or open it with the command line.",
    "error.capture_empty": "This file is empty; choose a capture saved by attnviz as .json or .npz.",
    "error.capture_single_npy": "This is a single .npy array, not an attnviz capture; save the capture as .npz.",
    "error.capture_not_utf8": "This file is neither an NPZ archive nor UTF-8 JSON (the bytes at position "
    "{position} are not text); choose a capture saved by attnviz as .json or .npz.",
    "error.capture_truncated": "This {format} file ends too early: it was cut short while being saved or "
    "uploaded. Save or upload it again.",
    "error.capture_bad_json": "This file is not valid JSON ({problem} at line {line}, column {column}); choose a "
    "capture saved by attnviz.",
    "error.capture_too_deep": "This file nests lists too deeply to be an attnviz capture.",
    "error.capture_named_npz": "This file is named .npz but is not an NPZ archive (it does not start as a ZIP "
    "archive does); choose a capture saved by attnviz as .npz or .json.",
    "error.capture_bad_npz": "This is not a complete NPZ archive ({problem}); it may be cut short. Save or upload "
    "it again.",
    "error.capture_unpacked_too_large": "This capture unpacks to {size} MB of weights; up to {limit} MB can be "
    "opened here. Save fewer layers or a shorter text.",
    "error.capture_npz_no_header": 'This NPZ archive has no "header" entry, so it is not an attnviz capture; '
    "save the capture with attnviz.",
    "error.capture_npz_pickle": "The NPZ entry {entry!r} holds Python objects, which could only be read by "
    "running code from the file (pickle); attnviz never does that. Save the capture with attnviz.",
    "error.capture_npz_dtype": "The NPZ entry {entry!r} holds {dtype} values, where attnviz writes numbers "
    "(weights) or text (the header); save the capture with attnviz.",
    "error.capture_bad_shape": "The {kind!r} map's shape must be four whole numbers (layers, heads, queries, "
    "keys); it is {shape}.",
    "error.capture_too_many_layers": "The {kind!r} map has {count} layers; up to {limit} can be opened here.",
    "error.capture_too_many_heads": "The {kind!r} map has {count} heads; up to {limit} can be opened here.",
    "error.capture_too_many_tokens": "The {kind!r} map has {count} tokens in a row; up to {limit} can be opened "
    "here. Capture a shorter text.",
    "error.capture_too_many_steps": "The capture has {count} generation steps; up to {limit} can be opened here.",
    "error.capture_rows_not_normalised": "In the {kind!r} map, layer {layer}, head {head}, query {query}, the "
    "attention weights sum to {total}, not 1 (±{tolerance}): this is not the weights as captured (tokens "
    "hidden without renormalising, or edited). Save the capture itself.",
    "error.capture_step_rows_not_normalised": "At generation step {step}, the {kind} weights of layer {layer}, "
    "head {head} sum to {total}, not 1 (±{tolerance}); save the capture itself.",
    # attnviz.maps.analysis
    "error.index_not_integer_or_list": "A {what} index must be an integer (or a list of them, or None for all); "
    "got {selection!r}.",
    "error.index_none_chosen": "Choose at least one {what}; the map has {count} ({valid}).",
    "error.index_not_integer": "A {what} index must be an integer; got {item!r}.",
    "error.index_missing": "{item} does not exist; the map has {count} ({valid}).",
    "error.map_empty": "This attention map is empty (layers, heads, queries, keys = {shape}); capture a text with "
    "at least one token first.",
    "error.reduction_unknown": "Unknown {what} reduction {reduce!r}; use 'mean' or 'max'.",
    "error.pooling_unknown": "Unknown pooling {pool!r}; use 'max' or 'mean'.",
    "error.downsample_factors": "Downsampling factors must be whole numbers ≥ 1; got {query_factor!r} × "
    "{key_factor!r}.",
    "error.downsample_not_a_matrix": "downsample takes one (queries, keys) matrix of numbers; got shape {shape}.",
    "error.range_not_a_pair": "A {what} range is a pair of integers (start, stop); got {span!r}.",
    "error.range_outside": "The {what} range {start}–{stop} is not inside 0–{size}; give (start, stop) with "
    "start < stop ≤ {size}.",
    "error.hiding_leaves_no_key": "Hiding these tokens would leave no key to show; hide fewer tokens.",
    "error.hiding_leaves_no_query": "Hiding special tokens would leave no query to show; keep special tokens visible.",
    "error.rollout_needs_self_attention": "Rollout needs self-attention (queries are the keys); a {kind!r} map of "
    "{queries}×{keys} tokens has none. Use an encoder or decoder map.",
    "analysis.axis.layer": "layer",
    "analysis.axis.head": "head",
    "analysis.axis.query": "query",
    "analysis.axis.key": "key",
    "analysis.axis.query_row": "query row",
    "analysis.axis_count.layer": "{count} layers",
    "analysis.axis_count.head": "{count} heads",
    "analysis.axis_count.query": "{count} queries",
    "analysis.axis_count.key": "{count} keys",
    "analysis.axis_count.query_row": "{count} query rows",
    "analysis.axis_item.layer": "Layer {index}",
    "analysis.axis_item.head": "Head {index}",
    "analysis.axis_item.query": "Query {index}",
    "analysis.axis_item.key": "Key {index}",
    "analysis.axis_item.query_row": "Query row {index}",
    "analysis.valid_range": "0–{last}, or −{size} to −1 counting from the end",
    # attnviz.view.selection
    "error.stack_unknown": "Unknown stack {stack!r}; use encoder or decoder.",
    "error.view_unknown": "Unknown view {view!r}; use one of {views}.",
    "error.alignment_needs_cross_attention": "Alignment heads are cross-attention heads; show a {kind} map by "
    "head, layer or all instead.",
    "error.figure_unknown": "Unknown figure {figure!r}; use one of {figures}.",
    # attnviz.maps.replay
    "error.step_past_end": "Step {step} is not in this map: it has {steps} rows written (target tokens, or words "
    "in the word view); choose 1–{steps}, or 0 for all.",
    "error.step_not_replayed": "The replay step applies to what a decoder writes (cross-attention or a decoder's "
    "self-attention); the {kind} map reads its whole text at once. Leave the step at 0.",
    # attnviz.cli
    "error.cli_index_list": "--{option} takes an index, a comma-separated list (0,2) or 'all'; got {value!r}.",
    "error.cli_generate_positive": "--generate takes a positive number of tokens.",
    "error.cli_beams_need_generate": "--beams sets how the model writes: give it with --generate N.",
    "error.cli_target_or_generate": "Give either --target (force-decode a given target) or --generate (let the "
    "model write).",
    "error.cli_input_with_target": "With --input, put each target after a tab on its line instead of using --target.",
    "error.cli_input_with_gold": "With --input, put each pair's gold links in a third column of its line instead "
    "of using --gold.",
    "error.cli_input_columns": "Expected text, text<TAB>target or text<TAB>target<TAB>links; columns found: {count}.",
    "error.cli_input_target_and_generate": "This line gives a target, and --generate lets the model write one: "
    "drop the target from the line, or --generate.",
    "error.cli_output_named_as_a_file": "With --input, --output names a folder for one file per line; {path} is "
    "named like a file. Give a folder (and --format {format} for the files' format).",
    "error.cli_scale_positive": "--scale must be positive.",
    "error.cli_threshold_range": "--threshold must lie in [0, 1).",
    "error.cli_top_k_positive": "--top-k must be at least 1.",
    "error.cli_step_negative": "--step takes a number of target tokens, 0 for all.",
    "error.cli_input_missing": "--input {path} does not exist.",
    "error.cli_input_not_text": "--input {path} is not a UTF-8 text file ({detail}).",
    "error.cli_input_empty": "--input {path} has no non-empty lines.",
    "error.cli_output_is_a_file": "With --input, --output names a folder; {path} is a file.",
    "error.cli_output_exists": "{path} already exists; pass --force to replace.",
    "error.cli_outputs_exist": "{path} (and {more} more) already exists; pass --force to replace.",
    "error.cli_format_unknown": "Cannot tell the format from {path}; end it with {suffixes} or pass --format.",
    "error.cli_format_suffix": "{path} names another format than the {format} this writes: end it with .{format}, "
    "or pass the --format it names.",
    "error.cli_one_index": "With --aggregation, --{option} takes one index; got {value!r}.",
    "error.cli_input_line": "line {line} of {path}: {error}",
    "cli.line": "line {line}: ",
    # argparse's own messages, said in Chinese under --lang zh (`attnviz.cli._Parser`); in English as argparse says them
    "cli.argparse.argument": "argument {name}: {message}",
    "cli.argparse.invalid_choice": "invalid choice: {value} (choose from {choices})",
    "cli.argparse.invalid_value": "invalid {type} value: {value}",
    "cli.argparse.expected_one": "expected one argument",
    "cli.argparse.not_allowed_with": "not allowed with argument {other}",
    "cli.argparse.required": "the following arguments are required: {names}",
    "cli.argparse.unrecognized": "unrecognized arguments: {names}",
    "cli.argparse.see_help": " (see {prog} --help)",
    "cli.written": "{count} files in {folder}",
    "cli.skipped": "; {count} lines skipped (said above)",
    "cli.capture_too_large": "This {format} file is {size}: the app's “Open a capture” takes files of at most "
    "{limit}. NPZ is several times smaller than JSON; fewer tokens shrink it by their square.",
    "cli.ignored": "{option} changes nothing in this figure and is not applied: {why}",
    "cli.ignored.alignment": "--aggregation alignment shows the model's alignment heads.",
    "cli.ignored.all": "--aggregation all shows the mean of every head of every layer.",
    "cli.ignored.rollout": "--aggregation rollout rolls through --rollout-layers, every head of each.",
    "cli.ignored.layer": "--aggregation layer shows the mean of every head of --layer.",
    "cli.ignored.not_rollout": "they are options of --aggregation rollout.",
    "cli.ignored.gold": "gold links are drawn and scored over --view alignment.",
    "cli.ignored.top_k": "links per target token are drawn by --view alignment.",
    "cli.ignored.threshold": "the smallest weight drawn is an option of --view alignment and lines.",
    "cli.ignored.log_scale": "a logarithmic colour scale is an option of --view heatmap.",
    "cli.ignored.color_scale": "colour scales are options of --view heatmap and grid.",
    "cli.ignored.vector": "they set a PNG's pixels; SVG, PDF and HTML are drawn at any size.",
    "cli.ignored.html_engine": "an HTML file is the interactive figure itself, drawn by no engine.",
    "error.cli_top_negative": "--top takes 0 (every head) or more.",
    "error.cli_occurrence_positive": "--occurrence counts from 1 (the first copy of the token).",
    # the app (app_pages)
    "error.custom_models_off": "This app only offers the models listed in the sidebar; {model!r} is not one of them.",
    "error.mode_unknown": "Unknown mode {mode!r}; use one of {modes}.",
    "error.target_empty": "The target is empty; type the translation to force-decode, or let the model generate it.",
    "error.matrix_cell_not_a_number": "Every cell of {name} must be a number; clear the cell or type a number.",
    "error.matrix_wrong_shape": "{name} must have {rows} rows and {columns} columns; it has shape {shape}.",
    "error.matrix_cell_empty": "Every cell of {name} must be a number; an empty cell is not.",
    "error.walkthrough_size_too_small": "The {what} must be at least 1.",
    "error.walkthrough_heads_do_not_divide": "A hidden size of {hidden} cannot be split into {heads} heads; pick "
    "a divisor of {hidden}.",
    "walkthrough_size.batch": "batch size",
    "walkthrough_size.length": "length",
    "walkthrough_size.hidden": "hidden size",
    "walkthrough_size.heads": "number of heads",
    # figure and capture export, fonts, figures (attnviz.export, attnviz.figures.fonts, attnviz.figures)
    "error.export_engine_unknown": "Unknown export engine {engine!r}; use one of {engines}.",
    "error.export_needs_browser": "The kaleido engine needs Chrome or Chromium (e.g. apt install chromium, or set "
    "BROWSER_PATH); the static engine exports without a browser (--engine static on the command line, "
    "engine='static' in Python).",
    "error.export_chromium_failed": "Chromium could not render the figure ({detail}); the static engine draws it "
    "without a browser (--engine static on the command line, engine='static' in Python).",
    "error.export_figure_format": "Cannot export a figure as {fmt!r}; use one of {formats}.",
    "error.export_format_unknown": "Cannot tell what to write from {where}; use one of: {formats}.",
    "export_where.format": "format {fmt!r}",
    "export_where.suffix": "the suffix of {path!r}",
    "error.file_exists": "{path} already exists; choose another name or allow overwriting (--force).",
    "error.file_is_folder": "{path} is a folder; give a file name.",
    "error.capture_wrong_type": "Expected an AttentionCapture or AttentionMap to export; got {kind}.",
    "error.capture_bad_token": "A token must be {{'text': str, 'start': int, 'end': int, 'special': bool}}; got "
    "{token}.",
    "error.capture_damaged": "{what} is incomplete or damaged ({detail}); export it again with attnviz.",
    "error.capture_steps_not_a_list": 'The capture\'s "steps" must be a list (one entry per generated token) or null.',
    "error.capture_part_not_an_object": 'The capture\'s "{name}" must be an object.',
    "error.capture_target_text_not_a_string": 'The capture\'s "target_text" must be a string or null.',
    "error.capture_weights_dimensions": "{where} must have {ndim} dimensions; it has shape {shape}.",
    "error.capture_weights_not_finite": "{where} hold NaN, infinite or negative values; attention weights are "
    "finite and ≥ 0.",
    "error.capture_shape_mismatch": "The {kind!r} weights have shape {shape}, but the header says {header}.",
    "error.capture_layer_names": "The {kind!r} map's layer_names must be a list of strings.",
    "error.capture_not_npz": "This is not an NPZ archive ({problem}); export the capture again as .npz.",
    "error.capture_data_format": "Cannot export attention data as {fmt!r}; use one of {formats}.",
    "error.capture_file_missing": "{path} does not exist or is not a file.",
    "error.capture_file_bad_json": "{path} is not valid JSON ({problem}).",
    "error.capture_is_csv_header": "This is the header written beside the CSV {csv}; a CSV does not load back: "
    "save the capture as .json or .npz to open it.",
    "error.capture_file_too_deep": "{path} nests too deeply to be an attnviz capture.",
    "capture_part.capture": "The capture",
    "capture_part.npz_capture": "The NPZ capture",
    "capture_part.map_weights": "The {kind!r} weights",
    "capture_part.step_self_weights": "Step {index}'s self-attention weights",
    "capture_part.step_cross_weights": "Step {index}'s cross-attention weights",
    "error.stamp_format": "Cannot stamp provenance into {fmt!r}; stamp png, pdf or svg (HTML carries its own).",
    "error.stamp_not_png": "This is not a PNG file.",
    "error.stamp_not_svg": "This is not an SVG file (it has no <svg> element).",
    "error.stamp_read_format": "Cannot read provenance from {fmt!r}; read png, pdf, svg or html.",
    "error.static_trace_unsupported": "Static export draws heatmap, scatter and bar traces, not {trace!r}; "
    "export this figure with engine='kaleido' (needs Chrome/Chromium).",
    "error.static_format": "Static export writes png, svg or pdf, not {fmt!r}.",
    "error.cjk_font_not_a_file": "The CJK font {path} ({variable}) is not a font file; point the setting at a "
    ".otf/.ttf or unset it.",
    "error.cjk_font_missing": "Chinese text needs a CJK font for static export: pip install pylopdf-fonts-zh-cn "
    "(Noto Sans SC), or set {variable} to a .otf/.ttf with Chinese.",
    "error.figure_language_unknown": "Unknown language {lang!r}; use one of {languages}.",
    "error.figure_kind_unknown": "Unknown map kind {kind!r}; use self, encoder, decoder or cross.",
    "error.figure_count": "{name} must be a whole number ≥ {minimum}; got {value!r}.",
    "error.figure_link_threshold": "The link threshold must lie between 0 and 1; got {threshold}.",
    "error.figure_top_k": "top_k must be at least 1 (or None for every link); got {top_k}.",
    "error.mixture_not_pairs": "Give the mixture as (key name, weight) pairs, e.g. [('鹿', 0.5), ('牛', 0.5)].",
    "error.mixture_weights": "Mixture weights must be finite, non-negative and sum to 1 like an attention row; "
    "got {weights}.",
    "error.mixture_contributions": "Give one contribution per key ({keys}), finite, non-negative and summing to 1; "
    "received {contributions}.",
    "error.statistic_unknown": "Unknown head statistic {statistic!r}; use one of {statistics}.",
    "error.statistic_grid_needs_input": "statistic_grid needs an attention map, or statistics already computed "
    "(values=).",
    "error.statistic_not_in_values": "values holds no {statistic!r}; pass the dict that head_statistics returns "
    "(it has every statistic).",
    "error.statistic_values_shape": "values[{statistic!r}] must be a (layers, heads) array of numbers; got shape "
    "{shape}.",
    "error.statistic_undefined": "{statistic!r} is not defined for {attention} (queries and keys are different "
    "sequences); choose entropy, sink or diagonal.",
    "figure.kind_attention": "{kind} attention",
    "figure.this_attention": "this attention",
    "error.pooled_shape_mismatch": "The pooled values have shape {shape}, but {queries} × {keys} tokens in blocks "
    "of {query_factor} × {key_factor} make {rows} × {columns}; pass the tokens of the map that was pooled.",
    "error.heatmap_log_floor": "The log-scale floor must be a positive weight such as 1e-4.",
    "error.heatmap_zmax": "zmax must be a positive weight (or None to use the largest); got {zmax!r}.",
    "error.selected_ranges_not_a_heatmap": "selected_ranges needs a figure made by attnviz.figures.heatmap.",
    "error.lines_threshold": "The line threshold must lie strictly between 0 and 1; got {threshold}.",
    "error.lines_combine": "combine must be None, 'mean' or 'max'; got {combine!r}.",
    "error.lines_query_missing": "Query {query} does not exist; the map has {count} query tokens.",
    # attention capture and maths, the data types (attnviz.attention, attnviz.types)
    "error.texts_none": "No texts given; pass at least one.",
    "error.target_side_missing": "{model} has no target side (its kind is {kind}); give only the text, or "
    "choose a translation (encoder-decoder) model for a pair.",
    "error.targets_count": "Got {texts} texts but {targets} targets; give one target per text.",
    "error.decoder_start_missing": "This encoder-decoder model has no decoder_start_token_id in its config.",
    "error.weights_not_finite": "Attention weights must be finite and non-negative; these hold NaN, ∞ or "
    "negative values (check the model's dtype, or the file they came from).",
    "error.text_not_a_string": "The {what} must be a string, not {kind}.",
    "error.text_empty": "The {what} is empty; type a sentence to see its attention.",
    "error.text_broken_characters": "The {what} holds broken characters (unpaired UTF-16 surrogates); paste it "
    "again as text.",
    "error.text_no_tokens": "The {what} gives no tokens for {model}; type words the model's tokenizer knows.",
    "error.text_too_many_tokens": "The {what} has {count} tokens but {model} accepts at most {limit}; shorten "
    "it, or keep its first {limit} tokens (--truncate on the command line, the page's toggle, truncate=True in "
    "Python).",
    "error.generate_needs_decoder": "{model} is an encoder-only model and cannot generate text; capture its "
    "attention without --generate.",
    "error.max_new_tokens_invalid": "max_new_tokens must be a positive whole number, not {value!r}.",
    "error.generate_replay_differs": "Replaying the text beam search chose for {model} wrote something else; "
    "nothing is shown rather than steps the model did not take. Ask for greedy decoding instead (num_beams=1; "
    "on the command line, --beams 1).",
    "error.num_beams_invalid": "The number of beams must be a whole number from 1 (greedy) to {limit}, not {value!r}.",
    # attnviz.measures: the logit lens and DecoderLens
    "error.lens_no_next_token": "{model} has no output embedding, so it predicts no next token: the logit lens "
    "needs a decoder-only model or a translator.",
    "error.lens_no_layers": "The logit lens found no list of layers in {stack}; it reads models whose stacks hold "
    "their layers in one list (layers, h, block).",
    "error.lens_head_differs": "The logit lens cannot reproduce {model}'s own output from its last layer (they "
    "differ by {difference:.2g}): its head does more than a final norm and an output embedding, so no layer is "
    "shown rather than wrong ones.",
    "error.lens_top_k_invalid": "The number of top tokens must be a whole number from 1 to {limit}, not {value!r}.",
    "error.lens_nothing_written": "{model} wrote nothing for this text, so its decoder has no position to read; "
    "give the translation with --target.",
    "error.decoder_lens_needs_translator": "DecoderLens needs an encoder-decoder model (a translator); {model} is "
    "not one (its kind is {kind}).",
    "error.lens_figure_shape": "The lens figure got values of shape {shape} for {layers} layers and {positions} "
    "positions; give one value and one token per layer and position.",
    "error.decoder_lens_layer_missing": "There is no encoder layer {layer!r} to read; give 0 (the embeddings) to "
    "{last}.",
    "error.layer_heads_do_not_divide": "hidden_size {hidden} must be a positive multiple of num_heads {heads}.",
    "error.layer_kv_heads_do_not_divide": "num_heads {heads} must be a multiple of num_kv_heads {kv_heads} "
    "(grouped-query attention).",
    "error.mask_type_unknown": "Unknown mask_type {mask_type!r}; use one of {choices}.",
    "error.layer_inputs_shape": "Inputs must be (batch, length, hidden) with one batch size; got {hidden_shape} "
    "and {source_shape}.",
    "error.causal_mask_on_cross": "A causal mask applies to self-attention; use mask_type='none' or 'padding' "
    "for cross.",
    "error.padding_mask_missing": "mask_type='padding' needs padding_mask (batch, keys), True for real tokens.",
    "error.padding_mask_shape": "padding_mask has shape {shape}; it must be (batch, keys) = ({batch}, {keys}).",
    "error.kv_heads_do_not_divide": "The query has {heads} heads and key/value {kv_heads}; the query's head "
    "count must be a multiple of the key/value head count (grouped-query attention).",
    "error.split_heads_input_shape": "multi_head_split takes (batch, length, hidden); got shape {shape}.",
    "error.merge_heads_input_shape": "multi_head_merge takes (batch, heads, length, head_dim); got shape {shape}.",
    "error.causal_alignment_unknown": "Unknown causal alignment {alignment!r}; use 'top_left' or 'bottom_right'.",
    "error.mask_dtype": "The attention mask has dtype {dtype}; pass a bool mask (True = attend) or a float mask "
    "added to the scores.",
    "error.mask_not_addable": "A mask or bias of shape {shape} cannot be added to scores of shape {scores}; it "
    "must end in ({queries}, {keys}) or (1, {keys}).",
    "error.qkv_dimensions": "q, k and v must have the same number of dimensions (at least 2); got shapes "
    "{query}, {key}, {value}.",
    "error.qkv_sizes": "q {query} and k {key} need the same feature size, and k and v {value} the same length.",
    "error.npu_kernel_unavailable": "The npu attention kernel needs torch_npu and an Ascend NPU: {reason} Run on "
    "CPU or CUDA instead, or install torch_npu with CANN on an Ascend machine.",
    "error.npu_mask_shape": "The attention mask has shape {shape}; it must end in ({queries}, {keys}) or (1, "
    "{keys}) and broadcast to (batch, heads, {queries}, {keys}).",
    "error.npu_not_bnsd": "{name} has shape {shape}; pass 4-d tensors laid out (batch, heads, seq, head_dim).",
    "error.npu_query_key_mismatch": "query {query} and key {key} must share batch size and head_dim.",
    "error.npu_key_value_mismatch": "key {key} and value {value} must share batch, heads and length.",
    "error.npu_bias_with_zero_scale": "A float attention bias cannot be passed to the npu kernel with scale 0; "
    "use scale > 0.",
    "error.max_tokens_too_small": "max_tokens must be at least 1.",
    "error.dtype_no_policy": "No dtype policy for device {device!r}; use cpu, cuda, mps or npu.",
    "error.dtype_unknown": "Unknown dtype {dtype!r}; use float32, float16 or bfloat16.",
    "error.dtype_not_allowed": "{dtype} is not allowed on {device}; use {allowed} there (half precision is for "
    "npu and cuda, and on the CPU for comparing precisions only).",
    "error.walkthrough_not_numbers": "{name} must be a matrix of numbers (a list of equally long rows); {value!r} "
    "is not.",
    "error.walkthrough_not_a_matrix": "{name} must be a matrix (rows × columns); got {ndim} dimensions, shape {shape}.",
    "error.walkthrough_empty": "{name} is empty (shape {shape}); give at least one row and one column.",
    "error.walkthrough_not_finite": "{name} has {value} at row {row}, column {column}; every cell must be a "
    "finite number.",
    "error.walkthrough_q_k_width": "Q and K need the same width to be multiplied; got Q {q} and K {k}.",
    "error.walkthrough_k_v_rows": "K and V need one row per key; got K {k} and V {v}.",
    "error.walkthrough_overflow": "Q·Kᵀ overflows with numbers this large; use values below about 1e150.",
    "error.map_kind_unknown": "Unknown attention map kind {kind!r}; use one of {kinds}.",
    "error.map_dimensions": "Attention weights must have 4 dimensions (layers, heads, queries, keys); got shape "
    "{shape}.",
    "error.map_tokens_mismatch": "Weights of shape {shape} do not match {queries} query tokens and {keys} key "
    "tokens; pass one token per query row and per key column.",
    "error.map_layer_names": "Weights have {layers} layers but {names} layer names were given.",
    "error.capture_numbers": "The {kind} map's layer or head numbers must be a list of whole numbers from 0.",
    "error.grid_layer_titles": "layer_titles must be 'numbers' or 'names', not {given!r}.",
    "error.map_numbers": "{what} names {given} layers or heads, but the weights hold {count}.",
    "error.capture_no_map": "This capture has no {kind!r} map; it has {kinds}.",
    # attnviz.compare
    "error.compare_kinds_differ": "Map A is {kind_a} attention and map B is {kind_b} attention: their rows and "
    "columns are different tokens, so they cannot be compared; pick maps of the same kind (--kind, --kind-b).",
    "error.compare_heads_differ": "Map A has {heads_a} heads per layer and map B has {heads_b}: pair the heads "
    "(--pair-heads) to compare models whose heads differ.",
    "error.compare_nothing_matched": "A and B share no word, so no row of one can be set beside a row of the "
    "other; compare texts that have words in common.",
    "error.compare_parity_tokens": "A parity check reads one input twice, but A ({shape_a}) and B ({shape_b}) "
    "have different tokens; compare them word by word instead.",
    "error.compare_text_empty": "Text B is empty; give B a sentence (--text-b), or leave --text-b out to read "
    "A's text.",
    "error.compare_model_unread": "Text B is written in {script}, which model B ({model}) does not read (it reads "
    "{languages}); give B a text in a language it reads, or another model.",
    "error.compare_format": "{path!r}: a comparison is written as {formats}; name the file with one of these suffixes.",
    "error.compare_index": "--{option} takes one index (0, 1, …); got {value!r}.",
    "error.compare_figure_table": "{path!r} is the ranking table; --figure {figure} draws a figure: name the file "
    "{formats}.",
    "capture_maps.none": "none",
    # attnviz.measures.alti
    "error.alti_architecture": "ALTI cannot decompose {model!r} (a {model_type} model): attnviz knows the "
    "attention blocks of {supported} only. Use attention weights or value norms for this model.",
    "error.alti_block_unknown": "ALTI found an attention module it cannot place in a block ({block}); its "
    "contributions would not be exact, so none are shown. Use attention weights for this model.",
    "error.alti_block_mismatch": "ALTI's decomposition of {block} does not add up to what the model computed "
    "(off by {error}); this block differs from the architecture attnviz knows, so no contributions are shown.",
    "error.alti_offloaded_weights": "ALTI reads every layer's weights, but {model} keeps some on disk or offloaded "
    "({parameter}); load it onto one device (no max memory or offload folder) to see its contributions.",
    "error.alti_method_unknown": "Unknown contribution method {method!r}; use one of {methods}.",
    "analysis.axis.query_range_end": "query range end",
    "analysis.axis_count.query_range_end": "{count} query range ends",
    "analysis.axis_item.query_range_end": "Query range end {index}",
    # head effects (attnviz.measures.head_effects)
    "error.head_effects_no_projection": "attnviz cannot find the output projection of {module} in {model}, so it "
    "cannot remove one head's output there; head effects are not available for this architecture.",
    "error.head_effects_projection_input": "The input of {module}'s output projection is not the heads' outputs "
    "side by side ({width} wide); head effects are not available for this architecture.",
    "error.head_effects_shared_layers": "{model} runs {module} more than once in a pass (layers that share their "
    "weights): removing one head there would remove it from every run, so head effects are not available.",
    "error.head_effects_no_target": "{model} gives no target tokens to measure here; give a target text.",
}
