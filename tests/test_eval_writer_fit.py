"""The writer fit names rounds the way the fresh sets' README numbers them, so that a held-out round is never read."""

from __future__ import annotations

from eval.writer_fit import round_of


def test_a_fresh_file_is_read_as_its_round():
    # the AI Act and GDPR files run one number ahead of their round (each had a second first-round file)
    assert round_of("aiact19") == round_of("gdpr19") == 18
    assert round_of("rfc18") == round_of("peps18") == round_of("adgm18") == 18
    assert round_of("aiact") == round_of("aiact2") == round_of("rfc") == 1
    assert round_of("README") is None and round_of("notes18") is None
