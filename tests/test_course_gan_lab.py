"""The GAN lab page (book/course/gan_lab.md), its student notebook and the checks of gendel.book.gan_lab_checks.

- the student notebook is the page with its solutions replaced by stubs, and stays in step with it;
- executed top to bottom, the student notebook trains the models and stops at step 1;
- the solutions page runs top to bottom in a fresh kernel and every check on it passes;
- the checks pass on correct answers and fail, each with its hint, on the typical wrong ones:
  the ratio where the log ratio belongs, a two-sided p-value, the share over the wrong labels,
  Alg. 1's rate without the bound B, one seed of the stored grid instead of their mean.

The models are trained once into the book's cache folder (the one ``make book`` uses), so the
page's run and the checks here load the same checkpoints.
"""

from __future__ import annotations

import json
import os
import re

import jupytext
import numpy as np
import pytest

from conftest import BOOK_ENV, REPO, stdout_of
from gendel.book import lab_notebook

PAGE = REPO / "book/course/gan_lab.md"
STUDENT = REPO / "book/course/gan_lab_student.ipynb"
ENV = {"TQDM_DISABLE": "1", "OMP_WAIT_POLICY": "PASSIVE", "GENDEL_CACHE_DIR": BOOK_ENV["GENDEL_CACHE_DIR"]}


@pytest.fixture(scope="module", autouse=True)
def _environment():
    old = {k: os.environ.get(k) for k in ENV}
    os.environ.update(ENV)
    yield
    for k, v in old.items():
        os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)


def _execute(nb):
    from nbclient import NotebookClient

    NotebookClient(nb, timeout=1200, kernel_name="python3", resources={"metadata": {"path": str(PAGE.parent)}}).execute()


# --- the student notebook -----------------------------------------------------------------------

def test_student_notebook_is_in_step_with_the_page():
    assert STUDENT.read_text() == lab_notebook.student_text(PAGE), (
        f"{STUDENT.relative_to(REPO)} differs from what {PAGE.relative_to(REPO)} gives; regenerate it with "
        "`.venv/bin/python -m gendel.book.lab_notebook book/course/gan_lab.md book/course/gan_lab_student.ipynb`")


@pytest.mark.parametrize("notebook", ["gan_lab_student.ipynb", "lab_student.ipynb"])
def test_the_student_notebooks_prose_quotes_no_constant_the_notebook_lacks(notebook):
    # the GAN lab once named its size `LAB_PROFILE`, which no cell of the notebook defines (job.profile does)
    cells = json.loads((REPO / "book/course" / notebook).read_text())["cells"]
    prose = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    constants = set(re.findall(r"`([A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{3,})`", prose))
    assert not [name for name in constants if not re.search(rf"\b{name}\b", code)]


def test_student_notebook_has_stubs_where_the_solutions_were():
    page = jupytext.read(PAGE)
    solutions = [c.source for c in page.cells if "solution" in c.metadata.get("tags", [])]
    assert len(solutions) == 6
    student = json.loads(STUDENT.read_text())
    code = ["".join(c["source"]) for c in student["cells"] if c["cell_type"] == "code"]
    stubs = [s for s in code if "raise NotImplementedError(\"Step" in s]
    assert [s.splitlines()[0] for s in stubs] == [s.splitlines()[0] for s in solutions]
    text = STUDENT.read_text()
    for solution_only in ("np.isin(models.labels[~models.deleted]", "np.minimum(np.exp(models.vdm.log_ratio(Y_pre)), B)",
                          "(1 + np.sum(null >= lr[key]))", "small_B = float(np.median", "power.rate:.2f",
                          "gap closed {np.mean(gaps):.2f}"):
        assert solution_only in PAGE.read_text() and solution_only not in text, solution_only
    # one stub per exercise of the page, each in place of its solution
    assert text.count('NotImplementedError(\\"Exercise') == PAGE.read_text().count("```{exercise}") == 3
    assert "check.step6(quick_share, gap_closed)" in text and "(student version)" in text
    assert "solutions** version" not in text
    assert "models = train(job)" in text      # the training cell is given, not a step


def test_student_notebook_trains_and_stops_at_the_first_step():
    from nbclient.exceptions import CellExecutionError

    import nbformat

    nb = nbformat.read(STUDENT, as_version=4)
    with pytest.raises(CellExecutionError) as err:
        _execute(nb)
    assert err.value.ename == "NotImplementedError", f"stopped with {err.value.ename}: {err.value.evalue}"
    assert err.value.evalue.startswith("Step 1: write deleted_labels")


# --- the solutions page -------------------------------------------------------------------------

def test_solutions_page_runs_and_every_check_passes():
    nb = jupytext.read(PAGE)
    _execute(nb)
    out = stdout_of(nb)
    for n in range(1, 7):
        assert f"✓ step {n}:" in out, f"step {n}'s check did not pass:\n{out}"


# --- the checks, on correct and on wrong answers ------------------------------------------------

