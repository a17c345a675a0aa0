"""Site extraction with spaCy on hand-written dialogue and on the real eve.cha."""

from __future__ import annotations

from collections import Counter

from cac_helpers import chat

from corpusbench.corpus.chat import SpeakerRoles, read_chat, read_chat_text
from corpusbench.families.cac.io import site_prompt
from corpusbench.families.cac.records import Alternation
from corpusbench.families.cac.sites import context_lines, extract_sites


def _sites(nlp, *tiers, **kw):
    utts = list(read_chat_text(chat(*tiers), "t.cha", roles=SpeakerRoles(caretakers=("MOT", "FAT"))))
    stats = Counter()
    return list(extract_sites(utts, nlp=nlp, stats=stats, **kw)), stats, utts


def test_dxn_rule(nlp):
    sites, stats, _ = _sites(
        nlp,
        "MOT: where is the dog ?",  # the dog
        "CHI: an apple .",  # an -> a
        "MOT: the fire engine is big .",  # one word between: engine
        "FAT: I see the big red ball .",  # two words between: dropped
        "MOT: look at the balls .",  # plural: dropped
        "CHI: yes , a fly .",  # chunk starting with an interjection still counts
        "MOT: this dog is nice .",  # not an alternative
    )
    assert [(s.speaker, s.choice, s.form, s.key) for s in sites] == [
        ("MOT", "the", "the", "dog"),
        ("CHI", "a", "an", "apple"),
        ("MOT", "the", "the", "engine"),
        ("CHI", "a", "a", "fly"),
    ]
    assert stats["dropped:gap_over_1"] == 1 and stats["dropped:head_not_singular"] == 1 and stats["kept"] == 4
    for s in sites:
        assert s.text[s.char_start : s.char_end].lower() == s.form
        assert s.with_choice("___").count("___") == 1


def test_ids_context_and_antecedents(nlp):
    sites, _, utts = _sites(nlp, "MOT: the dog is here .", "CHI: xxx .", "CHI: a dog .", "MOT: yes , a dog .")
    assert [s.id for s in sites] == ["t.cha:0:0", "t.cha:2:0", "t.cha:3:2"]
    child = sites[1]
    assert (child.position, child.utterance_index) == (1, 2)  # 'xxx .' is not kept but keeps its index
    assert (child.tpr_case, child.prev_choice, child.prev_distance, child.prev_site_id) == (
        True,
        "the",
        1,
        "t.cha:0:0",
    )
    assert sites[2].tpr_case and sites[2].prev_role == "child" and sites[2].imitation is False
    assert context_lines(sites[2], utts) == ["*MOT: the dog is here.", "*CHI: a dog."]
    assert context_lines(sites[2], utts, label="role", max_utterances=1) == ["CHILD: a dog."]
    left, right = site_prompt(sites[2], utts)
    assert left == "*MOT: the dog is here.\n*CHI: a dog.\n*MOT: yes, " and right == " dog."
    limited, _, _ = _sites(
        nlp, "MOT: the dog is here .", "CHI: a dog .", "MOT: a dog .", context_utterances=1
    )
    assert [s.context_start for s in limited] == [0, 0, 1]


def test_imitation_flag(nlp):
    text = chat("MOT: a big ball .", "CHI: a big ball .")
    text = text.replace("*CHI:\ta big ball .", "*CHI:\ta big ball . [+ IMIT]")
    utts = list(read_chat_text(text, "i.cha", roles=SpeakerRoles()))
    sites = list(extract_sites(utts, nlp=nlp))
    assert [s.imitation for s in sites] == [False, True]


def test_token_finder_for_other_alternations(nlp):
    alt = Alternation.parse("is,are", finder="token")
    sites, _, _ = _sites(nlp, "MOT: the dog is here .", "CHI: they are big .", alternation=alt)
    assert [(s.choice, s.form) for s in sites] == [("is", "is"), ("are", "are")]


def test_eve_sites_are_stable_and_plausible(nlp, eve):
    utts = list(read_chat([eve], roles=SpeakerRoles()))
    a = list(extract_sites(utts, nlp=nlp))
    roles = Counter(s.role for s in a)
    assert roles["child"] >= 40 and roles["caretaker"] >= 120
    assert len({s.id for s in a}) == len(a)
    assert all(s.form in {"a", "an", "the"} and s.key and s.key == s.key.lower() for s in a)
    assert any(s.tpr_case for s in a if s.role == "child")
    # ids do not depend on what else is read: the same transcript inside a two-file run keeps its ids
    other = list(read_chat_text(chat("MOT: the cat .", "CHI: a cat ."), "aaa.cha", roles=SpeakerRoles()))
    b = [s for s in extract_sites(other + utts, nlp=nlp) if s.file == "eve.cha"]
    assert [(s.id, s.tpr_case, s.prev_site_id) for s in b] == [(s.id, s.tpr_case, s.prev_site_id) for s in a]
