"""The lab page (book/course/lab.md), its student notebook and the checks of gendel.book.lab_checks.

- the student notebook is the page with its solutions replaced by stubs, and stays in step with it;
- executed top to bottom, the student notebook stops at step 1 with a NotImplementedError;
- the solutions page runs and every check on it passes;
- the checks pass on correct code and fail, with a message that names the mistake, on wrong code.
"""

from __future__ import annotations

import json
import os
import re

import jupytext
import numpy as np
import pytest

from conftest import REPO, stdout_of
from gendel.core import dre, models
from gendel.book import lab_notebook
from gendel.book.lab_checks import LabChecks
from gendel.deletion_test.decision import DeletionTest
from gendel.synthetic.sampling import Protocol, setup, streams

PAGE = REPO / lab_notebook.PAGE
STUDENT = REPO / lab_notebook.STUDENT
PROTOCOL = Protocol("mog8", lam=0.5, N=400, m=400, seed=0)


def _execute(nb, cwd):
    from nbclient import NotebookClient

    env = {"TQDM_DISABLE": "1", "OMP_WAIT_POLICY": "PASSIVE"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)


# --- the student notebook -----------------------------------------------------------------------

def test_student_notebook_is_in_step_with_the_page():
    assert STUDENT.read_text() == lab_notebook.student_text(PAGE), (
        f"{STUDENT.relative_to(REPO)} differs from what {PAGE.relative_to(REPO)} gives; regenerate it with "
        "`.venv/bin/python -m gendel.book.lab_notebook`")


def test_student_notebook_has_stubs_where_the_solutions_were():
    page = jupytext.read(PAGE)
    solutions = [c.source for c in page.cells if "solution" in c.metadata.get("tags", [])]
    assert len(solutions) == 6
    student = json.loads(STUDENT.read_text())
    code = ["".join(c["source"]) for c in student["cells"] if c["cell_type"] == "code"]
    stubs = [s for s in code if "raise NotImplementedError(\"Step" in s]
    assert [s.splitlines()[0] for s in stubs] == [s.splitlines()[0] for s in solutions]
    assert [f"Step {n}:" in s for n, s in enumerate(stubs, 1)] == [True] * 6
    text = STUDENT.read_text()
    for solution_only in ("searchsorted(a, t", "B * u", "Y_D_all, _, _ = rejection_sample", "type_one_band(n_rep"):
        assert solution_only in PAGE.read_text() and solution_only not in text, solution_only
    assert text.count('NotImplementedError(\\"Exercise') == 3
    assert "check.step6(result, sets, reject" in text and "(student version)" in text
    assert "solutions** version" not in text


def _student_markdown():
    return ["".join(c["source"]) for c in json.loads(STUDENT.read_text())["cells"] if c["cell_type"] == "markdown"]


#: MyST syntax that Colab shows as raw text: roles, directive fences (``` and :::), labelled math, targets.
MYST_SYNTAX = re.compile(r"\{[a-z]+(?::[a-z]+)?\}`|^(?:`{3,}|:{3,})\{|\$\$[ \t]*\([\w-]+\)|^\([\w-]+\)=", re.M)


def test_student_notebook_is_plain_markdown_that_colab_renders():
    """No MyST role, directive or label is left in the student notebook (Colab would show it as text)."""
    left = [m.group(0) for text in _student_markdown() for m in MYST_SYNTAX.finditer(text)]
    assert not left, f"MyST syntax left in {STUDENT.name}: {left}; teach lab_notebook.plain_markdown to convert it"
    page = PAGE.read_text()
    assert "{doc}`" in page and "{cite}`" in page and "{exercise}" in page and "$$ (eq-" in page  # there was some
    text = "\n".join(_student_markdown())
    assert "Kong and Alfeld (2023)" in text and "**Exercise 1**" in text and "\\tag{1}" in text


def test_student_notebook_uses_only_tex_commands_that_mathjax_defines():
    """Every TeX command in the notebook's markdown is one the book's own (vendored) MathJax defines,
    so no macro of the book is left unexpanded."""
    mathjax = (REPO / "book/_vendor/mathjax/tex-mml-chtml.js").read_text(errors="replace")
    used = {name for text in _student_markdown() for name in re.findall(r"\\([A-Za-z]+)", text)}
    assert {"hat", "mathcal", "frac"} <= used
    undefined = sorted(name for name in used if not re.search(rf"[{{,]\"?{name}\"?:", mathjax))
    assert not undefined, f"TeX commands that MathJax does not define: {undefined}"


