"""A small regulation for the ask tests: definitions, obligations, an annex and a penalty article,
with references between them (Article 4(1) → Annex I; Article 6 → Article 4)."""

from __future__ import annotations

from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Document, ParsedCorpus
from anchor_core.stores.sqlite import SQLiteStore
from tests.conftest import ref, unit

A2 = ("1. ‘drone operator’ means any natural or legal person who operates a drone.\n"
      "2. ‘drone’ means an unmanned aircraft with a take-off mass below 25 kilograms.")
A3 = ("1. Drone operators shall register with the national aviation authority before the first flight.\n"
      "2. Registration shall be renewed every three years.")
A4 = ("1. Drones listed in Annex I shall carry a remote identification module.\n"
      "2. The remote identification module shall broadcast the registration number of the operator.")
A5 = ("1. Drone operators shall not fly over assemblies of people.\n"
      "2. Flights at night require a lighting system visible from 5 kilometres.")
A6 = ("1. Infringements of Article 4 shall be subject to administrative fines of up to 10 000 EUR.\n"
      "2. Member States shall lay down the rules on other penalties.")
X1 = ("1. Drones used for aerial photography over cities.\n"
      "2. Drones used for parcel delivery.")


def drone_corpus(version: str = "") -> ParsedCorpus:
    a2 = unit("article-2", A2, heading="Article 2", title="Definitions",
              parts=[("1", A2.split("\n")[0]), ("2", A2.split("\n")[1])])
    a3 = unit("article-3", A3, heading="Article 3", title="Registration of drone operators",
              parts=[("1", A3.split("\n")[0]), ("2", A3.split("\n")[1])])
    a4 = unit("article-4", A4, heading="Article 4", title="Remote identification",
              parts=[("1", A4.split("\n")[0]), ("2", A4.split("\n")[1])])
    a5 = unit("article-5", A5, heading="Article 5", title="Operational limits",
              parts=[("1", A5.split("\n")[0]), ("2", A5.split("\n")[1])])
    a6 = unit("article-6", A6, heading="Article 6", title="Penalties",
              parts=[("1", A6.split("\n")[0]), ("2", A6.split("\n")[1])])
    x1 = unit("annex-1", X1, kind="annex", heading="Annex I", title="Drones requiring remote identification",
              parts=[("1", X1.split("\n")[0]), ("2", X1.split("\n")[1])])
    refs = [ref(a4, "Annex I", "annex-1"), ref(a6, "Article 4", "article-4")]
    return ParsedCorpus(documents=[Document(doc_id="doc", title="Drone Act")],
                        units=[a2, a3, a4, a5, a6, x1], references=refs)


def drone_store(path) -> SQLiteStore:
    store = SQLiteStore(path)
    ingest(store, HashEmbedder(), drone_corpus(), corpus="drones", adapter="test")
    return store
