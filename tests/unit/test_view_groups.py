"""Which page owns which option (app_pages/shared/view_groups.py): every view field in exactly one group, each page's
own group on that page only, and each page's link carrying exactly the fields its groups name."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, fields

import pytest

from app_pages.shared import navigation, session
from app_pages.shared import state as app_state
from app_pages.shared import view_groups as groups

ALL_FIELDS = [entry.name for entry in fields(app_state.ViewState)]


def test_every_view_field_lives_in_exactly_one_group():
    owners = Counter(name for group in groups.GROUPS for name in groups.names(group))
    assert sorted(owners) == sorted(ALL_FIELDS)  # the view is the union of the groups, nothing besides
    assert [name for name, count in owners.items() if count > 1] == []
    for group in groups.GROUPS:  # a field's default is its group's: the union changes no starting value
        assert {name: asdict(app_state.ViewState())[name] for name in groups.names(group)} == asdict(group())


def test_a_pages_own_group_is_on_that_page_only_and_single_fields_come_from_shared_groups():
    shared = {name for group in groups.SHARED_GROUPS for name in groups.names(group)}
    for page_group in groups.PAGE_GROUPS:
        users = [page for page, parts in groups.PAGE_PARTS.items() if page_group in parts]
        assert len(users) == 1, (page_group.__name__, users)
    for page, parts in groups.PAGE_PARTS.items():
        assert {part for part in parts if isinstance(part, str)} <= shared, page
    assert set(groups.PAGE_PARTS) == set(navigation.PAGES)
    used = {name for names in groups.PAGE_FIELDS.values() for name in names}
    assert used == set(ALL_FIELDS)  # no field that no page shows


@pytest.mark.parametrize("page", sorted(navigation.PAGES))
def test_a_pages_link_carries_its_groups_fields_and_restores_them(page):
    changed = app_state.ViewState(
        model="org/name",
        device="cpu",
        lang="zh",
        text="晚安",
        target="Good night",
        mode="pair",
        truncate=False,
        long_model=False,
        layer=2,
        head=3,
        kind="self",
        words=False,
        hide_special=False,
        threshold=0.35,
        color_scale="head",
        weighting="value-norm",
        measure="alti",
        effects=True,
        find_effect="night #1",
        logit_lens=True,
        decoder_lens=True,
        decoder_lens_layer=2,
        cross_aggregation="head",
        step=2,
        gold="0-0",
        gold_pair="p",
        gold_reverse="demo-en-zh",
        segmented=True,
        stack="decoder",
        self_aggregation="rollout",
        rollout_first=1,
        rollout_last=2,
        residual=False,
        lines_from=4,
        find_query="a #1",
        find_key="b #2",
        lines_token="c #3",
        lens_from=3,
        prompt_only=True,
        stat="distance",
        qk_color="token",
        qk_norm=False,
        qk_point="q1",
        q="1,0;0,1;1,1",
        k="2,0;0,2;1,1;1,0",
        v="1,0;0,1;1,1;2,2",
        ex_token=1,
        corpus="reports/x",
        model_b="minilm",
        text_b="你好",
        target_b="Hi",
        compare_scope="head",
        device_b="cpu",
        dtype_b="bfloat16",
    )
    assert all(getattr(changed, name) != default for name, default in asdict(app_state.ViewState()).items())
    link = app_state.to_query_params(changed, page)
    assert set(link) == set(groups.PAGE_FIELDS[page])  # every field changed: all of the page's, no other
    restored, unreadable = app_state.from_query_params(link)
    assert unreadable == []
    assert {name: getattr(restored, name) for name in link} == {name: getattr(changed, name) for name in link}


def test_widgets_keep_their_keys():
    assert {session.widget_key(name) for name in session.VIEW_FIELDS} == {
        "w_" + name for name in ALL_FIELDS if name not in ("model", "step")
    }
