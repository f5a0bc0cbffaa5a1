"""All the paper's claims in one table: the 2-D experiments, the GAN experiments and the theorems.

The chapters check the claims of their part of the paper (:func:`gendel.claims.q1`, ``q2``,
``q3`` on the §5.1 sweeps; :func:`!gendel.claims.gan.claims` on the result files of the GAN
jobs; :func:`gendel.claims.theory.theory` on the theory pages' checks). :func:`summary` takes
the claims those functions return and labels each with its half of the book and the page that
checks it; :func:`table` makes the rows of one table and :func:`counts` counts the verdicts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from gendel.claims.base import VERDICTS, Claim

#: The halves of the book, in the order of the table.
HALVES = ("2-D", "GAN", "theory")
#: The columns of :func:`table`.
HEADER = ("claim", "verdict", "where", "our numbers", "evidence")

#: The page, the label of the section that checks each question of the 2-D half, and the link's text.
SYNTHETIC_EVIDENCE = {
    "Q1": ("synthetic/q1_approximation", "q1-claims", "2-D chapter, Q1: claims"),
    "Q2": ("synthetic/q2_fast_deletion", "q2-claims", "2-D chapter, Q2: claims"),
    "Q3": ("synthetic/q3_deletion_test", "q3-claims", "2-D chapter, Q3: claims"),
}
#: The page and section of each claim of the GAN half (by its key), as in the GAN chapter.
#: How the closing table names a GAN row's results (another key of ``gan`` names itself).
_GAN_GROUPS = {"quick": "quick profile", "gpu": "gpu profile", "baselines": "baselines grid, 5 seeds"}

GAN_EVIDENCE = {
    **dict.fromkeys(("fewer_deleted_labels", "close_to_retrained", "odd_variance_higher"),
                    ("gan/q2_fast_deletion", "gan-q2-claims", "GAN chapter, Q2: claims")),
    "fast": ("gan/q2_fast_deletion", "gan-q2-cost", "GAN chapter: cost at equal quality"),
    **dict.fromkeys(("separation", "lr_better_than_asc", "odd_separates_better", "no_lr_asc_difference",
                     "smaller_lambda_not_more_separation", "fashion_lambda", "fashion_harder"),
                    ("gan/q3_deletion_test", "gan-q3-claims", "GAN chapter, Q3: claims")),
}


@dataclass(frozen=True)
class Row:
    """One claim of the closing table: the claim, its half, its group and where the book checks it.

    Parameters
    ----------
    half : str
        One of :data:`HALVES`.
    group : str
        The question ("Q1") or the GAN profile ("gpu"); "" for the theorems.
    claim : Claim
    page : str
        The page that checks it, relative to the book's folder ("synthetic/q1_approximation").
    label : str
        The label of the section or theorem that checks it ("" for none).
    text : str
        The text of the link ("2-D chapter, Q1: claims"; "" for the page's title).
    role : str
        The role that links to ``label``: "ref" (a section) or "prf:ref" (a theorem).

    Examples
    --------
    >>> r = Row("2-D", "Q1", Claim("k", "KS grows", "§5.1", "9/10", "partly"), "synthetic/q1_approximation",
    ...         "q1-claims", "Q1: claims")
    >>> r.evidence()
    '{ref}`Q1: claims <q1-claims>`'
    >>> Row("theory", "", r.claim, "theory/approximation", "thm-approx-rc", "Approximation", "prf:ref").evidence()
    '{doc}`Approximation <theory/approximation>`, {prf:ref}`the theorem <thm-approx-rc>`'
    """

    half: str
    group: str
    claim: Claim
    page: str
    label: str = ""
    text: str = ""
    role: str = "ref"

    def __post_init__(self):
        if self.half not in HALVES:
            raise ValueError(f"half must be one of {HALVES}; got {self.half!r}")
        if not isinstance(self.claim, Claim):
            raise TypeError(f"claim must be a gendel.claims.Claim; got {type(self.claim).__name__}")

    def evidence(self):
        """The link to the section that checks the claim, or to the page and the theorem, in MyST."""
        page = f"{{doc}}`{self.text} <{self.page}>`" if self.text else f"{{doc}}`{self.page}`"
        if not self.label:
            return page
        if self.role == "prf:ref":
            return f"{page}, {{prf:ref}}`the theorem <{self.label}>`"
        return f"{{ref}}`{self.text or 'the section'} <{self.label}>`"


def summary(synthetic=None, gan=None, theory=None):
    """The claims of every half as :class:`Row` s, in the order of the book.

    Parameters
    ----------
    synthetic : dict, optional
        ``{"Q1": claims, "Q2": claims, "Q3": claims}``, each the list that
        :func:`gendel.claims.q1` (``q2``, ``q3``) returns on the chapter's sweeps.
    gan : dict, optional
        ``{profile: claims}``, each the list that :func:`!gendel.claims.gan.claims` returns on a
        profile's results ("gpu", "quick"); a claim of the GAN half gets one row per profile.
    theory : list of Claim, optional
        What :func:`gendel.claims.theory.theory` returns.

    Returns
    -------
    list of Row

    Examples
    --------
    >>> from gendel.claims import Claim
    >>> c = Claim("wide", "separates", "§5.1", "8/8", "holds")
    >>> rows = summary(synthetic={"Q3": [c]}, gan={"gpu": [Claim("fast", "fast", "§5.2", "3×", "does not hold")]})
    >>> [(r.half, r.group, r.claim.verdict) for r in rows]
    [('2-D', 'Q3', 'holds'), ('GAN', 'gpu', 'does not hold')]
    """
    from gendel.claims.theory import THEORY_EVIDENCE

    rows = []
    for question, claims in (synthetic or {}).items():
        if question not in SYNTHETIC_EVIDENCE:
            raise ValueError(f"synthetic needs the questions {tuple(SYNTHETIC_EVIDENCE)}; got {question!r}")
        rows += [Row("2-D", question, _claim(c), *SYNTHETIC_EVIDENCE[question]) for c in claims]
    for profile, claims in (gan or {}).items():
        for c in map(_claim, claims):
            if c.key not in GAN_EVIDENCE:
                raise ValueError(f"no page checks the GAN claim {c.key!r}; add it to GAN_EVIDENCE")
            rows.append(Row("GAN", str(profile), c, *GAN_EVIDENCE[c.key]))
    for c in map(_claim, theory or []):
        page, label, text = THEORY_EVIDENCE.get(c.key, ("theory/index", "", "Theory, checked"))
        rows.append(Row("theory", "", c, page, label, text, role="prf:ref"))
    return rows


def _claim(c):
    if not isinstance(c, Claim):
        raise TypeError(f"expected gendel.claims.Claim objects (as q1, q2, q3 and gan.claims return); "
                        f"got {type(c).__name__}")
    return c


def table(rows, half=None):
    """The cells of the closing table (:data:`HEADER`), one list per row, optionally of one half.

    The claim cell names its group: "Q1: KS grows", "gpu profile: …".

    Examples
    --------
    >>> rows = summary(synthetic={"Q1": [Claim("k", "KS grows", "§5.1", "9/10", "partly")]})
    >>> table(rows)[0][:4]
    ['Q1: KS grows', '**partly**', '§5.1', '9/10']
    """
    if half is not None and half not in HALVES:
        raise ValueError(f"half must be one of {HALVES} or None; got {half!r}")
    out = []
    for r in rows:
        if half is not None and r.half != half:
            continue
        group = f"{_GAN_GROUPS.get(r.group, r.group)}: " if r.half == "GAN" else (f"{r.group}: " if r.group else "")
        out.append([group + r.claim.text, f"**{r.claim.verdict}**", r.claim.where, r.claim.numbers, r.evidence()])
    return out


def counts(rows, half=None):
    """How many rows have each verdict: ``{verdict: n}`` over :data:`gendel.claims.VERDICTS`.

    Examples
    --------
    >>> rows = summary(synthetic={"Q1": [Claim("a", "a", "", "", "holds"), Claim("b", "b", "", "", "holds")]})
    >>> counts(rows)["holds"], counts(rows)["partly"], counts(rows, "GAN")["holds"]
    (2, 0, 0)
    """
    if half is not None and half not in HALVES:
        raise ValueError(f"half must be one of {HALVES} or None; got {half!r}")
    n = Counter(r.claim.verdict for r in rows if half is None or r.half == half)
    return {v: int(n.get(v, 0)) for v in VERDICTS}


__all__ = ["GAN_EVIDENCE", "HALVES", "HEADER", "Row", "SYNTHETIC_EVIDENCE", "counts", "summary", "table"]
