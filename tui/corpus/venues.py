"""Venue names as people say them: `Advances in Neural Information Processing Systems` is NeurIPS.

Libraries spell venues in full (BibTeX's `booktitle`, Semantic Scholar's `venue`), often
with an edition and a year (`Proceedings of the 40th International Conference on Machine
Learning`). The list row has room for a dozen characters, so `short_venue` gives the name
researchers use: from the table below, else an acronym the name carries in parentheses,
else its first words. Pure and cheap: called for each row drawn.
"""

from __future__ import annotations

import re

# (words that identify the venue, in order, in the folded name; its short form; a
# journal?). The first entry whose words all occur in order wins, so the more
# specific patterns come first (`findings of ... acl` before `acl`).
_TABLE: tuple[tuple[tuple[str, ...], str, bool], ...] = (
    (("neural information processing systems",), "NeurIPS", False),
    (("nips",), "NeurIPS", False),
    (("neurips",), "NeurIPS", False),
    (("international conference on learning representations",), "ICLR", False),
    (("international conference on machine learning",), "ICML", False),
    (("computer vision and pattern recognition",), "CVPR", False),
    (("international conference on computer vision",), "ICCV", False),
    (("european conference on computer vision",), "ECCV", False),
    (
        ("findings of the association for computational linguistics", "emnlp"),
        "EMNLP Findings",
        False,
    ),
    (("findings of the association for computational linguistics",), "ACL Findings", False),
    (("empirical methods in natural language processing",), "EMNLP", False),
    (("north american chapter of the association for computational linguistics",), "NAACL", False),
    (("european chapter of the association for computational linguistics",), "EACL", False),
    (("transactions of the association for computational linguistics",), "TACL", True),
    (("annual meeting of the association for computational linguistics",), "ACL", False),
    (("association for computational linguistics",), "ACL", False),
    (("aaai conference on artificial intelligence",), "AAAI", False),
    (("international joint conference on artificial intelligence",), "IJCAI", False),
    (("artificial intelligence and statistics",), "AISTATS", False),
    (("uncertainty in artificial intelligence",), "UAI", False),
    (("conference on learning theory",), "COLT", False),
    (("conference on robot learning",), "CoRL", False),
    (("knowledge discovery and data mining",), "KDD", False),
    (("the web conference",), "WWW", False),
    (("world wide web",), "WWW", False),
    (("research and development in information retrieval",), "SIGIR", False),
    (("interspeech",), "Interspeech", False),
    (("acoustics speech and signal processing",), "ICASSP", False),
    (("robotics and automation",), "ICRA", False),
    (("intelligent robots and systems",), "IROS", False),
    (("journal of machine learning research",), "JMLR", True),
    (("transactions on machine learning research",), "TMLR", True),
    (("transactions on pattern analysis and machine intelligence",), "TPAMI", True),
    (("proceedings of machine learning research",), "PMLR", False),
    (("arxiv",), "arXiv", False),
    (("corr",), "CoRR", True),
)
_KNOWN_SHORT = {short.casefold(): short for _, short, _ in _TABLE if short}
_KNOWN_SHORT.update({"iclr": "ICLR", "icml": "ICML", "cvpr": "CVPR", "jmlr": "JMLR"})
_JOURNALS = frozenset(short for _, short, journal in _TABLE if journal)

_NON_WORD = re.compile(r"[^a-z0-9]+")
# `(ICML)`, `(ICML 2023)`, `(NeurIPS '22)`: an acronym the name gives itself.
_ACRONYM = re.compile(r"\(\s*([A-Z][A-Za-z0-9&-]{1,11})(?:\s*'?\d{2,4})?\s*\)")
# Words that say nothing about which venue: dropped before taking the first words.
_FILLER = re.compile(
    r"^(?:proceedings\s+of\s+(?:the\s+)?|proc\.\s+(?:of\s+)?(?:the\s+)?|the\s+)"
    r"|\b\d+(?:st|nd|rd|th)\b\s*|\b(?:19|20)\d\d\b\s*",
    re.IGNORECASE,
)
# Content words kept by the fallback; the small words between them do not count.
FIRST_WORDS = 3
_SMALL = frozenset({"on", "of", "in", "for", "and", "the", "&"})


