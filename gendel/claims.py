"""The paper's claims as tested rules: sweeps and tables in, verdicts out.

Every chapter that checks a claim of the paper states it, computes the quantities it is about,
and calls one function of this module to turn them into a verdict. The verdict of a claim checked
on several cases is :func:`verdict`.
"""

from __future__ import annotations

VERDICTS = ("holds", "partly", "does not hold", "not tested")


def verdict(passed, total):
    """The verdict of a claim checked on ``total`` cases of which ``passed`` pass.

    "holds" when every case passes, "partly" when some do, "does not hold" when none does and
    "not tested" when there is no case.

    Examples
    --------
    >>> verdict(3, 3), verdict(1, 3), verdict(0, 3), verdict(0, 0)
    ('holds', 'partly', 'does not hold', 'not tested')
    """
    passed, total = int(passed), int(total)
    if total < 0 or not 0 <= passed <= total:
        raise ValueError(f"need 0 <= passed <= total; got passed={passed}, total={total}")
    if total == 0:
        return "not tested"
    return "holds" if passed == total else ("partly" if passed > 0 else "does not hold")