def test_plain_markdown_converts_roles_directives_and_macros(tmp_path):
    book = tmp_path / "book"
    (book / "course").mkdir(parents=True)
    (book / "other.md").write_text("# The other page\n")
    (book / "references.bib").write_text("@book{a2020, author = {Able, A. and Baker, B. and Cole, C.}, "
                                         "title = {T}, year = {2020}}\n")
    page = book / "course" / "lab.md"
    text = ("See {doc}`../other` and {doc}`the page <../other>`, {cite}`a2020`, {ref}`ex-b`, {eq}`eq-x`.\n\n"
            "$$\n\\rhohat = 1\n$$ (eq-x)\n\n:::{note}\nMind {doc}`../other`.\n:::\n\n"
            "```{exercise}\n:label: ex-b\n\nDo it.\n```\n")
    config = tmp_path / "_config.yml"
    config.write_text("repository:\n  url: ''\nsphinx:\n  config:\n    mathjax3_config:\n      tex:\n"
                      "        macros:\n          rhohat: '\\hat{\\rho}'\n")
    plain = lab_notebook.plain_markdown(text, page, config=config)
    assert plain.startswith("See *The other page* and *the page*, Able et al. (2020), Exercise 1, (1).")
    assert "$$\n\\hat{\\rho} = 1\n\\tag{1}\n$$" in plain
    assert "**Note**\n\n> Mind *The other page*." in plain and "**Exercise 1**\n\n> Do it." in plain
    config.write_text("repository:\n  url: https://github.com/o/gendel\n  branch: main\n")
    linked = lab_notebook.plain_markdown("{doc}`../other`", page, config=config)
    assert linked == "[The other page](https://o.github.io/gendel/book/other.html)"
    with pytest.raises(ValueError, match="no plain-Markdown form"):
        lab_notebook.plain_markdown("```{tableofcontents}\n```", page, config=config)


def test_student_notebook_starts_with_the_install_cell():
    """Colab opens the student notebook bare: its first code cell installs gendel, as on every page."""
    from gendel.book.install import render_cell

    cells = json.loads(STUDENT.read_text())["cells"]
    assert cells[0]["cell_type"] == "markdown" and "".join(cells[0]["source"]).startswith("# Lab")
    assert "".join(cells[1]["source"]) == render_cell(REPO / "_config.yml")


def test_student_notebook_stops_at_the_first_step():
    from nbclient.exceptions import CellExecutionError

    import nbformat

    nb = nbformat.read(STUDENT, as_version=4)
    with pytest.raises(CellExecutionError) as err:
        _execute(nb, STUDENT.parent)
    assert err.value.ename == "NotImplementedError", f"stopped with {err.value.ename}: {err.value.evalue}"
    assert err.value.evalue.startswith("Step 1: write X, the boolean mask")


def test_a_solution_cell_without_a_step_header_is_refused():
    with pytest.raises(ValueError, match="# Step n: what to write"):
        lab_notebook.stub("x = 1")


def test_a_missing_page_says_where_to_run():
    with pytest.raises(FileNotFoundError, match="repository root"):
        lab_notebook.student_notebook("no/such/lab.md")


# --- the solutions page -------------------------------------------------------------------------

def test_solutions_page_runs_and_every_check_passes():
    nb = jupytext.read(PAGE)
    _execute(nb, PAGE.parent)
    out = stdout_of(nb)
    for n in range(1, 7):
        assert f"✓ step {n}:" in out, f"step {n}'s check did not pass:\n{out}"


# --- the checks, on correct and on wrong code ---------------------------------------------------

@pytest.fixture(scope="module")
def lab():
    """A correct run of steps 1-3, as the page's solutions write it."""
    check = LabChecks(PROTOCOL)
    X, deleted, _ = setup(PROTOCOL)
    B = PROTOCOL.N / (PROTOCOL.N - deleted.sum())
    p_hat = models.KDE(bandwidth=0.1).fit(X)
    p_prime = models.KDE(bandwidth=0.1).fit(X[~deleted])
    kbc = dre.KernelClassifierDRE(bandwidth=0.1).fit(X, deleted)
    return dict(check=check, X=X, deleted=deleted, B=B, p_hat=p_hat, p_prime=p_prime, kbc=kbc)


def rejection(lab, rng, accept):
    """Alg. 1 with the acceptance rule ``accept(ratio, B, u)``; returns (Y, accepted, proposed)."""
    kept, acc, prop, m = [], 0, 0, PROTOCOL.m
    while acc < m:
        y = lab["p_hat"].sample(2 * m, rng=rng)
        keep = accept(lab["kbc"].ratio(y), lab["B"], rng.random(len(y)))
        kept.append(y[keep])
        acc, prop = acc + int(keep.sum()), prop + len(y)
    return np.concatenate(kept)[:m], acc, prop


