"""Long texts on saved models: the catalogue reads a model's positions and languages from its files, and the longest
reader of a text wins."""

from attnviz.model import long_texts
from attnviz.model.catalogue import catalogue, catalogue_entry
from tests.support.tiny import save_long_llama


def test_the_catalogue_reads_positions_and_languages_without_loading_a_model(tmp_path, tiny_folder):

    shipped = {e.name: e for e in catalogue()}
    assert (shipped["demo-zh-en"].max_positions, shipped["demo-zh-en"].languages) == (
        128,
        ("zh",),
    )  # a translator reads its source side
    if "minilm" in shipped:
        assert (shipped["minilm"].max_positions, shipped["minilm"].languages) == (512, ("en",))
    folder = save_long_llama(tmp_path / "decoder", positions=4096)
    stand_in = catalogue_entry("demo-decoder", folder, "decoder")
    assert (stand_in.max_positions, stand_in.languages) == (4096, ("en", "zh"))
    others = [e for e in catalogue() if e.name != "demo-decoder"]  # the stand-in in place of the shipped one
    assert long_texts.reading_model([*others, stand_in], "word " * 900, 900, 512) == stand_in
    if "demo-decoder" in shipped:  # the shipped decoder reads both languages, the most of any catalogue model
        assert shipped["demo-decoder"].max_positions == 4096
        assert long_texts.reading_model(catalogue(), "word " * 900, 900, 512).name == "demo-decoder"
    assert catalogue_entry("bert", tiny_folder("bert"), "encoder").languages == ()  # no card
