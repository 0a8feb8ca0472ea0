"""Line-based three-way merge (the merge3 algorithm of bzr and copier's `update`)."""

from __future__ import annotations

from difflib import SequenceMatcher


def merge3_sides(
    base: list[str], ours: list[str], theirs: list[str]
) -> tuple[list[str], list[str]]:
    """The merge twice: each conflicting stretch taken from `ours`, then from `theirs`.

    Where the two results differ are exactly the conflicts.
    """
    with_ours: list[str] = []
    with_theirs: list[str] = []
    i_base = i_ours = i_theirs = 0
    for base_start, base_end, ours_start, ours_end, theirs_start, theirs_end in _sync_regions(
        base, ours, theirs
    ):
        base_part = base[i_base:base_start]
        ours_part = ours[i_ours:ours_start]
        theirs_part = theirs[i_theirs:theirs_start]
        if ours_part == theirs_part or theirs_part == base_part:
            with_ours += ours_part
            with_theirs += ours_part
        elif ours_part == base_part:
            with_ours += theirs_part
            with_theirs += theirs_part
        else:
            with_ours += ours_part
            with_theirs += theirs_part
        with_ours += base[base_start:base_end]
        with_theirs += base[base_start:base_end]
        i_base, i_ours, i_theirs = base_end, ours_end, theirs_end
    return with_ours, with_theirs


def _sync_regions(base, ours, theirs):
    """Stretches of `base` left unchanged by both sides, with where they sit in each."""
    ours_blocks = SequenceMatcher(None, base, ours, autojunk=False).get_matching_blocks()
    theirs_blocks = SequenceMatcher(None, base, theirs, autojunk=False).get_matching_blocks()
    regions = []
    a = b = 0
    while a < len(ours_blocks) and b < len(theirs_blocks):
        a_base, a_match, a_len = ours_blocks[a]
        b_base, b_match, b_len = theirs_blocks[b]
        start, end = max(a_base, b_base), min(a_base + a_len, b_base + b_len)
        if start < end:
            a_sub = a_match + start - a_base
            b_sub = b_match + start - b_base
            regions.append((start, end, a_sub, a_sub + end - start, b_sub, b_sub + end - start))
        if a_base + a_len < b_base + b_len:
            a += 1
        else:
            b += 1
    regions.append((len(base), len(base), len(ours), len(ours), len(theirs), len(theirs)))
    return regions