def draw(lab, seed, accept=lambda r, B, u: r > B * u):
    rng = np.random.default_rng(seed)
    Y_D, acc, prop = rejection(lab, rng, accept)
    m = PROTOCOL.m
    sets = {"Yhat": lab["p_hat"].sample(m, rng=rng), "D": Y_D, "H0": lab["p_hat"].sample(m, rng=rng),
            "H1": lab["p_prime"].sample(m, rng=rng)}
    return sets, acc, prop


def test_correct_steps_pass(lab, capsys):
    check = lab["check"]
    check.step1(lab["X"], lab["deleted"], lab["B"])
    check.step2(lab["p_hat"], lab["p_prime"], lab["kbc"])
    for seed in range(3):  # the distributional checks pass for several draws, not one lucky one
        check.step3(*draw(lab, seed))
    sets, _, _ = draw(lab, 0)
    log = {k: lab["kbc"].log_ratio(Y) for k, Y in sets.items()}
    psi = lambda t: t / (1 + np.exp(t))  # noqa: E731
    check.step4(sets, {k: log[k].mean() for k in "D H0 H1".split()},
                {k: psi(log["Yhat"]).mean() + psi(log[k]).mean() for k in "D H0 H1".split()})
    result = DeletionTest(lab["p_hat"], lab["kbc"], n_null=200, rng=0).test(sets["D"])
    check.step6(result, sets, result.p_value <= 0.05)
    assert [line[:8] for line in capsys.readouterr().out.splitlines() if not line.startswith(" ")] == \
        ["✓ step 1", "✓ step 2"] + ["✓ step 3"] * 3 + ["✓ step 4", "✓ step 6"]


def test_step1_catches_a_wrong_stream_and_a_wrong_bound(lab):
    check, X, deleted = lab["check"], lab["X"], lab["deleted"]
    with pytest.raises(AssertionError, match="differs from the protocol's data set.*streams"):
        check.step1(X + 1e-3, deleted, lab["B"])
    with pytest.raises(AssertionError, match="B = [0-9.]+, expected N / \\(N - N'\\)"):
        check.step1(X, deleted, PROTOCOL.N / deleted.sum())
    s = streams(PROTOCOL.seed)
    with pytest.raises(AssertionError, match="deletion_mask"):
        check.step1(X, s["mask"].random(PROTOCOL.N) < 0.2, lab["B"])


def test_step2_catches_swapped_training_sets_and_a_wrong_bandwidth(lab):
    check = lab["check"]
    with pytest.raises(AssertionError, match="p_hat.log_prob.*fit p_hat on the other set"):
        check.step2(lab["p_prime"], lab["p_hat"], lab["kbc"])
    wide = models.KDE(bandwidth=0.2).fit(lab["X"])
    with pytest.raises(AssertionError, match="sigma_A = 0.1"):
        check.step2(wide, lab["p_prime"], lab["kbc"])
    on_rest = dre.KernelClassifierDRE(bandwidth=0.1).fit(lab["X"], np.arange(400) < 5)
    with pytest.raises(AssertionError, match="dre.log_ratio"):
        check.step2(lab["p_hat"], lab["p_prime"], on_rest)


@pytest.mark.parametrize("wrong, message", [
    (lambda r, B, u: B / r > u, "accepted 1.000"),             # ratio / B inverted: accepts everything
    (lambda r, B, u: r < B * u, "accepted 0.2"),               # the comparison reversed
    (lambda r, B, u: u < 0.786, "mean ratio on Y_D"),          # the right rate, but blind to the ratio
])
def test_step3_catches_a_wrong_rejection_sampler(lab, wrong, message):
    with pytest.raises(AssertionError, match=message):
        lab["check"].step3(*draw(lab, 0, accept=wrong))


def test_step3_catches_swapped_hypotheses_and_a_reused_sample(lab):
    sets, acc, prop = draw(lab, 0)
    with pytest.raises(AssertionError, match="Y_H0.*looks like the other model"):
        lab["check"].step3({**sets, "H0": sets["H1"], "H1": sets["H0"]}, acc, prop)
    with pytest.raises(AssertionError, match="Y_hat and Y_H0 are the same points"):
        lab["check"].step3({**sets, "Yhat": sets["H0"]}, acc, prop)
    with pytest.raises(AssertionError, match="expected \\(m, 2\\)"):
        lab["check"].step3({**sets, "D": sets["D"][:10]}, acc, prop)