def _folded(name: str) -> str:
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", name.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " " + _NON_WORD.sub(" ", plain).strip() + " "


def _known(name: str) -> tuple[str, bool] | None:
    folded = _folded(name)
    bare = folded.strip()
    if bare in _KNOWN_SHORT:
        short = _KNOWN_SHORT[bare]
        return short, short in _JOURNALS
    for words, short, journal in _TABLE:
        at = 0
        for phrase in words:
            found = folded.find(f" {phrase} ", at)
            if found < 0:
                break
            at = found + len(phrase) + 1
        else:
            return short, journal
    return None


# OpenReview's venue strings: the venue and its year, then what became of the paper
# (`ICLR 2024 poster`, `ICLR 2024 Conference Withdrawn Submission`, `Submitted to ICLR
# 2024`, which is one rejected or still under review). An accepted paper is shown by its
# venue alone; the others say what became of them, which matters when triaging.
_SUBMITTED = re.compile(r"^\s*submitted\s+to\s+(?P<venue>.+?)\s*$", re.IGNORECASE)
_OUTCOME = re.compile(
    r"^(?P<venue>.+?)\s+(?:conference\s+)?(?P<outcome>withdrawn|desk\s+rejected|rejected)"
    r"\s+submission\s*$",
    re.IGNORECASE,
)
_PRESENTED = re.compile(
    r"^(?P<venue>.+?)\s+(?:poster|oral|spotlight|notable[\s-]+top[\s-]+\d+%?)\s*$",
    re.IGNORECASE,
)
_OUTCOME_SHORT = {"withdrawn": "withdrawn", "desk rejected": "desk-rej", "rejected": "rejected"}


def _outcome_form(name: str) -> str | None:
    """The short form of an OpenReview venue string (see above), else None."""
    if (m := _SUBMITTED.match(name)) is not None:
        return f"{short_venue(m['venue'])} sub"
    if (m := _OUTCOME.match(name)) is not None:
        outcome = " ".join(m["outcome"].casefold().split())
        return f"{short_venue(m['venue'])} {_OUTCOME_SHORT[outcome]}"
    if (m := _PRESENTED.match(name)) is not None:
        return short_venue(m["venue"])
    return None


def tells_outcome(name: str) -> bool:
    """True when `name` says what became of a submission (`Submitted to ICLR 2024`,
    `… Withdrawn Submission`): its short form is then no abbreviation of it."""
    return _SUBMITTED.match(name) is not None or _OUTCOME.match(name) is not None


def short_venue(name: str) -> str:
    """The venue as researchers write it: `NeurIPS`, `ICLR`, `ACL Findings`; OpenReview's
    `Submitted to ICLR 2024` as `ICLR sub` (`ICLR withdrawn`, `ICLR desk-rej`; a
    poster, oral or spotlight as its venue); an acronym the name gives in parentheses;
    else its first words without `Proceedings of the`, editions and years."""
    outcome = _outcome_form(name)
    if outcome is not None:
        return outcome
    known = _known(name)
    if known is not None:
        return known[0]
    acronym = _ACRONYM.search(name)
    if acronym is not None:
        return acronym.group(1)
    words = _FILLER.sub("", name).split()
    if not words:
        return name.strip()
    kept: list[str] = []
    content = 0
    for word in words:
        if content == FIRST_WORDS:
            break
        kept.append(word)
        content += word.casefold() not in _SMALL
    return " ".join(kept)


def is_journal(name: str) -> bool:
    """True when the table knows `name` as a journal (JMLR, TMLR, TACL, TPAMI)."""
    known = _known(name)
    return known is not None and known[1]
