"""The sentences of attnviz's errors in 中文; `attnviz.i18n.errors` joins both languages."""

STRINGS: dict[str, str] = {
    "error_SettingError": "设置有误",
    # attnviz.settings
    "error.setting_in_environment": "环境变量 {variable}={value!r} 无效：{accepts}。",
    "error.setting_in_secrets": "{file} 中的设置 {key} = {value!r} 无效：{accepts}。",
    "error.secrets_unreadable": "{file} 不是可读的 TOML 文件：{detail}",
    "error.secrets_not_a_table": "{file} 中的 [{table}] 必须是一张设置表（例如 server_mode = true）。",
    "error.secrets_unknown_key": "{file} 的 [attnviz] 中有未知设置 {key!r}；可用的设置有 {known}。",
    # attnviz.model.devices
    "error.device_unknown": "未知设备 {device!r}；请使用 auto、npu、npu:N、cuda、cuda:N、mps 或 cpu。",
    "error.device_unavailable": "设备 {device!r} 不可用：{reason}请改选 auto 或 cpu。",
    "error.device_missing": "设备 {device!r} 不存在：本机有 {count} 个 {kind} 设备，编号为 0 到 {last}。",
    "error.placement_device_unavailable": "放置方案把若干层放到 {device!r} 上，但本机没有这个设备：{reason}"
    "请从设备映射和内存上限中去掉 {device!r}，或在有这个设备的机器上运行。",
    "error.placement_no_accelerator": "放置方案把若干层放到加速卡 {device!r} 上，但本机没有加速卡：NPU：{npu}"
    "CUDA：{cuda}请只把层放到 cpu 和 disk 上。",
    # attnviz.model.load
    "error.model_not_given": "没有指定模型；请从模型列表中选择，或给出 Hugging Face 模型名或本地文件夹。",
    "error.model_is_file": "{name!r} 是一个文件；请给出存放 config.json 和权重的文件夹。",
    "error.model_folder_missing": "{name!r} 处没有模型文件夹；请检查路径，或从模型列表中选择一个模型。",
    "error.model_no_config": "{folder!r} 中没有 config.json，不是 Hugging Face 模型文件夹。",
    "error.model_pickle_only": "{folder!r} 只有 pickle 格式的权重（.bin/.pt），加载时可能执行其中的代码；"
    "请先转换为 safetensors，如果信任这个文件夹，也可以设置 {variable}=1。",
    "error.model_no_weights": "{folder!r} 中没有权重文件（*.safetensors）。",
    "error.model_folder_unloadable": "无法加载模型文件夹 {name!r}（文件是否完整、有没有损坏？）：{detail}",
    "error.model_hub_unloadable": "无法从 Hugging Face Hub 或本地缓存（{cache}）加载 {name!r}：Hub 无法访问，"
    "或者模型名有误。请在能联网的地方下载，或者给出本地文件夹。（{detail}）",
    # attnviz.model.objects（调用者手里的模型对象）和 load_model 的设备映射
    "error.model_object_not_transformers": "{kind} 不是 Hugging Face Transformers 模型；请给出 PreTrainedModel"
    "（或包着它的 PEFT 模型），或者给 load_model 一个模型名或文件夹。",
    "error.model_object_unsupported": "attnviz 看不到 {kind} 的注意力：它的层不调用 transformers 的注意力接口；"
    "请换一个走这个接口的架构（Llama、Qwen2、BERT、BART、T5 等）。",
    "error.tokenizer_object_invalid": "{kind} 不是分词器；请给出训练这个模型时用的分词器。",
    "error.tokenizer_too_large": "这个分词器有 {tokens:,} 个词元，而 {model!r} 只认识 {rows:,} 个；请给出与模型配套的分词器。",
    "error.tokenizer_special_differs": "这个分词器的 {token} 词元编号是 {tokenizer_id}，而 {model!r} 期望 {model_id}；"
    "请给出与模型配套的分词器。",
    "error.max_memory_too_small": "{name!r} 放不进 max_memory（{memory}）；请调高上限、把 cpu 加进去，"
    "或者给出一个卸载文件夹存放放不下的层。",
    "error.device_map_invalid": "设备映射 {value!r} 无法使用：请用 {names} 之一，或把模块路径映射到位置的 JSON。",
    "error.device_map_place": "设备映射 {value!r} 无法使用：{place!r} 不是位置；请用 npu:N、cuda:N、cpu 或 disk。",
    "error.max_memory_size": "内存上限 {value!r} 无法使用：{size!r}（{place} 的）不是大小；请写成 30GiB 这样的形式。",
    "error.max_memory_place": "内存上限 {value!r} 无法使用：{place!r} 不是位置；请用 npu:N、cuda:N、cpu 或 disk。",
    "error.offload_unreadable": "在 max_memory（{memory}）下无法运行 {name!r}：{tensor} 会被放到磁盘上，"
    "但它是在构建模型时算出来的，并不存放在权重文件里，因此读不回来；请调高上限，让它留在 CPU 或加速卡上。",
    "error.offload_no_input_device": "在 max_memory（{memory}）下无法运行 {name!r}：输入送往的第一层被放到了"
    "磁盘上，没有设备可以读入输入；请给 CPU 或加速卡留出放前几层的空间。",
    # attnviz.notebook.show
    "error.notebook_needs_ipython": "在笔记本里直接显示图需要 IPython（Jupyter 内核）：{extra}；"
    "或者传入 display=False，使用返回的图。",
    "error.notebook_option_unknown": "attnviz.show 没有选项 {option!r}；可用的选项有 {options}。",
    "error.notebook_needs_ipywidgets": "attnviz.explore 需要 ipywidgets（笔记本里的控件）：{extra}；"
    "或者用 attnviz.show 并传入想要的选项。",
    # attnviz.model.policy
    "error.server_refuses_hub_id": "此服务器不允许加载 {model!r}；请联系管理员把它加入 {variable}。",
    "error.server_refuses_folder": "此服务器不允许从 {folder!r} 加载模型；只能加载模型列表中的模型，"
    "以及 {variable} 所列目录下的文件夹。",
    "error.model_over_size_limit": "{folder!r} 的权重有 {size:.0f} MB，超过了此服务器 {limit:.0f} MB 的上限。",
    # attnviz.model.memory
    "error.text_too_long": "{what}有 {length:,} 个字符，超过了 {limit:,} 的上限；请缩短，"
    "或用环境变量 {variable} 提高上限。",
    "error.capture_mode_unknown": "未知的捕获模式 {mode!r}；请使用 'full' 或 'lazy'。",
    "error.over_memory_budget": "{what}大约需要 {needed} 内存，超出了 {budget} 的预算；{advice}，"
    "或用环境变量 {variable}（单位 MB）提高预算。",
    "memory.input_text": "文本",
    "memory.input_target": "目标文本",
    "memory.capturing": "用 {model}（{mode} 模式）捕获 {tokens:,} 个词元",
    "memory.capturing_pair": "用 {model}（{mode} 模式）捕获 {tokens:,} 个词元和 {target:,} 个词元的目标文本",
    "memory.capturing_batch": "用 {model}（{mode} 模式）捕获 {batch} 段文本，每段至多 {tokens:,} 个词元，",
    "memory.capturing_batch_pair": "用 {model}（{mode} 模式）捕获 {batch} 段文本，每段至多 {tokens:,} 个词元，"
    "目标文本 {target:,} 个词元，",
    "memory.advice_full": "请减少词元，或像应用打开长文本那样改用 lazy 模式（Python 中用 capture_lazy；这里约需 {lazy}：只保留查询和键，打开某个头时才计算它）",
    "memory.advice_lazy": "请减少词元",
    # training (the corpus, the translators and the decoder)
    "error.export_width": "图的宽度必须是 {low} 到 {high} 之间的整数像素；收到的是 {value}。",
    "error.export_height": "图的高度必须是 {low} 到 {high} 之间的整数像素；收到的是 {value}。",
    "error.export_scale": "PNG 缩放倍数必须在 {low}× 到 {high}× 之间；收到的是 {value}。",
    "error.export_dpi": "PNG 分辨率必须在 {low} 到 {high} dpi 之间；收到的是 {value}。",
    "error.export_scale_and_dpi": "PNG 分辨率请用缩放倍数或 dpi 其中一种给出，不要同时给（收到缩放 {scale} 和 "
    "{dpi} dpi）。",
    "error.export_pixels": "{width} × {height} 像素的图放大 {scale}× 后，PNG 会超过 {limit} 像素；请把图改小或降低"
    "缩放倍数。",
    "error.export_preset": "没有名为 {value!r} 的打印预设；可用的有：{choices}。",
    "error.export_preset_width": "预设 {preset!r} 已经规定了宽度（{width} 像素）；可以同时指定高度、缩放倍数或 "
    "dpi，或者不用预设、直接给宽度。",
    "error.capture_not_attnviz": '这不是 attnviz 的捕获文件（没有 "schema": "{schema}"）；请先用 attnviz 导出。',
    "error.capture_schema_version": "这个捕获文件使用第 {version} 版格式；当前的 attnviz 只读第 {supported} 版。"
    "请用这个版本的 attnviz 重新保存。",
    "error.capture_no_maps": '捕获文件里没有 "maps"（按类型存放的注意力图）；请重新导出。',
    "error.capture_not_bytes": "上传的捕获必须是文件的字节内容；收到的是 {kind}。",
    "error.capture_too_large": "这个文件有 {size} MB；这里最多能打开 {limit} MB 的捕获。请少存几层、换一段更短的"
    "文本，或者用命令行打开。",
    "error.capture_empty": "这个文件是空的；请选择 attnviz 保存的 .json 或 .npz 捕获文件。",
    "error.capture_single_npy": "这是单个 .npy 数组，不是 attnviz 的捕获文件；请把捕获保存为 .npz。",
    "error.capture_not_utf8": "这个文件既不是 NPZ 压缩包，也不是 UTF-8 编码的 JSON（第 {position} 个字节起不是"
    "文本）；请选择 attnviz 保存的 .json 或 .npz 文件。",
    "error.capture_truncated": "这个 {format} 文件提前结束了：保存或上传时被截断。请重新保存或上传。",
    "error.capture_bad_json": "这个文件不是有效的 JSON（第 {line} 行第 {column} 列：{problem}）；请选择 attnviz "
    "保存的捕获文件。",
    "error.capture_too_deep": "这个文件的列表嵌套太深，不可能是 attnviz 的捕获文件。",
    "error.capture_named_npz": "这个文件名为 .npz，却不是 NPZ 压缩包（开头不是 ZIP 压缩包的格式）；请选择 attnviz "
    "保存的 .npz 或 .json 捕获文件。",
    "error.capture_bad_npz": "这不是完整的 NPZ 压缩包（{problem}），可能被截断了。请重新保存或上传。",
    "error.capture_unpacked_too_large": "这个捕获解压后有 {size} MB 的权重；这里最多能打开 {limit} MB。请少存几层"
    "或换一段更短的文本。",
    "error.capture_npz_no_header": '这个 NPZ 压缩包没有 "header" 条目，所以不是 attnviz 的捕获文件；请用 attnviz '
    "保存。",
    "error.capture_npz_pickle": "NPZ 条目 {entry!r} 里存的是 Python 对象，只有执行文件里的代码（pickle）才能读出；"
    "attnviz 从不这样做。请用 attnviz 保存捕获。",
    "error.capture_npz_dtype": "NPZ 条目 {entry!r} 里存的是 {dtype} 类型的值，而 attnviz 写入的是数字（权重）或"
    "文本（文件头）；请用 attnviz 保存捕获。",
    "error.capture_bad_shape": "{kind!r} 图的形状必须是四个整数（层、头、查询、键）；这里是 {shape}。",
    "error.capture_too_many_layers": "{kind!r} 图有 {count} 层；这里最多能打开 {limit} 层。",
    "error.capture_too_many_heads": "{kind!r} 图有 {count} 个头；这里最多能打开 {limit} 个。",
    "error.capture_too_many_tokens": "{kind!r} 图的一条词元序列有 {count} 个词元；这里最多能打开 {limit} 个。"
    "请捕获更短的文本。",
    "error.capture_too_many_steps": "这个捕获有 {count} 个生成步骤；这里最多能打开 {limit} 个。",
    "error.capture_rows_not_normalised": "在 {kind!r} 图的第 {layer} 层、第 {head} 头、第 {query} 个查询处，注意力"
    "权重之和是 {total}，而不是 1（允许误差 ±{tolerance}）：这不是原样捕获的权重（隐藏了词元却没有重新归一化，"
    "或被手动改过）。请保存捕获本身。",
    "error.capture_step_rows_not_normalised": "在第 {step} 个生成步骤，第 {layer} 层、第 {head} 头的 {kind} 权重"
    "之和是 {total}，而不是 1（允许误差 ±{tolerance}）；请保存捕获本身。",
    # attnviz.maps.analysis
    "error.index_not_integer_or_list": "{what}的编号必须是整数（或整数列表，None 表示全部）；收到的是 {selection!r}。",
    "error.index_none_chosen": "请至少选择一个{what}；这张图有 {count}（{valid}）。",
    "error.index_not_integer": "{what}的编号必须是整数；收到的是 {item!r}。",
    "error.index_missing": "{item}不存在；这张图有 {count}（{valid}）。",
    "error.map_empty": "这张注意力图是空的（层、头、查询、键 = {shape}）；请先捕获至少含一个词元的文本。",
    "error.reduction_unknown": "未知的{what}合并方式 {reduce!r}；请使用 'mean' 或 'max'。",
    "error.pooling_unknown": "未知的汇聚方式 {pool!r}；请使用 'max' 或 'mean'。",
    "error.downsample_factors": "降采样倍数必须是不小于 1 的整数；收到的是 {query_factor!r} × {key_factor!r}。",
    "error.downsample_not_a_matrix": "downsample 需要一个由数字组成的（查询, 键）矩阵；收到的形状是 {shape}。",
    "error.range_not_a_pair": "{what}范围必须是一对整数 (start, stop)；收到的是 {span!r}。",
    "error.range_outside": "{what}范围 {start}–{stop} 不在 0–{size} 之内；请给出满足 start < stop ≤ {size} 的 "
    "(start, stop)。",
    "error.hiding_leaves_no_key": "隐藏这些词元后就没有可显示的键了；请少隐藏一些词元。",
    "error.hiding_leaves_no_query": "隐藏特殊词元后就没有可显示的查询了；请保留特殊词元。",
    "error.rollout_needs_self_attention": "注意力展开（rollout）需要自注意力（查询就是键）；{queries}×{keys} 个词元的 "
    "{kind!r} 图不是自注意力。请使用编码器或解码器的图。",
    "analysis.axis.layer": "层",
    "analysis.axis.head": "头",
    "analysis.axis.query": "查询",
    "analysis.axis.key": "键",
    "analysis.axis.query_row": "查询行",
    "analysis.axis_count.layer": "{count} 层",
    "analysis.axis_count.head": "{count} 个头",
    "analysis.axis_count.query": "{count} 个查询",
    "analysis.axis_count.key": "{count} 个键",
    "analysis.axis_count.query_row": "{count} 个查询行",
    "analysis.axis_item.layer": "第 {index} 层",
    "analysis.axis_item.head": "第 {index} 个头",
    "analysis.axis_item.query": "第 {index} 个查询",
    "analysis.axis_item.key": "第 {index} 个键",
    "analysis.axis_item.query_row": "第 {index} 个查询行",
    "analysis.valid_range": "0–{last}，或从末尾数起的 −{size} 到 −1",
    # attnviz.view.selection
    "error.stack_unknown": "未知的部分 {stack!r}；请使用 encoder（编码器）或 decoder（解码器）。",
    "error.view_unknown": "未知的视图 {view!r}；请使用 {views} 之一。",
    "error.alignment_needs_cross_attention": "对齐头是交叉注意力的头；{kind} 图请改用 head、layer 或 all 显示。",
    "error.figure_unknown": "未知的图 {figure!r}；请使用 {figures} 之一。",
    # attnviz.maps.replay
    "error.step_past_end": "此图没有第 {step} 步：它写出了 {steps} 行（目标词元，词视图中为词）；请选择 1–{steps}，"
    "或 0 表示全部。",
    "error.step_not_replayed": "回放步数只适用于解码器写出的内容（交叉注意力或解码器的自注意力）；{kind} 图一次读入整段"
    "文本。请把步数保持为 0。",
    # attnviz.cli
    "error.cli_index_list": "--{option} 需要一个编号、逗号分隔的列表（0,2）或 'all'；收到的是 {value!r}。",
    "error.cli_generate_positive": "--generate 需要一个正的词元数。",
    "error.cli_beams_need_generate": "--beams 决定模型如何写出译文：请与 --generate N 一起使用。",
    "error.cli_target_or_generate": "--target（强制解码给定的目标文本）与 --generate（让模型自己写）只能二选一。",
    "error.cli_input_with_target": "使用 --input 时，请把每行的目标文本写在该行的制表符之后，而不要用 --target。",
    "error.cli_input_with_gold": "使用 --input 时，请把每对句子的标准链接写在该行的第三列，而不要用 --gold。",
    "error.cli_input_columns": "应为 文本、文本<TAB>目标文本 或 文本<TAB>目标文本<TAB>链接；实际有 {count} 列。",
    "error.cli_input_target_and_generate": "这一行给出了目标文本，而 --generate 会让模型自己写：请去掉该行的目标文本，"
    "或去掉 --generate。",
    "error.cli_output_named_as_a_file": "使用 --input 时，--output 是存放每行一个文件的文件夹；{path} 的名字像是文件。"
    "请给出文件夹（文件格式用 --format {format} 指定）。",
    "error.cli_scale_positive": "--scale 必须是正数。",
    "error.cli_threshold_range": "--threshold 必须在 [0, 1) 之内。",
    "error.cli_top_k_positive": "--top-k 至少为 1。",
    "error.cli_step_negative": "--step 需要目标词元的个数，0 表示全部。",
    "error.cli_input_missing": "--input {path} 不存在。",
    "error.cli_input_not_text": "--input {path} 不是 UTF-8 文本文件（{detail}）。",
    "error.cli_input_empty": "--input {path} 中没有非空的行。",
    "error.cli_output_is_a_file": "使用 --input 时，--output 应是一个文件夹；{path} 是文件。",
    "error.cli_output_exists": "{path} 已存在；如要替换，请加上 --force。",
    "error.cli_outputs_exist": "{path}（另外还有 {more} 个文件）已存在；如要替换，请加上 --force。",
    "error.cli_format_unknown": "无法从 {path} 看出格式；请让它以 {suffixes} 之一结尾，或给出 --format。",
    "error.cli_format_suffix": "{path} 的后缀是另一种格式，而这里写的是 {format}：请以 .{format} 结尾，或给出与后缀一致的 --format。",
    "error.cli_one_index": "使用 --aggregation 时，--{option} 只能是一个编号；收到的是 {value!r}。",
    "error.cli_input_line": "{path} 第 {line} 行：{error}",
    "cli.line": "第 {line} 行：",
    "cli.argparse.argument": "参数 {name}：{message}",
    "cli.argparse.invalid_choice": "无效的选项 {value}（可选：{choices}）",
    "cli.argparse.invalid_value": "无效的 {type} 值：{value}",
    "cli.argparse.expected_one": "需要一个值",
    "cli.argparse.not_allowed_with": "不能与参数 {other} 同时使用",
    "cli.argparse.required": "缺少必需的参数：{names}",
    "cli.argparse.unrecognized": "无法识别的参数：{names}",
    "cli.argparse.see_help": "（见 {prog} --help）",
    "cli.written": "{count} 个文件，位于 {folder}",
    "cli.skipped": "；跳过了 {count} 行（原因见上）",
    "cli.capture_too_large": "这个 {format} 文件有 {size}：应用的“打开捕获文件”最多接受 {limit} 的文件。NPZ "
    "比 JSON 小好几倍；词元减少，文件按其平方缩小。",
    "cli.ignored": "{option} 不会改变这张图，因此未被采用：{why}",
    "cli.ignored.alignment": "--aggregation alignment 显示模型的对齐头。",
    "cli.ignored.all": "--aggregation all 显示所有层所有头的平均。",
    "cli.ignored.rollout": "--aggregation rollout 逐层累乘 --rollout-layers 中每层的所有头。",
    "cli.ignored.layer": "--aggregation layer 显示 --layer 中所有头的平均。",
    "cli.ignored.not_rollout": "它们是 --aggregation rollout 的选项。",
    "cli.ignored.gold": "标准对齐只画在 --view alignment 上并在那里评分。",
    "cli.ignored.top_k": "每个目标词元的连线数由 --view alignment 画出。",
    "cli.ignored.threshold": "画出的最小权重是 --view alignment 和 lines 的选项。",
    "cli.ignored.log_scale": "对数色阶是 --view heatmap 的选项。",
    "cli.ignored.color_scale": "色阶是 --view heatmap 和 grid 的选项。",
    "cli.ignored.vector": "它们设定 PNG 的像素；SVG、PDF 和 HTML 在任何尺寸下都清晰。",
    "cli.ignored.html_engine": "HTML 文件就是可交互的图本身，不经过任何绘图引擎。",
    "error.cli_top_negative": "--top 需要 0（所有头）或更大的数。",
    "error.cli_occurrence_positive": "--occurrence 从 1 起数（词元的第一次出现）。",
    # the app (app_pages)
    "error.custom_models_off": "此应用只提供侧边栏中列出的模型；{model!r} 不在其中。",
    "error.mode_unknown": "未知的模式 {mode!r}；请使用 {modes} 之一。",
    "error.target_empty": "译文是空的；请输入要强制解码的译文，或者让模型自己翻译。",
    "error.matrix_cell_not_a_number": "{name} 的每个格子都必须是数字；请清空这个格子或输入一个数字。",
    "error.matrix_wrong_shape": "{name} 必须有 {rows} 行 {columns} 列；它的形状是 {shape}。",
    "error.matrix_cell_empty": "{name} 的每个格子都必须是数字；空格子不行。",
    "error.walkthrough_size_too_small": "{what}至少为 1。",
    "error.walkthrough_heads_do_not_divide": "隐藏维度 {hidden} 无法平均分给 {heads} 个头；请选择 {hidden} 的约数。",
    "walkthrough_size.batch": "批大小",
    "walkthrough_size.length": "长度",
    "walkthrough_size.hidden": "隐藏维度",
    "walkthrough_size.heads": "头数",
    # figure and capture export, fonts, figures (attnviz.export, attnviz.figures.fonts, attnviz.figures)
    "error.export_engine_unknown": "未知的导出引擎 {engine!r}；请使用 {engines} 之一。",
    "error.export_needs_browser": "kaleido 引擎需要 Chrome 或 Chromium（例如 apt install chromium，或设置 "
    "BROWSER_PATH）；static 引擎不用浏览器也能导出（命令行用 --engine static，Python 中用 engine='static'）。",
    "error.export_chromium_failed": "Chromium 无法绘制这张图（{detail}）；static 引擎不用浏览器也能画出它（命令行用 "
    "--engine static，Python 中用 engine='static'）。",
    "error.export_figure_format": "无法把图导出为 {fmt!r}；请使用 {formats} 之一。",
    "error.export_format_unknown": "无法判断要写成什么格式（{where}）；请使用以下之一：{formats}。",
    "export_where.format": "给出的格式是 {fmt!r}",
    "export_where.suffix": "{path!r} 的后缀",
    "error.file_exists": "{path} 已存在；请换一个文件名，或允许覆盖（--force）。",
    "error.file_is_folder": "{path} 是一个文件夹；请给出文件名。",
    "error.capture_wrong_type": "要导出的应是 AttentionCapture 或 AttentionMap；收到的是 {kind}。",
    "error.capture_bad_token": "词元必须是 {{'text': str, 'start': int, 'end': int, 'special': bool}}；收到的是 "
    "{token}。",
    "error.capture_damaged": "{what}不完整或已损坏（{detail}）；请用 attnviz 重新导出。",
    "error.capture_steps_not_a_list": '捕获文件的 "steps" 必须是列表（每个生成的词元一项）或 null。',
    "error.capture_part_not_an_object": '捕获文件的 "{name}" 必须是一个对象。',
    "error.capture_target_text_not_a_string": '捕获文件的 "target_text" 必须是字符串或 null。',
    "error.capture_weights_dimensions": "{where}必须是 {ndim} 维的；它的形状是 {shape}。",
    "error.capture_weights_not_finite": "{where}中有 NaN、无穷大或负数；注意力权重应是有限且 ≥ 0 的数。",
    "error.capture_shape_mismatch": "{kind!r} 图的权重形状是 {shape}，但文件头写的是 {header}。",
    "error.capture_layer_names": "{kind!r} 图的 layer_names 必须是字符串列表。",
    "error.capture_not_npz": "这不是 NPZ 压缩包（{problem}）；请把捕获重新导出为 .npz。",
    "error.capture_data_format": "无法把注意力数据导出为 {fmt!r}；请使用 {formats} 之一。",
    "error.capture_file_missing": "{path} 不存在，或者不是文件。",
    "error.capture_file_bad_json": "{path} 不是有效的 JSON（{problem}）。",
    "error.capture_is_csv_header": "这是写在 CSV 文件 {csv} 旁边的文件头；CSV 不能读回：要打开它，请把捕获保存为 .json 或 "
    ".npz。",
    "error.capture_file_too_deep": "{path} 嵌套太深，不可能是 attnviz 的捕获文件。",
    "capture_part.capture": "捕获文件",
    "capture_part.npz_capture": "NPZ 捕获文件",
    "capture_part.map_weights": "{kind!r} 图的权重",
    "capture_part.step_self_weights": "第 {index} 步的自注意力权重",
    "capture_part.step_cross_weights": "第 {index} 步的交叉注意力权重",
    "error.stamp_format": "无法把来源信息写入 {fmt!r}；只能写入 png、pdf 或 svg（HTML 自带来源信息）。",
    "error.stamp_not_png": "这不是 PNG 文件。",
    "error.stamp_not_svg": "这不是 SVG 文件（其中没有 <svg> 元素）。",
    "error.stamp_read_format": "无法从 {fmt!r} 读取来源信息；只能读取 png、pdf、svg 或 html。",
    "error.static_trace_unsupported": "静态导出只能画 heatmap、scatter 和 bar 轨迹，画不了 {trace!r}；"
    "请用 engine='kaleido' 导出这张图（需要 Chrome/Chromium）。",
    "error.static_format": "静态导出只能写 png、svg 或 pdf，不能写 {fmt!r}。",
    "error.cjk_font_not_a_file": "中文字体 {path}（{variable}）不是字体文件；请把这项设置指向一个 .otf/.ttf 文件，"
    "或者取消它。",
    "error.cjk_font_missing": "静态导出中文需要 CJK 字体：请运行 pip install pylopdf-fonts-zh-cn（Noto Sans SC），"
    "或把 {variable} 设为一个含中文字形的 .otf/.ttf 文件。",
    "error.figure_language_unknown": "未知语言 {lang!r}；请使用 {languages} 之一。",
    "error.figure_kind_unknown": "未知的图类型 {kind!r}；请使用 self、encoder、decoder 或 cross。",
    "error.figure_count": "{name} 必须是不小于 {minimum} 的整数；收到的是 {value!r}。",
    "error.figure_link_threshold": "连线阈值必须在 0 到 1 之间；收到的是 {threshold}。",
    "error.figure_top_k": "top_k 至少为 1（None 表示全部连线）；收到的是 {top_k}。",
    "error.mixture_not_pairs": "请把混合写成（键名, 权重）对的列表，例如 [('鹿', 0.5), ('牛', 0.5)]。",
    "error.mixture_weights": "混合权重必须是有限的非负数，并且像一行注意力那样加起来等于 1；收到的是 {weights}。",
    "error.mixture_contributions": "请为每个键（共 {keys} 个）给出一个贡献：有限的非负数，加起来等于 1；"
    "收到的是 {contributions}。",
    "error.statistic_unknown": "未知的头统计量 {statistic!r}；请使用 {statistics} 之一。",
    "error.statistic_grid_needs_input": "statistic_grid 需要一张注意力图，或者已经算好的统计量（values=）。",
    "error.statistic_not_in_values": "values 中没有 {statistic!r}；请传入 head_statistics 返回的字典（其中有全部"
    "统计量）。",
    "error.statistic_values_shape": "values[{statistic!r}] 必须是由数字组成的（层, 头）数组；收到的形状是 {shape}。",
    "error.statistic_undefined": "{attention}的查询和键是不同的序列，{statistic!r} 对它没有定义；请选择 entropy、"
    "sink 或 diagonal。",
    "figure.kind_attention": "{kind} 注意力",
    "figure.this_attention": "这种注意力",
    "error.pooled_shape_mismatch": "汇聚后的值形状是 {shape}，但 {queries} × {keys} 个词元按 {query_factor} × "
    "{key_factor} 分块应得到 {rows} × {columns}；请传入被汇聚的那张图的词元。",
    "error.heatmap_log_floor": "对数刻度的下限必须是正的权重，例如 1e-4。",
    "error.heatmap_zmax": "zmax 必须是正的权重（None 表示用最大值）；收到的是 {zmax!r}。",
    "error.selected_ranges_not_a_heatmap": "selected_ranges 需要一张由 attnviz.figures.heatmap 画的图。",
    "error.lines_threshold": "连线阈值必须严格介于 0 和 1 之间；收到的是 {threshold}。",
    "error.lines_combine": "combine 必须是 None、'mean' 或 'max'；收到的是 {combine!r}。",
    "error.lines_query_missing": "查询 {query} 不存在；这张图有 {count} 个查询词元。",
    # attention capture and maths, the data types (attnviz.attention, attnviz.types)
    "error.texts_none": "没有给出文本；请至少给出一段。",
    "error.target_side_missing": "{model} 没有目标端（它是 {kind} 模型）；请只给出文本，或者选择翻译（编码器-解码器）"
    "模型来处理文本对。",
    "error.targets_count": "给了 {texts} 段文本，却有 {targets} 段目标文本；请为每段文本给出一段目标文本。",
    "error.decoder_start_missing": "这个编码器-解码器模型的配置里没有 decoder_start_token_id。",
    "error.weights_not_finite": "注意力权重必须是有限且非负的数；这里有 NaN、∞ 或负数（请检查模型的数据类型，"
    "或权重所来自的文件）。",
    "error.text_not_a_string": "{what}必须是字符串，而不是 {kind}。",
    "error.text_empty": "{what}是空的；请输入一个句子来查看它的注意力。",
    "error.text_broken_characters": "{what}中有损坏的字符（未配对的 UTF-16 代理项）；请以文本形式重新粘贴。",
    "error.text_no_tokens": "{what}在 {model} 中得不到任何词元；请输入该模型分词器认识的词。",
    "error.text_too_many_tokens": "{what}有 {count} 个词元，而 {model} 最多接受 {limit} 个；请缩短它，或截取前 "
    "{limit} 个词元（命令行加 --truncate，页面上用开关，Python 中 truncate=True）。",
    "error.generate_needs_decoder": "{model} 是仅编码器模型，不能生成文本；请不加 --generate 直接捕获它的注意力。",
    "error.max_new_tokens_invalid": "max_new_tokens 必须是正整数，而不是 {value!r}。",
    "error.generate_replay_differs": "重放束搜索为 {model} 选出的译文时写出了别的内容；为免显示模型没有走过的步骤，这里不显示结果。"
    "请改用贪心解码（num_beams=1；命令行中用 --beams 1）。",
    "error.num_beams_invalid": "束搜索的束数必须是 1（贪心解码）到 {limit} 之间的整数，而不是 {value!r}。",
    "error.lens_no_next_token": "{model} 没有输出嵌入，不预测下一个词元：logit lens 需要仅解码器模型或翻译模型。",
    "error.lens_no_layers": "logit lens 在 {stack} 中找不到层的列表；它只能读取把各层放在一个列表（layers、h、block）中的模型。",
    "error.lens_head_differs": "logit lens 无法从最后一层重现 {model} 自己的输出（相差 {difference:.2g}）：它的输出头"
    "不只是最终归一化加输出嵌入，因此不显示任何一层，以免显示错误的结果。",
    "error.lens_top_k_invalid": "最可能词元的个数必须是 1 到 {limit} 之间的整数，而不是 {value!r}。",
    "error.lens_nothing_written": "{model} 对这段文本什么也没写出，解码器没有可读取的位置；请用 --target 给出译文。",
    "error.decoder_lens_needs_translator": "DecoderLens 需要编码器-解码器模型（翻译模型）；{model} 不是（它的类型是 {kind}）。",
    "error.lens_figure_shape": "lens 图收到形状为 {shape} 的数值，却有 {layers} 层、{positions} 个位置；请为每一层的每个位置给出一个数值和一个词元。",
    "error.decoder_lens_layer_missing": "没有可读取的编码器层 {layer!r}；请给出 0（嵌入）到 {last}。",
    "error.layer_heads_do_not_divide": "hidden_size {hidden} 必须是 num_heads {heads} 的正整数倍。",
    "error.layer_kv_heads_do_not_divide": "num_heads {heads} 必须是 num_kv_heads {kv_heads} 的整数倍（分组查询注意力）。",
    "error.mask_type_unknown": "未知的 mask_type {mask_type!r}；请使用 {choices} 之一。",
    "error.layer_inputs_shape": "输入必须是 (batch, length, hidden)，且批大小相同；收到的是 {hidden_shape} 和 "
    "{source_shape}。",
    "error.causal_mask_on_cross": "因果掩码只用于自注意力；交叉注意力请使用 mask_type='none' 或 'padding'。",
    "error.padding_mask_missing": "mask_type='padding' 需要 padding_mask (batch, keys)，真实词元处为 True。",
    "error.padding_mask_shape": "padding_mask 的形状是 {shape}；它必须是 (batch, keys) = ({batch}, {keys})。",
    "error.kv_heads_do_not_divide": "查询有 {heads} 个头，键/值有 {kv_heads} 个；查询的头数必须是键/值头数的整数倍"
    "（分组查询注意力）。",
    "error.split_heads_input_shape": "multi_head_split 需要 (batch, length, hidden)；收到的形状是 {shape}。",
    "error.merge_heads_input_shape": "multi_head_merge 需要 (batch, heads, length, head_dim)；收到的形状是 {shape}。",
    "error.causal_alignment_unknown": "未知的因果对齐方式 {alignment!r}；请使用 'top_left' 或 'bottom_right'。",
    "error.mask_dtype": "注意力掩码的数据类型是 {dtype}；请传入布尔掩码（True 表示可关注）或加到分数上的浮点掩码。",
    "error.mask_not_addable": "形状为 {shape} 的掩码或偏置无法加到形状为 {scores} 的分数上；它的末两维必须是 "
    "({queries}, {keys}) 或 (1, {keys})。",
    "error.qkv_dimensions": "q、k 和 v 的维数必须相同（至少 2 维）；收到的形状是 {query}、{key}、{value}。",
    "error.qkv_sizes": "q {query} 和 k {key} 的特征维度必须相同，k 和 v {value} 的长度必须相同。",
    "error.npu_kernel_unavailable": "npu 注意力算子需要 torch_npu 和昇腾 NPU：{reason} 请改在 CPU 或 CUDA 上运行，"
    "或在昇腾机器上安装 torch_npu 和 CANN。",
    "error.npu_mask_shape": "注意力掩码的形状是 {shape}；它的末两维必须是 ({queries}, {keys}) 或 (1, {keys})，"
    "并能广播到 (batch, heads, {queries}, {keys})。",
    "error.npu_not_bnsd": "{name} 的形状是 {shape}；请传入按 (batch, heads, seq, head_dim) 排列的 4 维张量。",
    "error.npu_query_key_mismatch": "query {query} 和 key {key} 的批大小和 head_dim 必须相同。",
    "error.npu_key_value_mismatch": "key {key} 和 value {value} 的批大小、头数和长度必须相同。",
    "error.npu_bias_with_zero_scale": "缩放系数为 0 时，浮点注意力偏置无法传给 npu 算子；请使用大于 0 的缩放系数。",
    "error.max_tokens_too_small": "max_tokens 至少为 1。",
    "error.dtype_no_policy": "设备 {device!r} 没有数据类型策略；请使用 cpu、cuda、mps 或 npu。",
    "error.dtype_unknown": "未知的数据类型 {dtype!r}；请使用 float32、float16 或 bfloat16。",
    "error.dtype_not_allowed": "{device} 上不能使用 {dtype}；请在那里使用 {allowed}（半精度用于 npu 和 cuda；在 CPU 上仅用于比较精度）。",
    "error.walkthrough_not_numbers": "{name} 必须是由数字组成的矩阵（由等长的行组成的列表）；{value!r} 不是。",
    "error.walkthrough_not_a_matrix": "{name} 必须是矩阵（行 × 列）；收到的是 {ndim} 维，形状为 {shape}。",
    "error.walkthrough_empty": "{name} 是空的（形状 {shape}）；请至少给出一行一列。",
    "error.walkthrough_not_finite": "{name} 在第 {row} 行第 {column} 列是 {value}；每个格子都必须是有限的数。",
    "error.walkthrough_q_k_width": "Q 和 K 的宽度必须相同才能相乘；收到的是 Q {q} 和 K {k}。",
    "error.walkthrough_k_v_rows": "K 和 V 必须每个键一行；收到的是 K {k} 和 V {v}。",
    "error.walkthrough_overflow": "数值这么大时 Q·Kᵀ 会溢出；请使用小于约 1e150 的值。",
    "error.map_kind_unknown": "未知的注意力图类型 {kind!r}；请使用 {kinds} 之一。",
    "error.map_dimensions": "注意力权重必须是 4 维的（层、头、查询、键）；收到的形状是 {shape}。",
    "error.map_tokens_mismatch": "形状为 {shape} 的权重与 {queries} 个查询词元和 {keys} 个键词元不匹配；请为每个"
    "查询行和每个键列各给一个词元。",
    "error.map_layer_names": "权重有 {layers} 层，却给了 {names} 个层名。",
    "error.capture_numbers": "{kind} 注意力图的层号或头号必须是从 0 起的整数列表。",
    "error.grid_layer_titles": "layer_titles 必须是 'numbers' 或 'names'，而不是 {given!r}。",
    "error.map_numbers": "{what} 给出了 {given} 个层或头的编号，但权重中有 {count} 个。",
    "error.capture_no_map": "这个捕获没有 {kind!r} 图；它有的是：{kinds}。",
    # attnviz.compare
    "error.compare_kinds_differ": "图 A 是 {kind_a} 注意力，图 B 是 {kind_b} 注意力：它们的行和列是不同的词元，"
    "无法比较；请选择同一种图（--kind、--kind-b）。",
    "error.compare_heads_differ": "图 A 每层有 {heads_a} 个头，图 B 有 {heads_b} 个：要比较头数不同的模型，"
    "请配对注意力头（--pair-heads）。",
    "error.compare_nothing_matched": "A 和 B 没有共同的词，无法把一方的行与另一方的行对照；请比较有共同词语的文本。",
    "error.compare_parity_tokens": "一致性检查是把同一输入读两次，但 A（{shape_a}）和 B（{shape_b}）的词元不同；"
    "请改为逐词比较。",
    "error.compare_text_empty": "文本 B 是空的；请给 B 一个句子（--text-b），或不写 --text-b 以使用 A 的文本。",
    "error.compare_model_unread": "文本 B 用{script}书写，模型 B（{model}）读不懂它（它读 {languages}）；"
    "请给 B 一段它能读的语言的文本，或换一个模型。",
    "error.compare_format": "{path!r}：比较结果可写成 {formats}；请用其中一种后缀命名文件。",
    "error.compare_index": "--{option} 需要一个编号（0、1、…）；收到的是 {value!r}。",
    "error.compare_figure_table": "{path!r} 是排序表；--figure {figure} 画的是图：请用 {formats} 之一作为文件后缀。",
    "capture_maps.none": "无",
    # attnviz.measures.alti
    "error.alti_architecture": "ALTI 无法分解 {model!r}（{model_type} 模型）：attnviz 只了解 {supported} 的注意力"
    "块。请对这个模型使用注意力权重或值向量范数。",
    "error.alti_block_unknown": "ALTI 发现了一个无法归入注意力块的注意力模块（{block}）；它的贡献不会是精确的，"
    "因此不显示。请对这个模型使用注意力权重。",
    "error.alti_block_mismatch": "ALTI 对 {block} 的分解与模型实际计算的结果对不上（相差 {error}）；这个块与 "
    "attnviz 所了解的架构不同，因此不显示贡献。",
    "error.alti_offloaded_weights": "ALTI 需要读取每一层的权重，但 {model} 有部分权重在磁盘或已卸载（{parameter}）；"
    "请把模型加载到单一设备上（不设最大内存或卸载文件夹）再查看其贡献。",
    "error.alti_method_unknown": "未知的贡献计算方法 {method!r}；请使用 {methods} 之一。",
    "analysis.axis.query_range_end": "查询范围端点",
    "analysis.axis_count.query_range_end": "{count} 个查询范围端点",
    "analysis.axis_item.query_range_end": "查询范围端点 {index}",
    # head effects (attnviz.measures.head_effects)
    "error.head_effects_no_projection": "attnviz 在 {model} 中找不到 {module} 的输出投影，无法在那里去掉单个头的输出；"
    "这种架构不支持头效应。",
    "error.head_effects_projection_input": "{module} 的输出投影的输入不是各头输出的并排拼接（宽 {width}）；"
    "这种架构不支持头效应。",
    "error.head_effects_shared_layers": "{model} 在一次前向中多次运行 {module}（共享权重的层）：去掉那里的一个头会在"
    "每次运行中都去掉它，因此不支持头效应。",
    "error.head_effects_no_target": "{model} 在这里没有可度量的目标词元；请给出目标文本。",
}