@pytest.fixture(scope="module")
def lab():
    """Correct answers to every step, computed here as a student would."""
    from gendel.book.gan_lab_checks import GANLabChecks, lab_job
    from gendel.core.deletion import ApproximateDeletion
    from gendel.deletion_test.decision import DeletionTest
    from gendel.gan.result_files import stored_results
    from gendel.gan.experiment import train

    job = lab_job()
    models = train(job, progress=False)
    m, B, odd = 1000, job.profile.bound, np.array([1, 3, 5, 7, 9])
    approx = ApproximateDeletion(models.pretrained, models.vdm, bound=B)
    Y_approx = approx.sample(m, rng=np.random.default_rng(1))
    Y_pre = models.pretrained.sample(m, rng=np.random.default_rng(2))
    samples = {"pre": Y_pre, "approx": Y_approx, "re": models.retrained.sample(m, rng=np.random.default_rng(3))}
    labels = {k: models.classifier.predict(Y) for k, Y in samples.items()}
    log_pre = models.vdm.log_ratio(Y_pre)
    test = DeletionTest(models.pretrained, models.vdm, statistic="lr", n_null=100, rng=4)
    null = test.null_distribution(200)
    lr = {k: models.vdm.log_ratio(samples[k][:200]).mean() for k in ("approx", "re")}
    quick = [r for r in stored_results("quick") if (r.dataset, r.setting, r.lam) == ("mnist", "odd", 0.7)]
    quick_share = {k: np.mean([r.labels[k][odd].sum() / r.labels[k].sum() for r in quick])
                   for k in ("pre", "re", "approx", "control")}
    return dict(check=GANLabChecks(job), models=models, odd=odd, B=B, approx=approx, Y_approx=Y_approx,
                Y_pre=Y_pre, samples=samples, labels=labels, log_pre=log_pre, test=test, null=null, lr=lr,
                quick=quick, quick_share=quick_share)


def _p(null, value):
    return (1 + np.sum(null >= value)) / (1 + len(null))


def _shares(lab, labels_of_interest):
    return {k: np.isin(v, labels_of_interest).mean() for k, v in lab["labels"].items()}


def _expected_share(lab, weights):
    return weights[np.isin(lab["labels"]["pre"], lab["odd"])].sum() / weights.sum()


def test_correct_answers_pass(lab, capsys):
    check, models, odd = lab["check"], lab["models"], lab["odd"]
    check.step1(models, odd, np.isin(models.labels, odd).mean(), np.isin(models.labels[~models.deleted], odd).mean())
    log_X = models.vdm.log_ratio(models.X)
    in_odd = np.isin(models.labels, odd)
    check.step2(np.exp(log_X).mean(), {"deleted": log_X[in_odd].mean(), "kept": log_X[~in_odd].mean()})
    w = np.minimum(np.exp(lab["log_pre"]), lab["B"])
    check.step3(lab["approx"], lab["Y_approx"], w.mean() / lab["B"], lab["Y_pre"])
    check.step4(lab["samples"], _shares(lab, odd), _expected_share(lab, w))
    check.step5(lab["test"], lab["samples"], lab["lr"], {k: _p(lab["null"], v) for k, v in lab["lr"].items()}, 200)
    q = lab["quick_share"]
    check.step6(q, (q["pre"] - q["approx"]) / (q["pre"] - q["re"]))
    assert [line[:8] for line in capsys.readouterr().out.splitlines() if not line.startswith(" ")] == \
        [f"✓ step {n}" for n in range(1, 7)]


def test_step1_catches_the_other_parity_and_the_share_of_X_for_the_kept_images(lab):
    check, models, odd = lab["check"], lab["models"], lab["odd"]
    even = np.array([0, 2, 4, 6, 8])
    share_X = np.isin(models.labels, odd).mean()
    with pytest.raises(AssertionError, match="not the other parity"):
        check.step1(models, even, np.isin(models.labels, even).mean(), 0.4)
    with pytest.raises(AssertionError, match=r"share_kept .*keep only the images not in X'"):
        check.step1(models, odd, share_X, share_X)


def test_step2_catches_the_ratio_instead_of_the_log_ratio(lab):
    models, odd = lab["models"], lab["odd"]
    log_X = models.vdm.log_ratio(models.X)
    in_odd = np.isin(models.labels, odd)
    as_ratio = {"deleted": np.exp(log_X[in_odd]).mean(), "kept": np.exp(log_X[~in_odd]).mean()}
    with pytest.raises(AssertionError, match="mean of log ρ̂_ℰ .*not of its exp"):
        lab["check"].step2(np.exp(log_X).mean(), as_ratio)
    with pytest.raises(AssertionError, match="mean_ratio .*a mean of the ratio, np.exp"):
        lab["check"].step2(log_X.mean(), {"deleted": log_X[in_odd].mean(), "kept": log_X[~in_odd].mean()})


