"""A search corpus with non-English text, punctuation and prefixes, and the
documents each query must find (by name), on every database."""

from __future__ import annotations

from datetime import timedelta

from search.core.documents import Doc
from tests.builders import T0

CORPUS: dict[str, str] = {
    "creeper": "A creeper exploded near the iron golem at dusk.",
    "golem": "The Iron-Golem guards the village; creeper nearby?!",
    "german": "Die Größe der Straße überrascht: Übermäßig viele Bäume.",
    "german_plain": "Die Strasse ist gross und die Baeume sind hoch.",
    "french": "Le café était très crème, déjà froid à midi.",
    "russian": "Крипер взорвался рядом с деревней. Ёлка упала.",
    "chinese": "苦力怕在村庄附近爆炸了。铁傀儡在守卫。",
    "japanese": "クリーパーが村の近くで爆発した",
    "punct": "goal:collect:oak_log — INTENT{craft(pickaxe)} #42 @steve e-mail: a.b@c.de",
    "crafting": "crafting a crafted table; craftsmanship matters",
    "numbers": "version 1.5.2 costs $3,000 at 10:45; 2026-03-06",
    "nul_and_emoji": "smiles 😀 and tabs\tand newlines\nzombie here",
    "mixed": "naïve coöperation résumé ZOMBIE zombies",
}

# query -> the documents it finds (identical on SQLite and PostgreSQL)
EXPECTED: dict[str, set[str]] = {
    "creeper": {"creeper", "golem"},
    "CREEPER": {"creeper", "golem"},
    '"iron golem"': {"creeper", "golem"},
    '"golem iron"': set(),
    "iron-golem": {"creeper", "golem"},
    "creeper -village": {"creeper"},
    'creeper -"iron golem"': set(),
    "größe": {"german"},
    "grosse": {"german"},
    "STRASSE": {"german", "german_plain"},
    "straße": {"german", "german_plain"},
    "übermäßig": {"german"},
    "uberm*": {"german"},
    "cafe": {"french"},
    "café crème": {"french"},
    "deja": {"french"},
    "крипер": {"russian"},
    "КРИПЕР": {"russian"},
    "елка": {"russian"},
    "взорв*": {"russian"},
    "苦力怕": {"chinese"},
    "村庄": {"chinese"},
    "村": {"chinese", "japanese"},
    "爆発": {"japanese"},
    "oak_log": {"punct"},
    "goal:collect": {"punct"},
    "craft": {"punct"},
    "craft*": {"punct", "crafting"},
    "crafte*": {"crafting"},
    "*afts": {"crafting"},
    "*smanship": {"crafting"},
    "pickaxe": {"punct"},
    "#42": {"punct"},
    "1.5.2": {"numbers"},
    "3,000": {"numbers"},
    "10:45": {"numbers"},
    "zombie": {"nul_and_emoji", "mixed"},
    "zombie -naive": {"nul_and_emoji"},
    "zombie*": {"nul_and_emoji", "mixed"},
    "naive cooperation": {"mixed"},
    "resume": {"mixed"},
    "crème OR Крипер": {"french", "russian"},
    "creeper OR 苦力怕 OR nothingatall": {"creeper", "golem", "chinese"},
    "nothingatall": set(),
    '"iron gol"*': {"creeper", "golem"},
    '"unclosed phrase': set(),
    "*reep -village": {"creeper"},
    "-*reep zombie": {"nul_and_emoji", "mixed"},
    "and": {"nul_and_emoji"},
    "not": set(),
    "or": set(),
    "NEAR": {"creeper"},
}


# What SEARCH_LANGUAGE=english (the default) adds on PostgreSQL: a single
# word also matches its English forms. SQLite has no such widening.
ENGLISH_EXTRA: dict[str, set[str]] = {
    "craft": {"crafting"},
    "grosse": {"german_plain"},
    "größe": {"german_plain"},
}


def corpus_docs() -> dict[str, Doc]:
    """The corpus as documents, one minute apart (oldest first)."""
    return {
        name: Doc(
            kind="thought",
            ref=name,
            text=text,
            created_at=T0 + timedelta(minutes=i),
            title=name,
        )
        for i, (name, text) in enumerate(CORPUS.items())
    }