def test_step4_catches_the_mean_ratio_and_half_an_asc(lab):
    sets, _, _ = draw(lab, 0)
    log = {k: lab["kbc"].log_ratio(Y) for k, Y in sets.items()}
    psi = lambda t: t / (1 + np.exp(t))  # noqa: E731
    lr = {k: log[k].mean() for k in "D H0 H1".split()}
    asc = {k: psi(log["Yhat"]).mean() + psi(log[k]).mean() for k in lr}
    with pytest.raises(AssertionError, match="mean of rho_hat_E, not of log"):
        lab["check"].step4(sets, {k: np.exp(log[k]).mean() for k in lr}, asc)
    with pytest.raises(AssertionError, match="only the Y half"):
        lab["check"].step4(sets, lr, {k: psi(log[k]).mean() for k in lr})


def test_step5_catches_a_one_sided_ks_and_a_left_continuous_one(lab):
    def one_sided(a, b):
        a, b = np.sort(a), np.sort(b)
        t = np.concatenate([a, b])
        return np.max(np.searchsorted(a, t, side="right") / len(a) - np.searchsorted(b, t, side="right") / len(b))

    def points_of_a_only(a, b):
        a, b = np.sort(a), np.sort(b)
        return np.max(np.abs(np.arange(1, len(a) + 1) / len(a) - np.searchsorted(b, a, side="right") / len(b)))

    with pytest.raises(AssertionError, match="ks\\(b, a\\) must be equal"):
        lab["check"].step5(one_sided)
    with pytest.raises(AssertionError, match="step 5: ks"):
        lab["check"].step5(points_of_a_only)


def test_step6_catches_the_wrong_sample_and_a_wrong_decision(lab):
    sets, _, _ = draw(lab, 0)
    test = DeletionTest(lab["p_hat"], lab["kbc"], n_null=200, rng=0)
    with pytest.raises(AssertionError, match="the LR of Y_D"):
        lab["check"].step6(test.test(sets["H0"]), sets, False)
    result = test.test(sets["D"])
    with pytest.raises(AssertionError, match="reject H0 .* when p <= alpha"):
        lab["check"].step6(result, sets, not (result.p_value <= 0.05))


def test_checks_need_a_protocol():
    with pytest.raises(TypeError, match="gendel.synthetic.sampling.Protocol"):
        LabChecks("mog8")


# --- the built book -----------------------------------------------------------------------------

@pytest.mark.book
@pytest.mark.parametrize("page", ["book/course/lab", "book/course/teacher"])
def test_the_built_page_offers_the_student_notebook_for_download(book_html, page):
    """The lab and teacher pages link the student notebook (the page's own download button gives
    the solutions), and the linked file is the student notebook of the repository."""
    from conftest import PAGES

    if page not in PAGES:
        pytest.skip(f"{page} is not in this table of contents")
    html = (book_html / f"{page}.html").read_text()
    links = re.findall(r'href="([^"]*lab_student\.ipynb)"', html)
    assert links, f"{page} has no link to lab_student.ipynb"
    target = (book_html / page).parent / links[0]
    assert target.resolve().is_file(), f"{page} links {links[0]}, which is not in the built book"
    assert target.read_text() == STUDENT.read_text(), f"{links[0]} is not {STUDENT.relative_to(REPO)}"


def test_the_own_classifier_check_catches_typical_wrong_answers_with_a_hint():
    """The check of the exercise "a classifier of one's own" (classifier_dre page): a right answer
    passes and reports a share that agrees with the page's own measure; a classifier not wrapped, a DRE
    not fitted, one fitted on other data, and one whose probabilities are broken each fail with a hint."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression

    from gendel.book.lab_checks import check_own_dre
    from gendel.core.dre import ClassifierDRE
    from gendel.synthetic.sampling import Protocol, setup

    X, deleted, exact = setup(Protocol("mog8", lam=0.6, N=400, sigma_a=0.1))
    forest = ClassifierDRE(RandomForestClassifier(n_estimators=50, min_samples_leaf=10, random_state=0))
    share = check_own_dre(forest.fit(X, deleted), exact, {"logistic": 0.0}, n=5000)
    # the page's measure, computed here along its own path
    Y = exact.pretrained_.sample(5000, rng=np.random.default_rng(7))
    target = exact.ratio(Y)
    assert share == pytest.approx(1 - np.abs(forest.ratio(Y) - target).mean() / np.abs(1 - target).mean())
    assert 0.1 < share < 1

    class Broken(LogisticRegression):
        def predict_proba(self, X):
            return super().predict_proba(X) * 2 - 1.5      # not probabilities

    wrong = {
        "not yet a DRE": RandomForestClassifier(),
        "not fitted": ClassifierDRE(LogisticRegression()),
        "page's X has": ClassifierDRE(LogisticRegression()).fit(X[:200], deleted[:200]),
        "not finite or negative": ClassifierDRE(Broken()).fit(X, deleted),
    }
    for hint, answer in wrong.items():
        with pytest.raises(AssertionError, match=hint):
            check_own_dre(answer, exact, {}, n=2000)