def test_step3_catches_a_rate_without_the_bound_and_a_wrong_bound(lab):
    from gendel.core.deletion import ApproximateDeletion

    w = np.minimum(np.exp(lab["log_pre"]), lab["B"])
    with pytest.raises(AssertionError, match="divide by B"):
        lab["check"].step3(lab["approx"], lab["Y_approx"], np.exp(lab["log_pre"]).mean(), lab["Y_pre"])
    models = lab["models"]
    small = ApproximateDeletion(models.pretrained, models.vdm, bound=1.0)
    with pytest.raises(AssertionError, match="the lab uses the profile's B = 10"):
        lab["check"].step3(small, lab["Y_approx"], w.mean() / lab["B"], lab["Y_pre"])


def test_step4_catches_the_share_over_the_wrong_labels_and_an_unweighted_expectation(lab):
    odd, even = lab["odd"], np.array([0, 2, 4, 6, 8])
    w = np.minimum(np.exp(lab["log_pre"]), lab["B"])
    with pytest.raises(AssertionError, match="share of the kept labels: count the labels in deleted_labels"):
        lab["check"].step4(lab["samples"], _shares(lab, even), _expected_share(lab, w))
    right = _shares(lab, odd)
    with pytest.raises(AssertionError, match=r"weight each sample of p̂ by min\(ρ̂_ℰ\(y\), B\)"):
        lab["check"].step4(lab["samples"], right, right["pre"])


def test_step5_catches_a_two_sided_p_value_a_missing_one_and_the_mean_ratio(lab):
    null, lr = lab["null"], lab["lr"]
    check = lab["check"]
    one = {k: _p(null, v) for k, v in lr.items()}
    lower = {k: (1 + np.sum(null <= v)) / (1 + len(null)) for k, v in lr.items()}
    two = {k: min(1.0, 2 * min(one[k], lower[k])) for k in lr}
    assert two != one
    with pytest.raises(AssertionError, match="a one-sided p-value"):
        check.step5(lab["test"], lab["samples"], lr, two, 200)
    centre = null.mean()
    symmetric = {k: (1 + np.sum(np.abs(null - centre) >= abs(v - centre))) / (1 + len(null)) for k, v in lr.items()}
    if symmetric != one:
        with pytest.raises(AssertionError, match="a one-sided p-value"):
            check.step5(lab["test"], lab["samples"], lr, symmetric, 200)
    with pytest.raises(AssertionError, match="add one to both counts"):
        check.step5(lab["test"], lab["samples"], lr, {k: np.sum(null >= v) / len(null) for k, v in lr.items()}, 200)
    models = lab["models"]
    ratio = {k: np.exp(models.vdm.log_ratio(lab["samples"][k][:200])).mean() for k in lr}
    with pytest.raises(AssertionError, match="LR is the mean of log ρ̂_ℰ"):
        check.step5(lab["test"], lab["samples"], ratio, one, 200)


def test_step6_catches_one_seed_and_an_inverted_gap(lab):
    odd, q = lab["odd"], lab["quick_share"]
    r0 = lab["quick"][0]
    one_seed = {k: r0.labels[k][odd].sum() / r0.labels[k].sum() for k in q}
    with pytest.raises(AssertionError, match="average over the 3 seeds"):
        lab["check"].step6(one_seed, 0.4)
    with pytest.raises(AssertionError, match="0 for doing nothing"):
        lab["check"].step6(q, (q["pre"] - q["re"]) / (q["pre"] - q["approx"]))


def test_checks_need_a_job():
    from gendel.book.gan_lab_checks import GANLabChecks

    with pytest.raises(TypeError, match="lab_job"):
        GANLabChecks("mnist-odd-0.7-seed0")


# --- the built book -----------------------------------------------------------------------------

@pytest.mark.book
@pytest.mark.parametrize("page", ["book/course/gan_lab", "book/course/teacher"])
def test_the_built_page_offers_the_gan_lab_student_notebook(book_html, page):
    """The GAN lab and the teacher page link the GAN lab's student notebook, and the linked file is
    the repository's."""
    import re

    from conftest import PAGES

    if page not in PAGES:
        pytest.skip(f"{page} is not in this table of contents")
    html = (book_html / f"{page}.html").read_text()
    links = re.findall(r'href="([^"]*gan_lab_student\.ipynb)"', html)
    assert links, f"{page} has no link to gan_lab_student.ipynb"
    target = (book_html / page).parent / links[0]
    assert target.resolve().read_text() == STUDENT.read_text()


def test_student_notebook_is_plain_markdown_that_colab_renders():
    """No MyST role, directive or label is left in the student notebook (Colab would show it as text)."""
    from test_course_lab import MYST_SYNTAX

    markdown = ["".join(c["source"]) for c in json.loads(STUDENT.read_text())["cells"] if c["cell_type"] == "markdown"]
    left = [m.group(0) for text in markdown for m in MYST_SYNTAX.finditer(text)]
    assert not left, f"MyST syntax left in {STUDENT.name}: {left}"
    # exercises and equations carry the book's numbers (the course pages share one counter: the lab's
    # three exercises and six equations come first)
    assert "**Exercise 4**" in "\n".join(markdown) and "\\tag{7}" in "\n".join(markdown)
