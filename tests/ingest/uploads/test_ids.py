"""Document ids from file names: distinct for names in any script, stable across re-uploads, the
same as always for ASCII names, and never shared by two names without a warning."""

from __future__ import annotations

import unicodedata

import pytest

from anchor_core.models import Document, Filters
from anchor_core.stores.sqlite import SQLiteStore
from ingest.uploads import ingest_uploads
from ingest.uploads.ids import base_id, doc_ids

CONTRACT = "1. Предмет\nАрендатор платит ежемесячно.\n2. Срок\nДоговор действует один год.\n".encode()
POLICY = "# Политика\n\nСотрудники путешествуют вторым классом.\n".encode()
FILE = "# 文件\n\n员工乘坐二等座出行。\n".encode()


@pytest.fixture
def store(tmp_path):
    return SQLiteStore(tmp_path / "anchor.db")


@pytest.mark.parametrize(("name", "doc_id"), [
    ("Travel Policy.pdf", "travel-policy"),
    ("Policies/Travel Policy.pdf", "policies-travel-policy"),
    ("notes_2024 (final).TXT", "notes-2024-final"),
    ("README", "readme"),
    ("Договор.md", "договор"),
    ("Договор аренды №5.pdf", "договор-аренды-no5"),  # NFKC: "№" is "No"
    ("文件.md", "文件"),
    ("दस्तावेज़.pdf", "दस्तावेज़"),  # combining vowel signs stay with their letters
    ("Café Menu.pdf", "café-menu"),
    ("ＡＢＣ.md", "abc"),
])
def test_base_ids(name, doc_id):
    assert base_id(name) == doc_id


def test_a_name_with_nothing_usable_gets_a_stable_hash():
    assert base_id("!!!.md") == base_id("!!!.md") != base_id("???.md")
    assert base_id("📄.md").startswith("document-") and len(base_id("📄.md")) == len("document-") + 8


def test_decomposed_and_composed_names_get_one_id():
    name = "Отчёт й.md"
    assert base_id(unicodedata.normalize("NFD", name)) == base_id(name) == "отчёт-й"


def test_ids_are_safe_in_unit_ids_and_refs():
    for name in ["Договор (ред. 2), копия.md", "a/b\\c <d> \"e\" 'f'.pdf", "文件 / 目录.txt"]:
        uid = base_id(name)
        assert not set(uid) & set("/()[],;:<>\"' \t\\"), uid


def test_colliding_names_in_one_batch_are_told_apart_with_a_warning():
    got = doc_ids(["a/b.md", "a-b.md", "Straße.md", "Strasse.md"], {})
    assert [a.doc_id for a in got] == ["a-b", "a-b-md", "strasse", "strasse-md"]
    assert got[0].warning is None and "'a-b' already belongs to a/b.md" in got[1].warning
    assert "stored as 'strasse-md'" in got[3].warning


def test_a_stored_name_keeps_its_id_and_another_name_cannot_take_it():
    stored = {"travel-policy": Document(doc_id="travel-policy", title="t", source="Travel Policy.pdf",
                                        meta={"file": "Travel Policy.pdf", "upload": True}),
              "document": Document(doc_id="document", title="t", source="Договор.md",
                                   meta={"file": "Договор.md", "upload": True})}  # stored by the old slug
    got = doc_ids(["travel policy.pdf", "Договор.md", "Travel Policy.pdf"], stored)
    assert [a.doc_id for a in got] == ["travel-policy-pdf", "document", "travel-policy"]
    assert "'travel-policy' already belongs to Travel Policy.pdf" in got[0].warning
    assert got[1].warning is None and got[2].warning is None


def test_three_non_latin_names_are_three_documents(store, embedder):
    results = ingest_uploads(store, embedder, [("Договор.md", CONTRACT), ("Политика.md", POLICY),
                                               ("文件.md", FILE)], corpus="ru")
    assert [(r.status, r.doc_id, r.version) for r in results] == [
        ("ingested", "договор", 1), ("ingested", "политика", 1), ("ingested", "文件", 1)]
    assert all(not r.warnings for r in results)
    assert sorted(d.doc_id for d in store.documents("ru")) == ["договор", "политика", "文件"]
    assert store.unit_ids("ru", ["договор"]) == ["договор/1", "договор/2"]
    assert store.corpus("ru").documents == 3


def test_reupload_of_a_non_latin_name_replaces_or_skips_the_same_document(store, embedder):
    ingest_uploads(store, embedder, [("Договор.md", CONTRACT), ("Политика.md", POLICY), ("文件.md", FILE)],
                   corpus="ru")
    [same] = ingest_uploads(store, embedder, [("Договор.md", CONTRACT)], corpus="ru")
    assert (same.status, same.doc_id, same.version) == ("skipped-identical", "договор", 1)
    changed = CONTRACT.replace("один год".encode(), "два года".encode())
    nfd = unicodedata.normalize("NFD", "Договор.md")  # as a macOS file system spells it
    [res] = ingest_uploads(store, embedder, [(nfd, changed)], corpus="ru")
    assert (res.status, res.doc_id, res.version) == ("replaced", "договор", 2)
    assert "два года" in store.get_units("ru", ["договор/2"])["договор/2"].text
    assert store.corpus("ru").documents == 3
    hits = store.search_bm25("ru", ["вторым"], 5, Filters())
    assert hits and hits[0][0].startswith("политика/")


def test_another_name_with_a_stored_id_is_stored_beside_it(store, embedder):
    ingest_uploads(store, embedder, [("Policy.md", b"# Policy\n\nOne.\n")], corpus="p")
    [res] = ingest_uploads(store, embedder, [("policy.md", b"# Policy\n\nTwo.\n")], corpus="p")
    assert (res.status, res.doc_id) == ("ingested", "policy-md")
    assert "'policy' already belongs to Policy.md" in res.warnings[0]
    assert sorted(d.doc_id for d in store.documents("p")) == ["policy", "policy-md"]
